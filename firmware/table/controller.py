"""The table controller: the one path every happening takes.

A happening (a shoe event, a button, a console press, a timer, an attendant or bench
command) is turned into engine inputs; each input is appended to the journal — durably —
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
from dataclasses import dataclass, field
from typing import Any, Protocol

from drivers.shoe.events import ShoeEvent
from firmware.engine import phases as P
from firmware.engine.inputs import Decision, Draw, Fault, FaultCleared, Input
from firmware.engine.table import Rejected, Table
from firmware.table import translate
from firmware.table.accounting import round_accounts
from firmware.table.events import EventCode
from firmware.table.journal import Entry, Journal, JournalError
from firmware.table.meters import credit_deltas, round_deltas
from firmware.table.recovery import round_ended

log = logging.getLogger("etg.table")

#: seconds without a further DOUBLE press before a pending 1x-4x double is placed
DOUBLE_CONFIRM_S = 1.5
#: seconds between shoe status queries while a fault is active
QUERY_EVERY_S = 1.0
#: while a card is due and none comes, the gate command is sent again this often: a
#: command lost to a shoe restart (the driver drops unanswered commands at HEL) must not
#: leave the table waiting on a locked gate; ULK is idempotent (shoe ICD §5)
GATE_REASSERT_S = 2.0


class ShoePort(Protocol):
    def lock(self) -> None: ...
    def unlock(self) -> None: ...
    def new(self, decks: int) -> None: ...
    def led(self, mode: str) -> None: ...
    def query(self) -> None: ...


class PanelPort(Protocol):
    def set_lamps(self, lit: Mapping[int, Any]) -> bool: ...


class RngPort(Protocol):
    def draw_bingo(self, round_no: int, target_weights: Any, multiplier_weights: Any) -> Any: ...
    def weighted_choice(self, weights: Mapping[int, int]) -> int: ...


# -- happenings: what arrives in the inbox ----------------------------------------------


@dataclass(frozen=True)
class ShoeHappening:
    event: ShoeEvent


@dataclass(frozen=True)
class PanelHappening:
    kind: str  # press | release | stuck | fault
    button: str
    seat: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class CommandHappening:
    """An attendant or bench request; ``reply`` receives (ok, message)."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    reply: queue.Queue[tuple[bool, str]] | None = None


@dataclass(frozen=True)
class StopHappening:
    reason: str = "stop"


Happening = ShoeHappening | PanelHappening | CommandHappening | StopHappening


@dataclass
class PendingDouble:
    seat: int
    hand: int
    times: int
    since: float
    #: the double sizes the engine would take for this hand (the seat can cover them)
    sizes: tuple[int, ...] = (1, 2, 3, 4)


class Controller:
    """Owns the engine; see the module docstring. Not thread-safe: one thread calls it."""

    def __init__(
        self,
        table: Table,
        journal: Journal,
        *,
        shoe: ShoePort | None = None,
        panel: PanelPort | None = None,
        rng: RngPort | None = None,
        publish: Callable[[dict[str, Any]], None] | None = None,
        on_round: Callable[[dict[str, Any]], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        finals_recorded: int = 0,
    ) -> None:
        self.table = table
        self.rules = table.rules
        self.journal = journal
        self.shoe = shoe
        self.panel = panel
        self.rng = rng
        self.publish = publish or (lambda view: None)
        self.on_round = on_round or (lambda rec: None)
        self.clock = clock
        self.inbox: queue.Queue[Happening] = queue.Queue()
        self.forced_draws: list[dict[str, int]] = []
        self.pending_double: PendingDouble | None = None
        self.recall_held = False
        self.failure: str | None = None  # journal failure: the table takes no input at all
        self.rng_failure: str | None = None  # shown; a round needing a draw tilts (RNG)
        self.stuck: set[tuple[int | None, str]] = set()
        self.finals = finals_recorded  # rounds recorded (settled or voided) in the journal
        self._gate: str | None = None
        self._gate_at = 0.0  # when the gate was last commanded or a card last came
        self._led: str | None = None
        self._lamps: dict[int, set[str]] | None = None
        self._last_query = 0.0
        self._was_final = round_ended(table)
        self._was_tilted = table.phase == P.TILT
        self._round_first_seq: int | None = None
        self.stopped = False
        #: happenings handled and inputs taken, by kind ("shoe:card", "panel:press",
        #: "input:accepted", "input:refused", and per source "input:accepted:console"):
        #: the bench waits on these, never on a clock
        self.handled: Counter[str] = Counter()

    # -- the loop -------------------------------------------------------------------------

    def put(self, h: Happening) -> None:
        """Thread-safe: drivers and commands hand happenings over here."""
        self.inbox.put(h)

    def run(self, *, until: Callable[[], bool] | None = None, tick_s: float = 0.05) -> None:
        """Take happenings until a stop (or ``until()``), ticking timers in between."""
        self.refresh()
        while not self.stopped:
            try:
                h = self.inbox.get(timeout=tick_s)
            except queue.Empty:
                h = None
            if h is not None:
                self.handle(h)
            self.tick()
            if until is not None and until():
                break

    def handle(self, h: Happening) -> None:
        if isinstance(h, StopHappening):
            self.stopped = True
            return
        if isinstance(h, ShoeHappening):
            self._on_shoe(h.event)
            self.handled["shoe:" + h.event.kind] += 1
        elif isinstance(h, PanelHappening):
            self._on_panel(h)
            self.handled["panel:" + h.kind] += 1
        elif isinstance(h, CommandHappening):
            self._on_command(h)
        self.refresh()

    def tick(self) -> None:
        now = self.clock()
        pd = self.pending_double
        if pd is not None and now - pd.since >= DOUBLE_CONFIRM_S:
            self._place_double()
        t = self.table
        if (
            self.shoe is not None and t.tilt is not None and t.tilt.active
            and now - self._last_query >= QUERY_EVERY_S
        ):
            self._last_query = now
            self.shoe.query()
        if (
            self.shoe is not None and self._gate == "open"
            and now - self._gate_at >= GATE_REASSERT_S
        ):
            self._gate_at = now
            self.shoe.unlock()

    # -- inputs: journal first, then the engine ----------------------------------------------

    def feed(self, inp: Input, source: str) -> bool:
        """Append ``inp`` durably, then apply it; False if refused (state unchanged)."""
        if self.failure:
            log.warning("input %s ignored: %s", inp.TYPE, self.failure)
            return False
        t = self.table
        try:
            rec = self.journal.append_one(
                "input", {"input": inp.to_json(), "source": source}, round_no=t.round_no
            )
        except JournalError as exc:
            self._fail(f"journal failure: {exc}", EventCode.JOURNAL_FAILURE)
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
            self._fail(f"journal failure: {exc}", None)

    def _fail(self, why: str, code: EventCode | None) -> None:
        if self.failure is None:
            log.error("table stopped: %s", why)
            self.failure = why
            if code is not None and code != EventCode.JOURNAL_FAILURE:
                self.event(code, reason=why)
        if self.shoe is not None:
            self.shoe.lock()
            self.shoe.led("RED")

    # -- after every change ------------------------------------------------------------

    def _after_change(self) -> None:
        t = self.table
        final = round_ended(t)
        if final and not self._was_final:
            self._record_round()
        self._was_final = final
        tilted = t.phase == P.TILT
        if tilted and not self._was_tilted and t.tilt is not None:
            pub = t.tilt.public()
            self.event(EventCode.TILT, t.round_no, cause=pub["cause"], code=pub["code"])
        elif self._was_tilted and not tilted:
            self.event(EventCode.TILT_CLEARED, t.round_no, phase=t.phase)
        self._was_tilted = tilted
        exp = t.expecting()
        if exp.kind == "draw":
            self._draw(exp.draw)

    def refresh(self) -> None:
        """Derive the commands and the snapshot from the engine's state."""
        t = self.table
        view = t.public_view()
        exp = view["expecting"]
        if self.shoe is not None:
            gate = "open" if exp["kind"] == "card" and not self.failure else "locked"
            if gate != self._gate:
                (self.shoe.unlock if gate == "open" else self.shoe.lock)()
                self._gate = gate
                self._gate_at = self.clock()
            led = "RED" if (t.phase == P.TILT or self.failure) else (
                "GREEN" if gate == "open" else "AMBER")
            if led != self._led:
                self.shoe.led(led)
                self._led = led
        if self.panel is not None:
            lamps = {} if self.failure else translate.lamps_for(
                view, t.wager_refusal, self._optional_wager())
            pd = self.pending_double
            if pd is not None:
                # DOUBLE raises the pending double while a bigger size is covered; STAND
                # places it
                raise_ok = any(x > pd.times for x in pd.sizes)
                lamps = {pd.seat: {"DOUBLE", "STAND"} if raise_ok else {"STAND"}}
            if lamps != self._lamps:
                self.panel.set_lamps(lamps)
                self._lamps = {k: set(v) for k, v in lamps.items()}
        view["controller"] = {
            "pending_double": None if self.pending_double is None else {
                "seat": self.pending_double.seat, "hand": self.pending_double.hand,
                "times": self.pending_double.times},
            "recall": self.recall_held,
            "failure": self.failure or self.rng_failure,
        }
        self.publish(view)

    def resync_shoe(self) -> None:
        """After the shoe (re)started its gate is locked: send the state again."""
        self._gate = None
        self._led = None

    # -- the RNG -------------------------------------------------------------------------

    def _draw(self, domain: Mapping[str, tuple[int, ...]]) -> None:
        t = self.table
        if self.forced_draws and t.bench:
            values = self.forced_draws.pop(0)
            self.feed(Draw(values, forced=True), "bench")
            return
        if self.rng is None:
            self._rng_failed(self.rng_failure or "no RNG is available")
            return
        try:
            values, record = draw_values(self.rng, self.rules, t.round_no, domain)
        except Exception as exc:  # rng.RngUnavailable and any failure of the generator
            self._rng_failed(str(getattr(exc, "cause", exc)))
            return
        self.feed(Draw(values, forced=False, record=record), "rng")

    def _rng_failed(self, why: str) -> None:
        """The round waits for a draw the RNG cannot give: tilt (the supervisor voids)."""
        self.rng_failure = f"RNG failure: {why}"
        self.event(EventCode.RNG_FAILURE, self.table.round_no, reason=why)
        self.feed(Fault("RNG", why), "table")

    # -- rounds: record and meters --------------------------------------------------------

    def _record_round(self) -> None:
        t = self.table
        voided = t.phase == P.VOIDED
        priv = t.private_view()
        stakes, returns = round_accounts(t)
        deltas = round_deltas(stakes, returns, voided=voided)
        self.finals += 1
        record = {
            "final": self.finals,
            "round": t.round_no,
            "state": "voided" if voided else "settled",
            "variant": t.rules.variant,
            "dealer": priv["dealer"],
            "seats": [s for s in priv["seats"] if s["seat"] in stakes],
            "bingo": priv.get("bingo"),
            "stakes": {str(k): v for k, v in stakes.items()},
            "returns": {str(k): v for k, v in returns.items()},
            "audit": priv["private"]["audit"],
            "first_seq": self._round_first_seq,
        }
        try:
            self.journal.append([Entry("round", record, t.round_no)], deltas)
        except JournalError as exc:
            self._fail(f"journal failure: {exc}", None)
            return
        if voided:
            self.event(EventCode.ROUND_VOID, t.round_no, seats=sorted(stakes))
        self._round_first_seq = None
        self.on_round(record)

    # -- shoe events -----------------------------------------------------------------------

    def _on_shoe(self, ev: ShoeEvent) -> None:
        t = self.table
        k = ev.kind
        if k == "card":
            self._gate_at = self.clock()
        if k == "fault":
            code = EventCode.SHOE_LID_OPEN if ev.code == "LID" else EventCode.SHOE_FAULT
            self.event(code, t.round_no, code=ev.code, detail=ev.detail or "", raw=ev.raw or "")
        elif k == "link-down":
            self.event(EventCode.SHOE_LINK_DOWN, t.round_no, detail=ev.detail or "")
        elif k == "link-up":
            self.event(EventCode.SHOE_LINK_UP, t.round_no)
        elif k == "hello":
            self.resync_shoe()
            if t.phase in P.IN_ROUND or t.phase == P.TILT:
                self.event(EventCode.SHOE_REBOOT, t.round_no, serial=ev.serial or "",
                           raw=ev.raw or "")
        elif k == "cut":
            self.event(EventCode.SHOE_CUT_CARD, t.round_no)
        elif k == "empty":
            self.event(EventCode.SHOE_EMPTY, t.round_no)
        elif k == "card" and t.expecting().kind != "card":
            self.event(EventCode.SHOE_UNEXPECTED_CARD, t.round_no, raw=ev.raw or "")
        elif k == "nak" and ev.command == "ULK":
            # The gate stayed shut (a shoe still in FAULT answers NAK,STATE): a card that is
            # due will never come, so pause the round until the shoe reports itself clear;
            # resuming sends ULK again.
            self._gate = None
            if t.expecting().kind == "card":
                detail = f"the shoe refused to open its gate (NAK {ev.code or ''})".strip()
                self.event(EventCode.SHOE_FAULT, t.round_no, code="GATE", detail=detail,
                           raw=ev.raw or "")
                self.feed(Fault("SENSOR", detail), "shoe")
        for inp in translate.shoe_inputs(ev):
            self.feed(inp, "shoe")

    # -- buttons ---------------------------------------------------------------------------

    def _on_panel(self, h: PanelHappening) -> None:
        t = self.table
        if h.kind == "stuck":
            where = f"seat {h.seat} {h.button}" if h.seat else f"console {h.button}"
            self.stuck.add((h.seat, h.button))
            self.event(EventCode.STUCK_KEY, t.round_no, where=where)
            self.feed(Fault("STUCK", f"{where} held down"), "panel")
            return
        if h.kind == "release" and (h.seat, h.button) in self.stuck:
            self.stuck.discard((h.seat, h.button))
            if not self.stuck:
                self.feed(FaultCleared("STUCK"), "panel")
            return
        if h.kind == "fault":
            self.feed(Fault("PANEL", h.detail or "panel scan stopped"), "panel")
            return
        if h.seat is None:
            self._on_console(h)
            return
        if h.kind != "press":
            return
        if self.pending_double is not None:
            self._on_pending_double_press(h)
            return
        view = t.public_view()
        what = translate.press_input(
            h.button, h.seat, view, double_times=tuple(self.rules.double_times),
            wager_refusal=t.wager_refusal, optional=self._optional_wager(),
        )
        if what is None:
            log.debug("seat %s %s: not accepted now", h.seat, h.button)
        elif what == "pending-double":
            hand = view["expecting"]["hand"] or 0
            sizes = self._double_sizes(h.seat, hand)
            if sizes:
                self.pending_double = PendingDouble(h.seat, hand, sizes[0], self.clock(), sizes)
        elif isinstance(what, Input):
            self.feed(what, "panel")

    def _optional_wager(self) -> translate.OptionalWager | None:
        """The optional wager the rules offer (Push 22), placed with INSURANCE during
        betting (docs/table.md), judged by the engine."""
        names = [n for m in self.rules.mechanisms for n in m.optional_wagers]
        return (names[0], self.table.side_wager_refusal) if names else None

    def _double_sizes(self, seat: int, hand: int) -> tuple[int, ...]:
        """The double sizes the engine would take now (a trial on a copy: the seat's
        credits, the variation's stake rules and the legal actions all decide)."""
        import copy

        sizes = []
        for times in sorted(self.rules.double_times):
            trial = copy.deepcopy(self.table)
            try:
                trial.apply(Decision(seat, hand, "double", times=times))
            except Rejected:
                continue
            sizes.append(times)
        return tuple(sizes)

    def _on_pending_double_press(self, h: PanelHappening) -> None:
        pd = self.pending_double
        assert pd is not None
        if h.seat != pd.seat:
            return
        if h.button == "DOUBLE":
            sizes = list(pd.sizes)
            bigger = [x for x in sizes if x > pd.times]
            if bigger:
                pd.times = bigger[0]
                pd.since = self.clock()
            if not bigger or pd.times == sizes[-1]:
                self._place_double()
        elif h.button == "STAND":
            self._place_double()  # STAND while a double is pending confirms it

    def _place_double(self) -> None:
        pd = self.pending_double
        self.pending_double = None
        if pd is not None:
            self.feed(Decision(pd.seat, pd.hand, "double", times=pd.times), "panel")
            self.refresh()

    def _on_console(self, h: PanelHappening) -> None:
        t = self.table
        if h.button == "RECALL":
            held = h.kind == "press"
            if held != self.recall_held:
                self.recall_held = held
                if held:
                    self.event(EventCode.KEY_RECALL, t.round_no)
            return
        if h.kind != "press":
            return
        if h.button == "VOID":
            self.event(EventCode.KEY_VOID, t.round_no)
        inp = translate.console_input(h.button, t.public_view())
        if inp is None:
            return
        accepted = self.feed(inp, "console")
        if accepted and h.button == "SHUFFLE":
            self.event(EventCode.SHOE_NEW, t.round_no, decks=self.rules.decks)
            if self.shoe is not None:
                self.shoe.new(self.rules.decks)

    # -- attendant and bench commands -------------------------------------------------------

    def _on_command(self, h: CommandHappening) -> None:
        ok, msg = self.command(h.name, h.args)
        if h.reply is not None:
            h.reply.put((ok, msg))

    def command(self, name: str, args: Mapping[str, Any]) -> tuple[bool, str]:
        t = self.table
        if name in ("credits-in", "credits-out"):
            from firmware.engine.inputs import CreditsIn, CreditsOut

            seat, cents = int(args["seat"]), int(args["cents"])
            inp = CreditsIn(seat, cents) if name == "credits-in" else CreditsOut(seat, cents)
            return self._credits(inp, seat, cents if name == "credits-in" else -cents)
        if name == "status":
            import json

            view = t.public_view()
            pd = self.pending_double
            return True, json.dumps({
                "view": view, "rounds": self.finals, "failure": self.failure,
                "handled": dict(self.handled), "forced_draws": len(self.forced_draws),
                "pending_double": None if pd is None else {
                    "seat": pd.seat, "hand": pd.hand, "times": pd.times},
            })
        if name == "fault":
            code, detail = str(args["code"]), str(args.get("detail", ""))
            if code == "DISPLAY":
                self.event(EventCode.DISPLAY_FAILURE, t.round_no, detail=detail)
            ok = self.feed(Fault(code, detail), "table")
            return ok, "tilted" if ok else "refused"
        if name == "force-draw":
            if not t.bench:
                return False, "forced draws are a bench power; production mode refuses them"
            self.forced_draws.append({str(k): int(v) for k, v in args["values"].items()})
            if t.expecting().kind == "draw":
                self._draw(t.expecting().draw)
            return True, "queued"
        return False, f"unknown command {name!r}"

    def _credits(self, inp: Input, seat: int, signed: int) -> tuple[bool, str]:
        """A credit transfer: the input, its event and its meters in ONE durable
        transaction, then the engine. A kill -9 between two transactions would leave the
        replayed credits and the meters apart, so the engine is asked first (on a copy:
        transfers are rare) and a refused transfer writes nothing."""
        import copy

        if self.failure:
            return False, self.failure
        t = self.table
        try:
            copy.deepcopy(t).apply(inp)
        except Rejected as exc:
            return False, exc.reason
        code = EventCode.CREDITS_IN if signed >= 0 else EventCode.CREDITS_OUT
        try:
            self.journal.append(
                [
                    Entry("input", {"input": inp.to_json(), "source": "attendant"}, t.round_no),
                    Entry("event", {"seat": seat, "cents": abs(signed)}, t.round_no, int(code)),
                ],
                credit_deltas(seat, signed),
            )
        except JournalError as exc:
            self._fail(f"journal failure: {exc}", None)
            return False, str(exc)
        t.apply(inp)  # the copy took it: the engine is deterministic
        return True, f"seat {seat}: {signed:+d} cents"


def draw_values(
    rng: RngPort, rules: Any, round_no: int, domain: Mapping[str, tuple[int, ...]]
) -> tuple[dict[str, int], dict[str, Any]]:
    """Ask the RNG for the values a draw request names, from the Rules Submission's weights.

    A value ``NAME`` (e.g. ``bingo_target``) is drawn from the setting ``NAME_weights``
    minus any ``bingo_`` prefix (``target_weights``); the Bingo pair goes through the RNG's
    Bingo draw so its record is the one the lab certifies.
    """
    weights: dict[str, dict[int, int]] = {}
    for name, allowed in domain.items():
        key = name.removeprefix("bingo_") + "_weights"
        w = rules.settings.get(key) if hasattr(rules, "settings") else None
        table = {int(k): int(v) for k, v in dict(w).items()} if w else {v: 1 for v in allowed}
        weights[name] = {k: v for k, v in table.items() if k in allowed}
    if set(domain) == {"bingo_target", "bingo_multiplier"}:
        d = rng.draw_bingo(round_no, weights["bingo_target"], weights["bingo_multiplier"])
        return {"bingo_target": d.target, "bingo_multiplier": d.multiplier}, d.to_json()
    values = {name: rng.weighted_choice(w) for name, w in weights.items()}
    return values, {"kind": "draw", "round": round_no, "values": values}
