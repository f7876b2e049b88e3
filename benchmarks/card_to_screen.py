"""`make bench`'s card to screen: a card from its frame on the pty to the frame showing it.

This process plays the shoe on the master side of a real pty (HEL, then one ``CRD`` frame
at a time, each once the previous card is shown); the real driver, controller (journal
with fsync, engine) and UI runner loop (``UiWindow.loop``: pygame, SDL dummy driver,
1920x1080, at most 60 frames a second, woken by the inbox) run as in ``etg run``. 7
seats; each round is dealt (16 cards) and voided, 18 rounds (288 cards of one 6-deck
shoe), one card every :data:`CARD_GAP_S` at most. Each card is also timed at the steps it
passes: delivered by the driver, its journal commit done, its view published, shown.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
import time
import tty
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from etgcore.cards import deck
from etgcore.view import PublicView

#: The next card is written this long after the previous one is on the screen: 20 cards a
#: second, faster than any dealer, yet long enough that the controller has finished the
#: previous card's work (its deferred head write) as it has at the table; without the gap
#: the bench would time the queue behind that work, not the card.
CARD_GAP_S = 0.05

def _on_screen(view: PublicView | None) -> int:
    """How many cards a public view shows."""
    if not view:
        return 0
    n = len(view["dealer"]["cards"])
    return n + sum(len(h["cards"]) for s in view["seats"] for h in s["hands"])


@dataclass
class CardTimes:
    """Seconds from each card's frame written to the frame showing it (``shown``), and
    for each card whose view did not jump past it, to each step on the way (``steps``:
    the driver delivered it, its journal commit done, its view published, shown)."""

    shown: list[float] = field(default_factory=list)
    steps: list[tuple[float, float, float, float]] = field(default_factory=list)
    #: every view the screen was handed, in order (for :func:`frames_alone`)
    views: list[PublicView] = field(default_factory=list)


class _Marks:
    """Moments of the card in flight (perf_counter), set by the threads it passes."""

    def __init__(self) -> None:
        self.written = self.delivered = self.committed = self.published = 0.0
        self.want = 0  # cards the view must show
        self.shown = threading.Event()
        self.shown_at = 0.0

    def arm(self, want: int) -> None:
        self.delivered = self.committed = self.published = 0.0
        self.want = want
        self.shown.clear()


def _bench_journal(path: Path, marks: _Marks) -> Any:
    from firmware.journal import Journal

    class TimedJournal(Journal):
        def append(self, entries: Any, meters: Any = None, *, checkpoint: Any = None
                   ) -> Any:
            out = super().append(entries, meters, checkpoint=checkpoint)
            if marks.delivered and not marks.committed:
                marks.committed = time.perf_counter()
            return out

    return TimedJournal(path)


def _bench_controller(seats: int, journal: Any, publish: Any) -> Any:
    from firmware.engine import Game, load_rules
    from firmware.engine.inputs import CreditsIn, NewShoe
    from firmware.table.controller import Controller

    class BenchController(Controller):
        """Runs the benchmark's own steps (wagers, void) on the controller's thread."""

        def handle(self, h: Any) -> None:
            if isinstance(h, _Call):
                h.fn()
                self.refresh()
            else:
                super().handle(h)

    table = Game(load_rules("blackjack", {"burn_cards": 0}), seats=seats, bench=True)
    ctl = BenchController(table, journal, publish=publish)
    for s in range(1, seats + 1):
        ctl.take(CreditsIn(s, 10_000_000), "bench")
    ctl.take(NewShoe(), "bench")
    return ctl


class _BenchShoe:
    """The shoe's side of a real pty: HEL, then one CRD frame at a time, each written
    once the previous card is on the screen; every command acknowledged."""

    def __init__(self, ctl: Any, marks: _Marks, seats: int) -> None:
        from drivers.shoe.framing import Decoder

        self.ctl, self.marks, self.seats = ctl, marks, seats
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.decoder = Decoder()
        self.times = CardTimes()

    def answer_commands(self, for_s: float = 0.0) -> None:
        """Acknowledge what the controller sent (LCK, ULK, LED...), as the shoe would."""
        from drivers.shoe.framing import encode

        end = time.monotonic() + for_s
        while True:
            with contextlib.suppress(OSError):
                for frame in self.decoder.feed(os.read(self.master, 65536)):
                    if frame.type not in ("ACK", "NAK"):
                        os.write(self.master, encode(frame.seq, "ACK"))
            if time.monotonic() >= end:
                return
            time.sleep(0.02)

    def deal(self, rounds: int, runner: Any) -> None:
        from drivers.shoe.framing import encode
        from firmware.engine.inputs import CloseBetting, Console, Wager

        ctl, m, seats = self.ctl, self.marks, self.seats
        os.write(self.master, encode(0, "HEL", "1", "BENCH", "1", "B0"))
        self.answer_commands(0.3)
        cards, seq, k = deck() * 8, 0, 0
        for _ in range(rounds):
            ctl.put(cast(Any, _Call(lambda: _new_round(ctl, seats, Wager, CloseBetting))))
            self.answer_commands(0.1)
            for i in range(2 * (seats + 1)):
                seq = (seq + 1) & 0xFF
                m.arm(i + 1)
                os.write(self.master, encode(seq, "CRD", cards[k % len(cards)]))
                m.written = t0 = time.perf_counter()
                k += 1
                if not m.shown.wait(5):
                    v = runner.view
                    phase, tilt, exp = (v["phase"], v["tilt"], v["expecting"]) if v else \
                        (None, None, None)
                    raise RuntimeError(
                        f"card {k} never reached the screen: phase {phase}, "
                        f"{_on_screen(v)} cards shown, {m.want} wanted, "
                        f"tilt {tilt}, expecting {exp}")
                self._record(t0)
                self.answer_commands(CARD_GAP_S)
            ctl.put(cast(Any, _Call(lambda: ctl.take(Console("VOID"), "bench"))))
            self.answer_commands(0.1)

    def _record(self, t0: float) -> None:
        m, t = self.marks, self.times
        t.shown.append(m.shown_at - t0)
        if m.delivered and m.committed and m.published:  # a view that jumped: not split
            t.steps.append((m.delivered - t0, m.committed - t0, m.published - t0,
                            m.shown_at - t0))

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def card_to_screen(rounds: int = 18, seats: int = 7) -> CardTimes:
    """Each card from its frame on the pty to the frame showing it, and where it was."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from drivers.shoe.driver import ShoeDriver
    from firmware.table.controller import ShoeHappening, StopHappening
    from firmware.table.service.run import freeze_startup_heap
    from ui.window import UiInbox, UiWindow

    marks = _Marks()
    inbox = UiInbox()
    runner = UiWindow(_bench_layout(), inbox, size=(1920, 1080))

    def publish(v: PublicView) -> None:
        if marks.committed and not marks.published and _on_screen(v) >= marks.want:
            marks.published = time.perf_counter()
        shown = v.copy()
        shown.pop("controller", None)  # as the table's UI bridge hands it to the screen
        shoe.times.views.append(shown)
        inbox.put_view(shown)

    def delivered(e: Any) -> None:
        if e.kind == "card" and not marks.delivered:
            marks.delivered = time.perf_counter()
        ctl.put(ShoeHappening(e))

    def on_frame() -> None:
        if marks.want and not marks.shown.is_set() and _on_screen(runner.view) >= marks.want:
            marks.shown_at = time.perf_counter()
            marks.shown.set()

    journal = _bench_journal(Path(tempfile.mkdtemp(prefix="etg-bench-")) / "j.sqlite", marks)
    ctl = _bench_controller(seats, journal, publish)
    shoe = _BenchShoe(ctl, marks, seats)
    driver = ShoeDriver(os.ttyname(shoe.slave), on_report=delivered)
    driver.start(require_port=True)
    ctl.shoe = driver
    worker = threading.Thread(target=ctl.run, name="controller", daemon=True)
    failure: list[BaseException] = []

    def deal() -> None:
        try:
            shoe.deal(rounds, runner)
        except BaseException as exc:
            failure.append(exc)
        finally:
            inbox.put({"kind": "quit"})

    pygame.display.init()
    surf = pygame.display.set_mode((1920, 1080))
    freeze_startup_heap()  # as `etg run` does before READY
    worker.start()
    threading.Thread(target=deal, daemon=True).start()
    try:
        runner.loop(surf, pygame.display.update, on_frame=on_frame)
        if failure:
            raise failure[0]
    finally:
        ctl.put(StopHappening())
        worker.join(2)
        driver.stop()
        shoe.close()
        journal.close()
        pygame.display.quit()
    return shoe.times


class _Call:
    """A happening that runs a function on the controller's thread (bench only)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn


def _new_round(ctl: Any, seats: int, wager: Any, close: Any) -> None:
    for s in range(1, seats + 1):
        ctl.take(wager(s, 500), "bench")
    ctl.take(close(), "bench")


def frames_alone(views: list[PublicView], pause_s: float, passes: int = 2) -> list[float]:
    """Seconds the renderer takes for each frame that adds one card, the same views drawn
    again on this thread alone, ``pause_s`` asleep before each frame (0: back to back).

    Why: the UI's leg of :func:`card_to_screen` is mostly this frame, drawn after the
    table has slept between cards. Drawn back to back, the same frames show what the
    drawing itself costs; after a short sleep, what a core coming back from idle adds
    (caches refilled: a virtual machine's idle core runs other guests' work meanwhile)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from ui.renderer import Renderer
    from ui.state import ScreenState

    pygame.display.init()
    try:
        surf = pygame.display.set_mode((1920, 1080))
        renderer, state = Renderer((1920, 1080), _bench_layout()), ScreenState()
        out: list[float] = []
        for _ in range(passes):
            renderer.invalidate()
            before = None
            for view in views:
                if pause_s:
                    time.sleep(pause_s)
                t0 = time.perf_counter()
                renderer.render(surf, view, state, 0.0)
                took = time.perf_counter() - t0
                n = _on_screen(view)
                if before is not None and n == before + 1:
                    out.append(took)
                before = n
        return out
    finally:
        pygame.display.quit()


def _bench_layout() -> Any:
    """The layout both card benchmarks draw: Blackjack, no burn card."""
    from firmware.engine import load_rules
    from firmware.engine.layout import layout_for
    from ui.layout_data import parse_layout

    return parse_layout(layout_for(load_rules("blackjack", {"burn_cards": 0})), "Bench")
