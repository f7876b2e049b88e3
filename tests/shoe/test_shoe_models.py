"""One suite over every registered shoe reader model (issue 48, finding 4: the wire
encoding was baked into the frame type, ``Frame.wire``/``__str__``, and the decoder was
built in three places). Each model of :data:`drivers.shoe.models.MODELS` must round-trip
every frame the ICD allows in any chunking among line noise, and carry a whole greeting
between the simulator and the controller's session; tests/shoe/test_shoe_driver.py runs
the driver's whole suite once per model too."""

from __future__ import annotations

import random

import pytest
from shoe_support import FAST, plain_shoe

from drivers.shoe.framing import Frame, frame_text
from drivers.shoe.models import MODELS, default_model, reader_model
from drivers.shoe.session import ControllerSession
from drivers.shoe.sim_machine import ShoeMachine, SimSettings
from etgcore.errors import UserError

FRAMES = [Frame(0, "HEL", ("ETG-SIM", "1.0")), Frame(1, "CRD", ("AS",)), Frame(2, "CUT"),
          Frame(255, "FLT", ("JAM", "lid open #2 ~!")), Frame(7, "ACK")]


def test_the_frame_type_holds_no_wire_encoding() -> None:
    assert not hasattr(Frame(1, "CRD", ("AS",)), "wire")
    assert frame_text(Frame(1, "CRD", ("AS",))).startswith("$01,CRD,AS*")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_model_round_trips_frames_in_any_chunking(name: str) -> None:
    model = reader_model(name)
    rng = random.Random(48)
    stream = b"".join(b"\x00noise" + model.encode(f) for f in FRAMES)
    for _ in range(20):
        dec = model.decoder()
        got: list[Frame] = []
        i = 0
        while i < len(stream):
            n = rng.randint(1, 9)
            got += dec.feed(stream[i:i + n])
            i += n
        assert got == FRAMES
        assert dec.stats.frames == len(FRAMES)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_model_carries_the_greeting_both_ways(name: str) -> None:
    model = reader_model(name)
    shoe = ShoeMachine(SimSettings(timing=FAST, cards=("AS", "KD"), pace_s=0.0), 0.0,
                       plain_shoe, model)
    ctl = ControllerSession(FAST, model=model)
    shoe.connect(0.0)
    kinds: list[str] = []
    now = 0.0
    for _ in range(400):
        now += 0.01
        kinds += [r.kind for r in ctl.feed(shoe.take_output(), now)]
        shoe.feed(ctl.take_output(), now)
        shoe.poll(now)
        ctl.poll(now)
        if ctl.synced:
            break
    assert "hello" in kinds and ctl.synced, kinds
    assert shoe.decoder.stats.dropped == 0 and ctl.decoder.stats.dropped == 0


def test_an_unknown_model_is_one_line_naming_those_there_are() -> None:
    assert default_model() is MODELS["icd"]
    with pytest.raises(UserError, match="allowed: icd"):
        reader_model("binary-x")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_model_s_bad_crc_frame_is_counted_as_one_and_spares_the_next(name: str) -> None:
    """The simulator's bad-crc fault goes through the model (its ``corrupt``): the frame
    arrives whole with a wrong check, and the next frame still decodes."""
    model = reader_model(name)
    dec = model.decoder()
    got = dec.feed(model.corrupt(Frame(2, "CRD", ("KD",))) + model.encode(FRAMES[1]))
    assert got == [FRAMES[1]] and dec.stats.bad_crc == 1 and dec.stats.bad_syntax == 0


def test_finding_4_a_binary_model_test_only_is_in_the_registry_not_the_product() -> None:
    """tests/shoe/binary_model.py (registered by tests/shoe/conftest.py) is what the
    driver's whole suite and these run over besides the ICD's: binary frames, no line
    ends. It is not shipped: no module of drivers/ registers it."""
    import binary_model

    from drivers.shoe import models

    assert MODELS["binary-test"] is binary_model.BINARY
    assert b"\r\n" not in binary_model.encode(FRAMES[1])
    shipped = {n for n, m in MODELS.items() if m.encode.__module__.startswith("drivers.")}
    assert shipped == {"icd"} and models.DEFAULT == "icd"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_finding_4_the_simulator_injects_a_bad_crc_in_the_model_s_own_bytes(name: str) -> None:
    """The bad-crc injection wrote the ICD's ASCII whatever the model: a binary shoe's
    controller saw line noise, never a bad CRC, and waited out the link."""
    model = reader_model(name)
    shoe = ShoeMachine(SimSettings(timing=FAST, cards=("AS", "KD"), pace_s=0.0), 0.0,
                       plain_shoe, model)
    ctl = ControllerSession(FAST, model=model)
    shoe.connect(0.0)
    shoe.inject("bad-crc", 1, 0.0)
    now, kinds = 0.0, []
    for _ in range(400):
        now += 0.01
        kinds += [r.kind for r in ctl.feed(shoe.take_output(), now)]
        shoe.feed(ctl.take_output(), now)
        shoe.poll(now)
        ctl.poll(now)
        if ctl.synced:
            break
    assert ctl.decoder.stats.bad_crc == 1 and ctl.decoder.stats.garbage_bytes == 0
    assert ctl.synced and "hello" in kinds  # the HEL retransmitted, then taken
