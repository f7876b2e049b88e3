"""The driver against the simulator over real pseudo-terminals (and TCP, and socat), with
every fault the simulator can inject. Protocol times scaled by SCALE (shoe_support) except
where a test says "real ICD timing"."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Callable

import pytest
from shoe_support import FAST, plain_shoe
from waiting import DEADLINE_S, stop_process, wait_for

from drivers.shoe import models
from drivers.shoe.driver import ShoeDriver, ShoePortError, asyncio_sink
from drivers.shoe.framing import Frame
from drivers.shoe.reliability import ICD_TIMING
from drivers.shoe.reports import ShoeReport
from drivers.shoe.session import ControllerSession
from drivers.shoe.sim_machine import SimSettings
from drivers.shoe.simulator import ShoeSimulator

SCRIPT = ["AS", "KD", "7C", "2H", "9S", "QH", "3D", "TC", "5S", "JH", "4D", "8C", "6H", "KS"]


@pytest.fixture(autouse=True, params=sorted(models.MODELS))
def reader_model(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The whole driver suite runs once per registered shoe reader model (issue 48): the
    driver and the simulator both speak it when no model is given."""
    monkeypatch.setattr(models, "DEFAULT", request.param)
    return str(request.param)


class Consumer:
    """The table service's side: a queue of events and helpers to wait on them."""

    def __init__(self, driver: ShoeDriver) -> None:
        self.driver = driver
        self.seen: list[ShoeReport] = []

    def next(self, kind: str, timeout: float = DEADLINE_S,
             where: Callable[[ShoeReport], bool] = lambda e: True) -> ShoeReport:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind} event within {timeout} s; saw "
                                     f"{[e.kind for e in self.seen[-15:]]}")
            try:
                event = self.driver.reports.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(event)
            if event.kind == kind and where(event):
                return event

    def drain(self) -> list[ShoeReport]:
        """The events delivered so far and not yet taken (no waiting)."""
        got = []
        with contextlib.suppress(queue.Empty):
            while True:
                got.append(self.driver.reports.get_nowait())
        self.seen += got
        return got

    def cards(self) -> list[str]:
        return [e.card for e in self.seen if e.kind == "card" and e.card]


@pytest.fixture
def rig(sim_factory):
    """A simulator on a pty and a started driver with the table's usual opening."""
    made: list[ShoeDriver] = []

    def make(opening: bool = True, **settings: object) -> tuple[ShoeSimulator, Consumer]:
        settings.setdefault("cards", SCRIPT)
        settings.setdefault("pace_s", 0.0)
        settings.setdefault("cut_after", 99)
        sim = sim_factory(**settings)
        driver = ShoeDriver(sim.path, timing=FAST, backoff=(0.05, 0.2))
        made.append(driver)
        driver.start()
        c = Consumer(driver)
        c.next("hello")
        if opening:
            driver.unlock()
        return sim, c

    yield make
    for d in made:
        d.stop()


def test_driver_delivers_every_card_in_order_with_hello_and_empty(rig) -> None:
    _sim, c = rig()
    c.next("empty")
    assert c.cards() == SCRIPT
    assert [e.kind for e in c.seen[:1]] == ["link-up"] or c.seen[0].kind == "hello"


def test_driver_commands_new_lock_unlock_led_query_reset(rig) -> None:
    sim, c = rig(opening=False, cards=None, decks=1, pace_s=0.02)
    d = c.driver
    d.new(2)
    c.next("ack", where=lambda e: e.command == "NEW")
    d.led("AMBER")
    d.unlock()
    c.next("card")
    d.lock()
    c.next("ack", where=lambda e: e.command == "LCK")
    d.query()
    status = c.next("status")
    assert status.state == "LOCKED" and status.count == len(c.cards())
    assert sim.status()["led"] == "AMBER"
    d.reset()
    assert c.next("hello").dropped == 0
    assert [f.type for f in sim.received()][:5] == ["NEW", "LED", "ULK", "LCK", "QRY"]
    with pytest.raises(ValueError):
        d.new(9)
    with pytest.raises(ValueError):
        d.led("PURPLE")


def test_driver_reports_a_nak_as_an_event(rig) -> None:
    _sim, c = rig()
    c.driver.new(6)  # the gate is unlocked: the shoe refuses
    nak = c.next("nak")
    assert (nak.command, nak.code) == ("NEW", "STATE")


@pytest.mark.parametrize("fault", ["bad-crc", "drop", "duplicate", "garbage"])
def test_driver_survives_link_fault_and_loses_no_card(rig, fault: str) -> None:
    sim, c = rig(opening=False)
    for _ in range(3):
        sim.inject(fault)
    c.driver.unlock()
    c.next("empty")
    assert c.cards() == SCRIPT  # each card exactly once, in order
    stats = c.driver.stats()
    if fault == "bad-crc":
        assert stats["decoder"]["bad_crc"] >= 3
    elif fault == "duplicate":
        assert stats["link"]["duplicates"] >= 3
    elif fault == "garbage":
        assert stats["decoder"]["garbage_bytes"] > 0


def test_driver_survives_late_acks_from_the_shoe(rig) -> None:
    sim, c = rig(opening=False)
    sim.inject("late-ack")
    c.driver.unlock()
    c.next("empty")
    if not any(e.kind == "ack" and e.command == "ULK" for e in c.seen):
        c.next("ack", where=lambda e: e.command == "ULK")  # it was late, by design
    assert c.cards() == SCRIPT
    assert c.driver.stats()["link"]["retransmits"] >= 1
    assert [f.type for f in sim.received()].count("ULK") == 1  # acted on once
    assert sim.status()["link"]["duplicates"] >= 1


@pytest.mark.parametrize("kind", ["misread", "double", "jam", "lid", "sensor"])
def test_driver_reports_shoe_faults_with_their_code(rig, kind: str) -> None:
    sim, c = rig(opening=False)
    sim.inject(kind)
    event = c.next("fault")
    assert event.code == kind.upper() and event.raw and event.raw.startswith("$")


def test_driver_link_down_on_silence_and_up_again(rig) -> None:
    sim, c = rig(opening=False)
    sim.inject("silence", FAST.link_down_s * 2)
    down = c.next("link-down")
    assert "no valid frame" in (down.detail or "")
    c.next("link-up")


def test_icd_3_driver_link_down_3000ms_after_the_last_valid_frame() -> None:
    """ICD §3: link-down 3000 ms after the last valid frame, on the driver's own session
    with a controlled clock (the link's rule alone is in test_shoe_link; here the HEL,
    heartbeat and card that the driver sees count, and a garbled frame does not)."""
    model = models.default_model()  # the suite's model (the fixture above)
    s = ControllerSession(ICD_TIMING, model=model)
    s.port_opened(100.0)
    s.feed(model.encode(Frame(0, "HEL", ("1", "M", "1", "S"))), 100.0)
    s.feed(model.encode(Frame(0, "HBT", ("1", "READY"))), 101.0)
    s.feed(model.encode(Frame(1, "CRD", ("AS",))), 101.5)
    s.feed(model.corrupt(Frame(2, "CRD", ("KD",))), 103.0)  # a bad CRC: not a valid frame
    assert s.decoder.stats.bad_crc == 1
    assert s.poll(104.499) == []
    assert [e.kind for e in s.poll(104.5)] == ["link-down"]
    assert s.poll(110.0) == []  # once per outage
    hbt = model.encode(Frame(0, "HBT", ("9", "READY")))
    assert "link-up" in [e.kind for e in s.feed(hbt, 111.0)]


def test_driver_hello_again_after_reboot_with_gate_locked(rig) -> None:
    sim, c = rig(pace_s=0.05, cards=SCRIPT * 3)
    c.next("card")
    sim.inject("reboot", 0.05)
    hello = c.next("hello")
    assert hello.seq == 0
    n = len(c.cards())
    c.driver.query()  # answered after the reboot: every card dealt before it is seen
    assert c.next("status").state == "LOCKED"
    assert len(c.cards()) <= n + 1  # gate locked after the reboot (one may be in flight)


@pytest.mark.parametrize("body, kind, check", [
    ("ERR,MISREAD", "fault", lambda e: e.code == "MISREAD"),
    ("HEL,1,X,1,SN1", "hello", lambda e: e.model == "X" and e.serial == "SN1"),
    ("CUT", "cut", lambda e: True),
    ("STA,READY,7", "status", lambda e: e.count == 7),
    ("BOO,1", "fault", lambda e: e.code == "PROTOCOL"),
])
def test_simulator_injects_arbitrary_frame_bodies(rig, body: str, kind: str, check) -> None:
    sim, c = rig(opening=False)
    sim.send_frame(body)
    assert check(c.next(kind))


def test_driver_under_random_link_chaos_loses_and_repeats_nothing(sim_factory) -> None:
    cards = (SCRIPT * 8)[:100]
    sim = sim_factory(cards=cards, pace_s=0.0, cut_after=999, chaos=0.15, chaos_seed=7)
    with ShoeDriver(sim.path, timing=FAST) as d:
        c = Consumer(d)
        c.next("hello")
        d.unlock()
        c.next("empty")
        assert c.cards() == cards


def test_driver_reopens_when_the_device_disappears_and_comes_back(tmp_path,
                                                                  open_attempts) -> None:
    """The udev name points at a new device after a replug: link-down, reopen, hello."""
    link = str(tmp_path / "etg-shoe")
    settings = dict(cards=SCRIPT, pace_s=0.0, cut_after=99, timing=FAST)
    first = ShoeSimulator.on_pty(SimSettings(**settings), link=link,  # type: ignore[arg-type]
                                 shuffler=plain_shoe).start()
    second = None
    d = ShoeDriver(link, timing=FAST, backoff=(0.05, 0.2)).start()
    try:
        c = Consumer(d)
        c.next("hello")
        first.stop()  # unplugged: the pty vanishes
        assert "port lost" in (c.next("link-down").detail or "")
        tried = len(open_attempts)
        wait_for("a few failed reopen attempts", lambda: len(open_attempts) >= tried + 3)
        second = ShoeSimulator.on_pty(SimSettings(**settings), link=link,  # type: ignore[arg-type]
                                      shuffler=plain_shoe).start()
        c.next("link-up")
        c.next("hello")
        d.unlock()
        c.next("empty")
        assert c.cards() == SCRIPT and d.stats()["reopens"] >= 1
    finally:
        d.stop()
        first.stop()
        if second is not None:
            second.stop()


def test_driver_over_tcp_socket_url_and_reconnect() -> None:
    sim = ShoeSimulator.on_tcp("127.0.0.1", 0, SimSettings(cards=SCRIPT, pace_s=0.0,
                                                           cut_after=99, timing=FAST),
                               shuffler=plain_shoe).start()
    try:
        assert sim.path.startswith("socket://127.0.0.1:")
        with ShoeDriver(sim.path, timing=FAST, backoff=(0.05, 0.2)) as d:
            c = Consumer(d)
            c.next("hello")
            d.unlock()
            c.next("empty")
            assert c.cards() == SCRIPT
        with ShoeDriver(sim.path, timing=FAST) as d2:  # a second session: HEL again
            Consumer(d2).next("hello")
    finally:
        sim.stop()


@pytest.mark.skipif(shutil.which("socat") is None, reason="socat is not installed")
def test_driver_and_simulator_through_a_socat_pty_pair(tmp_path) -> None:
    a, b = str(tmp_path / "shoe-a"), str(tmp_path / "shoe-b")
    proc = subprocess.Popen(["socat", f"pty,raw,echo=0,link={a}", f"pty,raw,echo=0,link={b}"],
                            stderr=subprocess.DEVNULL)
    try:
        wait_for("socat's two ptys", lambda: os.path.exists(a) and os.path.exists(b))
        sim = ShoeSimulator.on_url(a, SimSettings(cards=SCRIPT, pace_s=0.0, cut_after=99,
                                                  timing=FAST), shuffler=plain_shoe).start()
        try:
            with ShoeDriver(b, timing=FAST) as d:
                c = Consumer(d)
                c.next("hello")  # a retransmitted HEL, or after our resync RST
                d.unlock()
                c.next("empty")
                assert c.cards()[-len(SCRIPT):] == SCRIPT
        finally:
            sim.stop()
    finally:
        stop_process(proc)


def test_driver_resyncs_when_attaching_to_a_running_shoe(sim_factory) -> None:
    """A shoe that does not greet us (HEL long gone): the driver sends RST, gets HEL."""
    sim = sim_factory(cards=SCRIPT)
    first = ShoeDriver(sim.path, timing=FAST).start()
    Consumer(first).next("hello")
    first.stop()
    sim.send_frame("CUT")  # nobody attached; the next controller will not get a HEL first
    with ShoeDriver(sim.path, timing=FAST, resync=True) as d:
        Consumer(d).next("hello")


def test_driver_commands_never_block_even_without_a_port(tmp_path) -> None:
    d = ShoeDriver(str(tmp_path / "no-such-shoe"), timing=FAST, backoff=(0.05, 0.1)).start()
    try:
        done = threading.Event()

        def caller() -> None:
            for _ in range(100):
                d.unlock()
                d.lock()
                d.query()
            done.set()

        threading.Thread(target=caller, daemon=True).start()
        assert done.wait(DEADLINE_S), "a command call blocked"
        assert not d.link_up
    finally:
        d.stop()


def test_driver_bad_port_is_a_one_line_error_when_required(tmp_path) -> None:
    with pytest.raises(ShoePortError, match=r"cannot open shoe port .*no-such"):
        ShoeDriver(str(tmp_path / "no-such")).start(require_port=True)


def test_driver_feeds_an_asyncio_queue_without_blocking_the_loop(sim_factory) -> None:
    sim = sim_factory(cards=SCRIPT[:3], pace_s=0.0, cut_after=99)

    async def table() -> list[str]:
        q: asyncio.Queue[ShoeReport] = asyncio.Queue()
        d = ShoeDriver(sim.path, asyncio_sink(asyncio.get_running_loop(), q), timing=FAST)
        d.start()
        got: list[str] = []
        try:
            while "empty" not in got:
                event = await asyncio.wait_for(q.get(), DEADLINE_S)
                got.append(event.kind)
                if event.kind == "hello":
                    d.unlock()
        finally:
            d.stop()
        return got

    kinds = asyncio.run(table())
    assert kinds.count("card") == 3 and kinds[-1] == "empty"


def test_driver_survives_a_consumer_that_raises(sim_factory) -> None:
    sim = sim_factory(cards=SCRIPT[:4], pace_s=0.0, cut_after=99)
    got: list[str] = []

    def consumer(event: ShoeReport) -> None:
        got.append(event.kind)
        if event.kind == "card":
            raise RuntimeError("bug in the consumer")

    with ShoeDriver(sim.path, consumer, timing=FAST) as d:
        wait_for("hello", lambda: "hello" in got)
        d.unlock()
        wait_for("empty, after the consumer raised on each card", lambda: "empty" in got)
    assert got.count("card") == 4


def test_icd_1_driver_opens_115200_8n1_without_flow_control(sim_factory) -> None:
    from drivers.shoe.driver import open_port

    sim = sim_factory()
    port = open_port(sim.path)
    try:
        assert (port.baudrate, port.bytesize, port.parity, port.stopbits) == (115200, 8, "N", 1)
        assert not port.xonxoff and not port.rtscts and not port.dsrdtr
    finally:
        port.close()


def test_icd_3_driver_acks_every_card_with_its_seq() -> None:
    """The controller's ACK of each card, with the card's SEQ, on a real pty. How fast
    (ICD §3: within 100 ms) is a figure of `make bench shoe`: the driver writes the ACK
    before it delivers the card, and the bench times that card over 10,000 frames."""
    import select
    import tty

    model = models.default_model()  # the suite's model (the fixture above)
    master, slave = os.openpty()
    tty.setraw(slave)
    dec = model.decoder()

    def answer(seq: int, frame: bytes, resend_s: float) -> None:
        """Write ``frame`` (again every ``resend_s``, as a shoe retransmits) until the
        driver ACKs ``seq``."""
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            os.write(master, frame)
            resend = time.monotonic() + resend_s
            while (left := resend - time.monotonic()) > 0:
                if select.select([master], [], [], left)[0] and any(
                        f.type == "ACK" and f.seq == seq
                        for f in dec.feed(os.read(master, 256))):
                    return
        raise AssertionError(f"the driver never acknowledged SEQ {seq}")

    try:
        with ShoeDriver(os.ttyname(slave)) as d:
            # the driver flushes the port when it opens it: the HEL is resent until ACKed
            answer(0, model.encode(Frame(0, "HEL", ("1", "M", "1", "S"))),
                   ICD_TIMING.retransmit_s)
            for i in range(1, 21):  # once: no retransmission
                answer(i, model.encode(Frame(i, "CRD", ("AS",))), DEADLINE_S)
            c = Consumer(d)  # each card is delivered just after its ACK was written
            c.next("hello")
            assert [c.next("card").card for _ in range(20)] == ["AS"] * 20
    finally:
        os.close(master)
        os.close(slave)
