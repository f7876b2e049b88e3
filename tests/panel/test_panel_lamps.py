"""The 74HC595 lamp chain: bit order at pin level, read-back, update only on change."""

from __future__ import annotations

import pytest
from panel_rig import make_rig

from drivers.panel import BUTTONS
from drivers.panel.lamps import bit_sequence, decode, encode
from drivers.panel.pins import HIGH, LOW
from drivers.panel.settings import PinMap

PINS = PinMap()


def clocked_bits(ops: list) -> tuple[list[int], int]:
    """DATA level at each CLOCK rising edge, and the number of LATCH rising edges after."""
    data, clock, latch = LOW, LOW, LOW
    bits: list[int] = []
    latches = 0
    for op in ops:
        if op.op != "write":
            continue
        if op.pin == PINS.lamp_data:
            data = op.level
        elif op.pin == PINS.lamp_clock:
            if clock == LOW and op.level == HIGH:
                assert latches == 0, "bits shifted after the latch"
                bits.append(data)
            clock = op.level
        elif op.pin == PINS.lamp_latch:
            if latch == LOW and op.level == HIGH:
                latches += 1
            latch = op.level
    return bits, latches


def test_bit_order_seat7_first_msb_first_then_latch() -> None:
    """Panel ICD lamps: 56 bits, seat 7 first, most significant bit first, then latch."""
    rig = make_rig(record=10_000)
    rig.sim.ops.clear()
    rig.panel.set_lamps({7: {"INSURANCE"}, 1: {"BET"}, 3: {"HIT", "STAND"}})
    bits, latches = clocked_bits(list(rig.sim.ops))
    assert len(bits) == 56 and latches == 1
    assert bits[:8] == [1, 0, 0, 0, 0, 0, 0, 0]  # seat 7, bit 7 (INSURANCE) first
    assert bits[8 * 4:8 * 5] == [0, 0, 0, 0, 1, 1, 0, 0]  # seat 3: HIT bit 2, STAND bit 3
    assert bits[-8:] == [0, 0, 0, 0, 0, 0, 0, 1]  # seat 1 last, BET = bit 0 last
    assert bits == bit_sequence(encode({7: {"INSURANCE"}, 1: {"BET"}, 3: {"HIT", "STAND"}}))


def test_lamps_read_back_from_the_simulated_registers() -> None:
    """Seat 7's register is last in the chain; bit n of a seat's byte is column n."""
    rig = make_rig()
    lit = {1: {"BET"}, 3: {"HIT", "STAND"}, 7: {"INSURANCE"}}
    assert rig.panel.set_lamps(lit)
    assert rig.sim.lamp_bytes() == (0b1, 0, 0b1100, 0, 0, 0, 0b1000_0000)
    assert rig.sim.lamps() == {s: frozenset(b) for s, b in lit.items()}
    assert rig.panel.lamps() == rig.sim.lamps()


@pytest.mark.parametrize("seat", range(1, 8))
def test_every_lamp_alone(seat: int) -> None:
    rig = make_rig()
    for n, b in enumerate(BUTTONS):
        rig.panel.set_lamps({seat: {b}})
        expected = [0] * 7
        expected[seat - 1] = 1 << n
        assert rig.sim.lamp_bytes() == tuple(expected)


def test_chain_written_only_when_lamps_change() -> None:
    """Issue 7 point 3: the chain is updated only when the legal buttons change."""
    rig = make_rig(record=10_000)
    assert rig.panel.set_lamps({2: {"HIT", "STAND"}})
    updates, latches = rig.panel.chain.updates, rig.sim.latches
    rig.sim.ops.clear()
    assert not rig.panel.set_lamps({2: ["STAND", "HIT"]})  # same set, other order
    rig.run(0.1)  # scanning never touches the lamp pins
    lamp_pins = {PINS.lamp_data, PINS.lamp_clock, PINS.lamp_latch}
    assert not [op for op in rig.sim.ops if op.pin in lamp_pins]
    assert (rig.panel.chain.updates, rig.sim.latches) == (updates, latches)
    assert rig.panel.set_lamps({})
    assert rig.sim.lamps() == {}


def test_lamps_stay_until_the_latch() -> None:
    """The outputs keep the old state while bits shift; only LATCH changes them."""
    rig = make_rig()
    rig.panel.set_lamps({4: {"SPLIT"}})
    sim = rig.sim
    for bit in bit_sequence(encode({5: {"BET"}}))[:40]:
        sim.write(PINS.lamp_data, bit)
        sim.write(PINS.lamp_clock, HIGH)
        sim.write(PINS.lamp_clock, LOW)
    assert sim.lamps() == {4: frozenset({"SPLIT"})}


def test_lamps_set_before_setup_are_shown_at_setup_and_dark_after_stop() -> None:
    rig = make_rig()
    rig.panel.stop()
    rig.panel.set_lamps({6: {"DOUBLE"}})
    assert rig.sim.lamps() == {}
    rig.panel.setup()
    assert rig.sim.lamps() == {6: frozenset({"DOUBLE"})}
    rig.panel.stop()
    assert rig.sim.lamps() == {}


def test_bad_lamp_requests_are_refused() -> None:
    rig = make_rig("table.seats=5")
    with pytest.raises(ValueError, match="seat 6"):
        rig.panel.set_lamps({6: {"HIT"}})
    with pytest.raises(ValueError, match="unknown panel button"):
        rig.panel.set_lamps({1: {"FOLD"}})


def test_encode_decode_round_trip() -> None:
    lit = {1: frozenset(BUTTONS), 4: frozenset({"SURRENDER"})}
    assert decode(encode(lit)) == lit
