"""The table controller: the one path every happening takes.

A happening (a shoe report, a button, a console press, a timer, an attendant, bench or
floor request) is turned into inputs for the game; each input is appended to the journal — durably —
and only then applied to the engine. After every change the controller derives its
commands from what the engine now expects: the shoe gate (unlocked only while a card is
due), the lamps of the buttons that would be accepted, an RNG draw when one is due (its
result is itself an input), a round record with its meters when a round ends, and a
public snapshot for the UI.

The controller owns the engine and runs on one thread; drivers only put happenings into
its inbox, so nothing here ever waits on a serial port, a pin or a frame.
"""

from __future__ import annotations

import logging
import queue
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from etgcore.view import ControllerView
from firmware.engine import phases as P
from firmware.engine.game import Game
from firmware.engine.inputs import Draw, Fault, Input
from firmware.engine.rejected import Rejected
from firmware.journal import Entry, EventCode, Journal, JournalError
from firmware.table.accounting import round_record
from firmware.table.devices import translate
from firmware.table.devices.device_reports import DeviceReports, optional_wager, placed
from firmware.table.devices.shoe_checks import RepeatWatch
from firmware.table.devices.shoe_control import ShoeControl
from firmware.table.floor_gate import FloorGate
from firmware.table.happenings import (
    Happening,
    PanelHappening,
    RequestHappening,
    ShoeHappening,
    StopHappening,
    hold_reply,
)
from firmware.table.meter_proof import checkpoint_part
from firmware.table.pending_double import DoubleChooser
from firmware.table.ports import OnRound, PanelPort, Publish, RngPort, ShoePort
from firmware.table.requests.desk import RequestDesk
from firmware.table.requests.transfers import CreditLimits, TransferLedger
from firmware.table.rng_draw import draw_values, forced_refusal
from firmware.table.round_state import round_ended
from firmware.table.steps import LoadShoe, Log, Step, Take

log = logging.getLogger("etg.table")


class Controller:
    """Owns the engine; see the module docstring. Not thread-safe: one thread calls it.

    It holds its collaborators, each owning its own state: :attr:`reports` (shoe reports,
    buttons, console keys turned into steps it carries out:
    firmware.table.devices.device_reports), :attr:`requests` (attendant, bench and floor
    requests: firmware.table.requests.desk, which reaches the controller only through
    :class:`~firmware.table.ports.RequestHost`), :attr:`shoe_control` (gate, LED, fault
    queries: firmware.table.devices.shoe_control) and :attr:`doubles` (the 1x-4x double).
    """

    def __init__(
        self,
        game: Game,
        journal: Journal,
        *,
        shoe: ShoePort | None = None,
        panel: PanelPort | None = None,
        rng: RngPort | None = None,
        publish: Publish | None = None,
        on_round: OnRound | None = None,
        clock: Callable[[], float] = time.monotonic,
        finals_recorded: int = 0,
        round_first_seq: int | None = None,
        limits: CreditLimits | None = None,
        epoch_seq: int = 0,
        checkpoint_rounds: int = 0,
    ) -> None:
        self.game = game
        self.rules = game.rules
        self.journal = journal
        journal.defer_head = True  # the head file is written after the view (refresh)
        self.panel = panel
        self.rng = rng
        self.publish = publish or (lambda view: None)
        self.before_reply: list[Callable[[], object]] = []  # waits an answer goes behind
        self.on_round = on_round or (lambda rec: None)
        self.clock = clock
        # SimpleQueue: a reentrant put, a signal handler may stop us inside get
        self.inbox: queue.SimpleQueue[Happening] = queue.SimpleQueue()
        self.forced_draws: list[dict[str, int]] = []
        #: the pending 1x-4x double (press, tick, lamps)
        self.doubles = DoubleChooser()
        self.shoe_control = ShoeControl(shoe)
        self.reports = DeviceReports(self.shoe_control, self.doubles)
        self.requests = RequestDesk(self, journal, limits or CreditLimits(),
                                 TransferLedger.from_journal(journal))
        self.failure: str | None = None  # journal failure: the table takes no input at all
        self.rng_failure: str | None = None  # shown; a round needing a draw tilts (RNG)
        self.finals = finals_recorded  # rounds recorded (settled or voided) in the epoch
        #: the epoch's record; a checkpoint every checkpoint_rounds-th round (0: none)
        self.epoch_seq = epoch_seq
        self.checkpoint_rounds = checkpoint_rounds if epoch_seq else 0
        self._lamps: dict[int, set[str]] | None = None
        self._was_final = round_ended(game)
        self._was_tilted = game.phase == P.TILT
        self._round_first_seq: int | None = round_first_seq
        self.stopped = False
        self.floor_gate = FloorGate()  # the service restores it from the journal
        self.repeats = RepeatWatch()
        self.stop_reason = ""  # why the last StopHappening stopped the loop (POWER_DOWN)
        #: happenings and inputs by kind ("shoe:card", "input:refused:console"): waited on
        self.handled: Counter[str] = Counter()

    @property
    def shoe(self) -> ShoePort | None:
        """The shoe port (the service attaches the driver once it is open)."""
        return self.shoe_control.shoe

    @shoe.setter
    def shoe(self, port: ShoePort | None) -> None:
        self.shoe_control.shoe = port

    @property
    def transfers(self) -> TransferLedger:
        return self.requests.transfers

    def request(self, name: str, args: Mapping[str, Any]) -> tuple[bool, str]:
        """One attendant or bench command, now (firmware.table.requests.desk)."""
        return self.requests.run(name, args)

    def status(self) -> dict[str, Any]:
        """The answer to the ``status`` command: the public view and the counters."""
        return {
            "view": self.game.public_view(), "rounds": self.finals, "failure": self.failure,
            "handled": dict(self.handled), "forced_draws": len(self.forced_draws),
            "pending_double": self.doubles.public(),
        }

    def force_draw(self, values: dict[str, int]) -> None:
        """Queue a bench draw (the caller checked the bench power); used at once if due."""
        self.forced_draws.append(values)
        exp = self.game.expecting()
        if exp.kind == "draw":
            self.draw(exp.draw)

    # -- the loop -------------------------------------------------------------------------

    def put(self, h: Happening) -> None:
        """Thread-safe: drivers and commands hand happenings over here."""
        self.inbox.put(h)

    def run(self, *, until: Callable[[], bool] | None = None,
            wake_at: Callable[[], float | None] | None = None) -> None:
        """Take happenings until a stop (or ``until()``), running timers when they are due.

        The loop sleeps on the inbox until the next happening or the nearest deadline
        (:meth:`next_deadline`, or ``wake_at()``: the clock time the caller's ``until``
        wants to be asked again, e.g. a watchdog ping), never polling: with nothing due
        and nothing arriving, the thread is asleep."""
        self.refresh()
        while not self.stopped:
            due = [d for d in (self.next_deadline(), wake_at() if wake_at else None)
                   if d is not None]
            timeout = max(0.0, min(due) - self.clock()) if due else None
            try:
                h = self.inbox.get(timeout=timeout)
            except queue.Empty:
                h = None
            if h is not None:
                self.handle(h)
            try:
                self.tick()
            except Exception as exc:  # a timer's bug must not stop the table either
                self._contain(exc, None)
            if until is not None and until():
                break

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has something to do (this controller's clock), or None."""
        due = [self.doubles.due(), self.shoe_control.due(want_status=self._want_status())]
        return min((d for d in due if d is not None), default=None)

    def _want_status(self) -> bool:
        """A fault is active, or the status after the shoe's HEL has not come yet."""
        tilt = self.game.tilt
        return (tilt is not None and tilt.active) or self.reports.shoe_check_due

    def handle(self, h: Happening) -> None:
        if isinstance(h, StopHappening):
            self.stopped = True
            self.stop_reason = h.reason
            return
        h, held = hold_reply(h)  # answered once the change is published (before_reply)
        try:
            if isinstance(h, ShoeHappening):
                self.carry_out(self.reports.on_shoe(h.report, self.game, self.clock()))
                self.handled["shoe:" + h.report.kind] += 1
            elif isinstance(h, PanelHappening):
                self.carry_out(self.reports.on_panel(h, self.game, self.clock()))
                self.handled["panel:" + h.kind] += 1
            elif isinstance(h, RequestHappening):
                self.requests.on_request(h)
            self.refresh()
        except Exception as exc:  # one bad request or device event never stops the table
            self._contain(exc, h)
        finally:
            held.release(self.before_reply)

    def _contain(self, exc: Exception, h: Happening | None) -> None:
        """An exception from handling ``h``: logged with its traceback, journaled (event
        702 naming it), the round tilted (INTERNAL), a waiting client answered, and the
        table goes on taking happenings."""
        why = f"{type(exc).__name__}: {exc}"[:300]
        what = "a timer" if h is None else type(h).__name__
        log.exception("internal error while handling %s", what)
        self.handled["internal-error"] += 1
        if isinstance(h, RequestHappening) and h.reply is not None:
            h.reply.put((False, f"internal error: {why}"))
        try:
            self.event(EventCode.INTERNAL_ERROR, self.game.round_no, error=why, during=what)
            self.take(Fault("INTERNAL", why), "table")
            self.refresh()
        except Exception:
            log.exception("the tilt for an internal error failed too")

    def tick(self) -> None:
        now = self.clock()
        steps = placed(self.doubles.tick(now))
        if steps:
            self.carry_out(steps)
            self.refresh()
        self.shoe_control.tick(now, want_status=self._want_status())

    # -- inputs: journal first, then the engine ----------------------------------------------

    def carry_out(self, steps: list[Step]) -> None:
        """The steps a device report became, in order (firmware.table.devices)."""
        for step in steps:
            match step:
                case Take():
                    if self.take(step.input, step.source):
                        self.carry_out(list(step.then))
                        paused = self.game.paused_on
                        if paused is not None and paused in step.if_paused:
                            self.carry_out([step.if_paused[paused]])
                case Log():
                    self.event(step.code, self.game.round_no, **step.body)
                case LoadShoe():
                    self.shoe_control.new_shoe(step.decks)

    def take(self, inp: Input, source: str) -> bool:
        """Append ``inp`` durably, then apply it; False if refused (state unchanged)."""
        if self.failure:
            log.warning("input %s ignored: %s", inp.TYPE, self.failure)
            return False
        t = self.game
        closed = self.floor_gate.refuses(inp, t)
        if closed:
            log.debug("refused %s from %s: %s", inp.TYPE, source, closed)
            self.handled["input:refused"] += 1
            return False
        try:
            rec = self.journal.append_one(
                "input", {"input": inp.to_json(), "source": source}, round_no=t.round_no
            )
        except JournalError as exc:
            self.fail(f"journal failure: {exc}", EventCode.JOURNAL_FAILURE)
            return False
        if self._round_first_seq is None:
            self._round_first_seq = rec.seq
        try:
            t.apply(inp)
        except Rejected as exc:
            log.debug("refused %s from %s: %s", inp.TYPE, source, exc.reason)
            self.handled["input:refused"] += 1
            self.handled["input:refused:" + source] += 1
            return False
        self.handled["input:accepted"] += 1
        self.handled["input:accepted:" + source] += 1
        self._after_change()
        return True

    def event(self, code: EventCode, round_no: int | None = None, /, **body: Any) -> None:
        """Write one event-log record (best effort: a failing journal is already a tilt)."""
        try:
            self.journal.append_one("event", body, code=int(code), round_no=round_no)
        except JournalError as exc:
            self.fail(f"journal failure: {exc}", None)

    def fail(self, why: str, code: EventCode | None) -> None:
        """The journal cannot take records: the table takes no input at all any more."""
        if self.failure is None:
            log.error("table stopped: %s", why)
            self.failure = why
            if code is not None and code != EventCode.JOURNAL_FAILURE:
                self.event(code, reason=why)
        self.shoe_control.halt()

    # -- after every change ------------------------------------------------------------

    def _after_change(self) -> None:
        t = self.game
        final = round_ended(t)
        if final and not self._was_final:
            self.record_round()
            self.repeats.reset()
        self._was_final = final
        tilted = t.phase == P.TILT
        if tilted and not self._was_tilted and t.tilt is not None:
            pub = t.tilt.public()
            self.event(EventCode.TILT, t.round_no, cause=pub["cause"], code=pub["code"])
            self.carry_out(self.repeats.steps_for(pub["code"], pub["cause"]))
        elif self._was_tilted and not tilted:
            self.event(EventCode.TILT_CLEARED, t.round_no, phase=t.phase)
        self._was_tilted = tilted
        self.floor_gate.settle(t, self.event)
        exp = t.expecting()
        if exp.kind == "draw":
            self.draw(exp.draw)

    def refresh(self) -> None:
        """Derive the commands and the snapshot from the engine's state."""
        t = self.game
        view = t.public_view()
        exp = view["expecting"]
        self.shoe_control.sync(card_due=exp["kind"] == "card", tilted=t.phase == P.TILT,
                               failed=bool(self.failure), now=self.clock())
        if self.panel is not None:
            refusal = self.floor_gate.lamp_refusal(t.wager_refusal)
            lamps = {} if self.failure else translate.lamps_for(
                view, refusal, optional_wager(t))
            lamps = self.doubles.lamps() or lamps
            if lamps != self._lamps:
                self.panel.set_lamps(lamps)
                self._lamps = {k: set(v) for k, v in lamps.items()}
        view["controller"] = ControllerView(
            pending_double=self.doubles.public(), recall=self.reports.recall_held,
            failure=self.failure or self.rng_failure, closed=self.floor_gate.closed,
            held=self.floor_gate.held,
            failure_kind="journal" if self.failure else "rng" if self.rng_failure else None,
            deal_resumes=t.phase == P.TILT and t.resume_refusal() is None,
            closed_seats=sorted(self.floor_gate.closed_seats),
            attendant_page=self.reports.attendant_page if self.reports.recall_held else 0)
        self.publish(view)
        self.journal.sync_head()  # after the screen: journal_head, "deferred head"

    # -- the RNG -------------------------------------------------------------------------

    def draw(self, domain: Mapping[str, tuple[int, ...]]) -> None:
        t = self.game
        if self.forced_draws and t.bench:
            values = self.forced_draws.pop(0)
            why = forced_refusal(values, domain)
            if why is None:
                self.take(Draw(values, forced=True), "bench")
                return
            log.warning("forced draw %s refused: %s; the RNG draws", values, why)
        if self.rng is None:
            self._rng_failed(self.rng_failure or "no RNG is available")
            return
        try:
            values, record = draw_values(self.rng, self.rules, t.round_no, domain)
        except Exception as exc:  # rng.RngUnavailable and any failure of the generator
            self._rng_failed(str(getattr(exc, "cause", exc)))
            return
        self.take(Draw(values, forced=False, record=record), "rng")

    def _rng_failed(self, why: str) -> None:
        """The round waits for a draw the RNG cannot give: tilt (the supervisor voids)."""
        self.rng_failure = f"RNG failure: {why}"
        self.event(EventCode.RNG_FAILURE, self.game.round_no, reason=why)
        self.take(Fault("RNG", why), "table")

    # -- rounds: record and meters --------------------------------------------------------

    def record_round(self) -> None:
        """The round just ended: its record and meters in one transaction (with a
        checkpoint every ``checkpoint_rounds``-th record), then its void event."""
        t = self.game
        self.finals += 1
        record, deltas = round_record(t, self.finals, self._round_first_seq)
        every = self.checkpoint_rounds
        due = bool(every) and self.finals % every == 0
        try:
            self.journal.append([Entry("round", record, t.round_no)], deltas, checkpoint=(
                (lambda w: checkpoint_part(t, self.epoch_seq, self.finals)) if due else None))
        except JournalError as exc:
            self.fail(f"journal failure: {exc}", None)
            return
        if record["state"] == "voided":
            self.event(EventCode.ROUND_VOID, t.round_no,
                       seats=sorted(int(seat) for seat in record["stakes"]))
        self._round_first_seq = None
        self.on_round(record)
