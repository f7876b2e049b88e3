"""The table: a pure state machine fed one input at a time.

:class:`Table` holds credits per seat, the shoe's composition and the round. It never does
I/O, reads a clock or draws a random number: the same inputs always give the same state,
so a journal of inputs replays a table exactly (power-fail recovery, recall, bench, audit).

``apply(input)`` first checks that the input fits the state and raises :class:`Rejected`
with the reason if not, having changed nothing; only then does it mutate. Hardware faults
are not rejected: they are inputs that tilt the table (nothing is settled while tilted;
``DEAL`` resumes once the fault has cleared, ``VOID`` returns every wager of the round).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware.engine import phases as P
from firmware.engine.cards import CODE
from firmware.engine.expect import Expecting, expecting_of
from firmware.engine.hand import Hand, Seat
from firmware.engine.inputs import (
    ACTIONS,
    CONSOLE_PRESSES,
    FAULT_CODES,
    Card,
    CloseBetting,
    Console,
    CreditsIn,
    CreditsOut,
    Cut,
    Decision,
    Draw,
    Empty,
    Fault,
    FaultCleared,
    Hello,
    Input,
    NewShoe,
    SideWager,
    Wager,
)
from firmware.engine.mechanism import DrawRequest
from firmware.engine.play import RoundPlay
from firmware.engine.rules import Rules
from firmware.engine.shoe import Shoe
from firmware.errors import UserError

#: faults that stay active until the device reports ready again
PERSISTENT_FAULTS = frozenset(("JAM", "LID", "SENSOR", "LINK", "STUCK", "PANEL", "RNG", "DISPLAY"))
#: how a tilt's cause reads for the table's own faults (shoe faults: "shoe fault CODE")
TABLE_FAULT_WORDS = {
    "STUCK": "a button is stuck", "PANEL": "the button panels failed",
    "POWER": "power failed during the round", "RNG": "the RNG failed",
    "DISPLAY": "the display failed",
}


class Rejected(UserError):
    """An input that does not fit the table's state; the state is unchanged."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class Tilt:
    """Why the table is paused, and whether the fault is still active."""

    __slots__ = ("active", "causes", "code", "resume_need", "resume_phase")

    def __init__(self, code: str, cause: str, active: bool, phase: str, need: str) -> None:
        self.code = code
        self.causes = [cause]
        self.active = active
        self.resume_phase = phase
        self.resume_need = need

    def public(self) -> dict[str, str]:
        if self.active:
            resolve = f"clear the fault ({self.code}), then press DEAL to resume, or VOID"
        else:
            resolve = "press DEAL to resume the round, or VOID (supervisor) to void it"
        return {"cause": self.causes[0], "code": self.code, "resolve": resolve}

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "causes": list(self.causes), "active": self.active,
                "resume_phase": self.resume_phase, "resume_need": self.resume_need}


class Table(RoundPlay):
    """One blackjack table: seats, shoe and round, driven by :meth:`apply`.

    ``bench``: forced RNG draws are accepted (a bench power). ``shoe_in_play``: start with
    a shoe already loaded, shuffled, cut and burned (the bench's starting point).
    """

    __slots__ = ()

    def __init__(
        self, rules: Rules, seats: int | None = None, bench: bool = False,
        shoe_in_play: bool = False,
    ) -> None:
        n = rules.max_seats if seats is None else seats
        if not 1 <= n <= rules.max_seats:
            raise UserError(f"{rules.title} seats at most {rules.max_seats} players, not {n}")
        self.rules = rules
        self.hooks = rules.hooks
        self.bench = bench
        self.nseats = n
        self.seats = [Seat(i + 1) for i in range(n)]
        self.shoe = Shoe(rules.decks, rules.deck_kind)
        self.round_no = 0
        self.house = 0          # the house result: stakes collected minus payouts
        self.funded = 0         # credits in minus credits out
        self.tilt: Tilt | None = None
        self.burn_left = 0
        self._reset_round()
        self.phase = P.NEW_SHOE
        self.need = P.SHOE
        if shoe_in_play:
            self.shoe.load(rules.decks)
            self.phase = P.BETTING
            self.need = P.WAGERS
        self._dispatch: dict[type, Callable[[Any], None]] = {
            Card: self._on_card, Decision: self._on_decision, Wager: self._on_wager,
            SideWager: self._on_side_wager, CloseBetting: self._on_close,
            Console: self._on_console, CreditsIn: self._on_credits_in,
            CreditsOut: self._on_credits_out, Draw: self._on_draw, NewShoe: self._on_new_shoe,
            Cut: self._on_cut, Empty: self._on_empty, Fault: self._on_fault,
            FaultCleared: self._on_fault_cleared, Hello: self._on_hello,
        }

    def _reset_round(self) -> None:
        self.players: list[Seat] = []
        self.dealer = Hand()
        self.hole_revealed = False
        self.dealer_bj = False
        self.deal_order: list[Hand] = []
        self.deal_pos = 0
        self.turn_seat = 0
        self.turn_hand = 0
        self.card_to: Hand | None = None
        self.doubling = False
        self.post_double = False
        self.draw_request: DrawRequest | None = None
        self.draws: dict[str, int] = {}
        self.extra: dict[str, Any] = {}
        self.audit: list[tuple[Any, ...]] = []

    # -- the one entry point ---------------------------------------------------------
    def apply(self, inp: Input) -> None:
        """Apply one input, or raise :class:`Rejected` leaving the state unchanged."""
        handler = self._dispatch.get(type(inp))
        if handler is None:
            raise Rejected(f"not an input: {inp!r}")
        handler(inp)

    def expecting(self) -> Expecting:
        """What the table waits for now (see :mod:`firmware.engine.expect`)."""
        return expecting_of(self)

    # -- helpers ---------------------------------------------------------------------
    def _seat(self, number: Any) -> Seat:
        if isinstance(number, bool) or not isinstance(number, int) or not (
            1 <= number <= self.nseats
        ):
            raise Rejected(f"no seat {number!r} at this table (seats 1..{self.nseats})")
        return self.seats[number - 1]

    @staticmethod
    def _amount(v: Any, what: str) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise Rejected(f"{what} must be a whole number of cents >= 0, got {v!r}")
        return v

    def _no_tilt(self, what: str) -> None:
        if self.phase == P.TILT:
            cause = self.tilt.causes[0] if self.tilt else ""
            raise Rejected(f"{what}: the table is tilted ({cause})")

    def seat_stake(self, seat: Seat) -> int:
        """Cents of ``seat`` at stake in the round not yet settled or voided."""
        return 0 if seat.net is not None else seat.staked

    def at_stake(self) -> int:
        return sum(s.staked for s in self.seats if s.net is None)

    # -- credits ---------------------------------------------------------------------
    def _on_credits_in(self, inp: CreditsIn) -> None:
        seat = self._seat(inp.seat)
        amount = self._amount(inp.amount, "credits in")
        if amount == 0:
            raise Rejected("credits in must be more than 0 cents")
        seat.credits += amount
        self.funded += amount

    def _on_credits_out(self, inp: CreditsOut) -> None:
        seat = self._seat(inp.seat)
        amount = self._amount(inp.amount, "credits out")
        self._no_tilt("credits out")
        if amount == 0 or amount > seat.credits:
            raise Rejected(f"seat {seat.number} has {seat.credits} cents, cannot pay out {amount}")
        seat.credits -= amount
        self.funded -= amount

    # -- betting ---------------------------------------------------------------------
    def _betting_seat(self, number: Any, what: str) -> Seat:
        seat = self._seat(number)
        if self.phase not in P.BETWEEN:
            raise Rejected(f"{what}: betting is closed (phase {self.phase})")
        if self.need == P.SHOE:
            raise Rejected(f"{what}: the table waits for a new shoe")
        return seat

    def _open_betting(self) -> None:
        """After a settled or voided round, the first wager starts a fresh one."""
        if self.phase != P.BETTING:
            # only the last round's players hold round state (all seats after a void
            # during betting, when no round was dealt)
            for s in self.players or self.seats:
                s.clear_round()
            self._reset_round()
            self.phase = P.BETTING
            self.need = P.WAGERS

    def wager_refusal(self, seat: int, amount: int) -> str | None:
        """Why ``Wager(seat, amount)`` would be refused now, or None: a pure query.

        Panels light a BET lamp only for a press the table takes; the paired wagers of a
        variation (an activator, an equal wager) and the seat's credits are judged here
        exactly as when the wager is placed, so callers never guess them."""
        try:
            self._wager_plan(Wager(seat, amount))
        except Rejected as exc:
            return exc.reason
        return None

    def _wager_plan(self, inp: Wager) -> tuple[Seat, int, int, int, dict[str, int]]:
        """``(seat, amount, old stake, new total stake, side wagers)`` or :class:`Rejected`;
        changes nothing."""
        seat = self._betting_seat(inp.seat, "wager")
        amount = self._amount(inp.amount, "a wager")
        rules = self.rules
        fresh = self.phase != P.BETTING
        old = 0 if fresh else seat.staked
        options = {} if fresh else {k: v for k, v in seat.side.items() if self._optional(k)}
        paired: dict[str, int] = {}
        if amount:
            if amount % rules.wager_unit:
                raise Rejected(f"wager {amount} is not a multiple of the unit {rules.wager_unit}")
            if not rules.min_wager <= amount <= rules.max_wager:
                raise Rejected(
                    f"wager {amount} is outside the limits {rules.min_wager}..{rules.max_wager}"
                )
            for refusal in self.hooks.wager_refusal:
                why = refusal(self, seat, amount)
                if why:
                    raise Rejected(why)
            for hook in self.hooks.paired_wagers:
                paired.update(hook(self, seat, amount))
        else:
            options = {}
        total = amount + sum(paired.values()) + sum(options.values())
        if total > seat.credits + old:
            raise Rejected(
                f"seat {seat.number} has {seat.credits + old} cents, the wagers need {total}"
            )
        return seat, amount, old, total, {**paired, **options}

    def _on_wager(self, inp: Wager) -> None:
        seat, amount, old, total, side = self._wager_plan(inp)
        self._open_betting()
        seat.credits += old - total
        seat.wager = amount
        seat.side = side
        seat.staked = total

    def _optional(self, name: str) -> bool:
        return any(name in m.optional_wagers for m in self.rules.mechanisms)

    def side_wager_refusal(self, seat: int, name: str, amount: int) -> str | None:
        """Why ``SideWager(seat, name, amount)`` would be refused now, or None: a pure
        query (the panel lights the button of an optional wager only when it would be
        taken)."""
        try:
            self._side_wager_plan(SideWager(seat, name, amount))
        except Rejected as exc:
            return exc.reason
        return None

    def _side_wager_plan(self, inp: SideWager) -> tuple[Seat, int, int]:
        """``(seat, amount, credits it takes)`` or :class:`Rejected`; changes nothing."""
        seat = self._betting_seat(inp.seat, "side wager")
        amount = self._amount(inp.amount, "a side wager")
        if not self._optional(inp.name):
            offered = [n for m in self.rules.mechanisms for n in m.optional_wagers]
            raise Rejected(
                f"{self.rules.title} offers no optional wager {inp.name!r} "
                f"(offered: {', '.join(offered) or 'none'})"
            )
        if self.phase != P.BETTING or not seat.wager:
            raise Rejected(f"seat {seat.number}: place the Blackjack wager first")
        if amount % self.rules.wager_unit:
            raise Rejected(f"wager {amount} is not a multiple of the unit {self.rules.wager_unit}")
        for refusal in self.hooks.side_wager_refusal:
            why = refusal(self, seat, inp.name, amount)
            if why:
                raise Rejected(why)
        delta = amount - seat.side.get(inp.name, 0)
        if delta > seat.credits:
            raise Rejected(f"seat {seat.number} has {seat.credits} cents, needs {delta} more")
        return seat, amount, delta

    def _on_side_wager(self, inp: SideWager) -> None:
        seat, amount, delta = self._side_wager_plan(inp)
        seat.credits -= delta
        seat.staked += delta
        if amount:
            seat.side[inp.name] = amount
        else:
            seat.side.pop(inp.name, None)

    def _on_close(self, inp: CloseBetting | None) -> None:
        if self.phase != P.BETTING:
            raise Rejected(f"no betting to close (phase {self.phase})")
        if self.need == P.SHOE:
            raise Rejected("the table waits for a new shoe")
        players = [s for s in self.seats if s.wager]
        if not players:
            raise Rejected("no wagers: place a Blackjack wager before closing betting")
        self.round_no += 1
        self.players = players
        for s in players:
            s.hands = [Hand(s.wager)]
        for hook in self.hooks.new_round:
            hook(self)
        for ask in self.hooks.draw_request:
            req = ask(self)
            if req is not None:
                self.draw_request = req
                self.phase = P.RNG
                self.need = P.DRAW
                return
        self._start_dealing()

    def _on_draw(self, inp: Draw) -> None:
        req = self.draw_request
        if self.need != P.DRAW or req is None:
            raise Rejected("no RNG draw is due")
        if inp.forced and not self.bench:
            raise Rejected("forced draws are a bench power; this table runs in production mode")
        if set(inp.values) != set(req.values):
            raise Rejected(f"the draw must give {', '.join(sorted(req.values))}")
        for name, domain in req.values.items():
            if inp.values[name] not in domain:
                raise Rejected(f"draw {name}={inp.values[name]!r} is not one of {list(domain)}")
        self.draws = dict(inp.values)
        self.audit.append(("draw", dict(inp.values), inp.forced, inp.record))
        for hook in self.hooks.apply_draw:
            hook(self, dict(inp.values))
        self.draw_request = None
        self._start_dealing()

    # -- cards -----------------------------------------------------------------------
    def _on_card(self, inp: Card) -> None:
        card = inp.card
        if self.need != P.CARD:
            self._tilt("UNEXPECTED", f"card {CODE[card]} left the shoe when none was due")
            if not self.shoe.refusal(card):
                self.shoe.take(card)
            return
        shoe = self.shoe
        if not shoe.counts[card]:
            self._tilt("BADCARD", str(shoe.refusal(card)))
            return
        shoe.counts[card] -= 1
        shoe.cards_dealt += 1
        phase = self.phase
        if phase == P.DEALING:
            self._deal_card(card)
        elif phase == P.DECISIONS:
            self._player_card(card)
        elif phase == P.DEALER:
            self._dealer_card(card)
        else:  # burning after a new shoe (baseline §1.3)
            self.audit.append(("burn", CODE[card]))
            self.burn_left -= 1
            if not self.burn_left:
                self.phase = P.BETTING
                self.need = P.WAGERS

    # -- decisions -------------------------------------------------------------------
    def _on_decision(self, inp: Decision) -> None:
        if self.need != P.DECISION:
            raise Rejected(f"no decision is due ({expecting_of(self).why})")
        action = inp.action
        if action not in ACTIONS:
            raise Rejected(f"unknown action {action!r} (allowed: {', '.join(ACTIONS)})")
        if self.phase == P.INSURANCE:
            self._insurance(inp)
            return
        seat = self.players[self.turn_seat]
        if inp.seat != seat.number or inp.hand != self.turn_hand:
            raise Rejected(
                f"{action}: the table waits for seat {seat.number} hand {self.turn_hand}, "
                f"not seat {inp.seat} hand {inp.hand}"
            )
        h = seat.hands[self.turn_hand]
        legal = self.legal_now(seat, h)
        if action not in legal:
            raise Rejected(f"{action} is not legal now (legal: {', '.join(legal)})")
        times = inp.times
        if action == "double":
            if times not in self.rules.double_times:
                raise Rejected(
                    f"double {times!r}x is not allowed (allowed: {list(self.rules.double_times)})"
                )
            if self._stake_for(seat, h, "double", times) is None:
                raise Rejected(f"seat {seat.number} cannot cover a {times}x double")
        self._decide(seat, h, action, times)

    def _insurance(self, inp: Decision) -> None:
        seat = self.players[self.turn_seat]
        if inp.seat != seat.number or inp.hand != 0:
            raise Rejected(
                f"insurance is asked of seat {seat.number} hand 0, not seat {inp.seat} "
                f"hand {inp.hand}"
            )
        if inp.action == "insurance":
            half = self.insurance_offer(seat)
            amount = half if inp.amount is None else inp.amount
            if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= half:
                raise Rejected(f"insurance must be 1..{half} cents (half the wager): {amount!r}")
            if amount > seat.credits:
                raise Rejected(f"seat {seat.number} has {seat.credits} cents, not {amount}")
            seat.credits -= amount
            seat.staked += amount
            seat.insurance = amount
        elif inp.action != "no-insurance":
            raise Rejected(f"{inp.action} is not legal now (legal: insurance, no-insurance)")
        seat.insurance_decided = True
        self._next_insurance()

    # -- console ---------------------------------------------------------------------
    def _on_console(self, inp: Console) -> None:
        press = inp.press
        if press not in CONSOLE_PRESSES:
            allowed = ", ".join(CONSOLE_PRESSES)
            raise Rejected(f"unknown console press {press!r} (allowed: {allowed})")
        if press == "DEAL":
            if self.phase == P.TILT:
                self._resume()
            else:
                self._on_close(None)
        elif press == "VOID":
            self._void()
        else:
            self._on_new_shoe(NewShoe())

    def _resume(self) -> None:
        t = self.tilt
        assert t is not None
        if t.active:
            raise Rejected(f"the fault is still active ({t.code}); clear it first, or VOID")
        self.phase = t.resume_phase
        self.need = t.resume_need
        self.tilt = None

    def _void(self) -> None:
        phase = self.tilt.resume_phase if self.tilt else self.phase
        staked = any(s.staked for s in self.seats)
        if phase not in P.IN_ROUND and not (phase == P.BETTING and staked):
            raise Rejected("VOID: no round in play to void")
        for s in self.seats:
            if s.net is None and s.staked:
                s.credits += s.staked
                s.returned = s.staked
                s.net = 0
        self.audit.append(("void", self.tilt.causes[0] if self.tilt else "supervisor"))
        self.tilt = None
        self.card_to = None
        self.phase = P.VOIDED
        self.need = P.SHOE if self.shoe.cut_card_seen or not self.shoe.in_play else P.WAGERS

    # -- shoe events -----------------------------------------------------------------
    def _on_new_shoe(self, inp: NewShoe) -> None:
        decks = self.rules.decks if inp.decks is None else inp.decks
        if decks != self.rules.decks:
            raise Rejected(f"the Rules Submission deals {self.rules.decks} decks, not {decks!r}")
        if self.phase not in P.BETWEEN and self.phase != P.NEW_SHOE:
            raise Rejected(f"a new shoe is loaded only between rounds (phase {self.phase})")
        if self.phase in (P.SETTLED, P.VOIDED):
            for s in self.seats:
                s.clear_round()
            self._reset_round()
        self.shoe.load(decks)
        self.burn_left = self.rules.burn_cards
        if self.burn_left:
            self.phase = P.NEW_SHOE
            self.need = P.CARD
        else:
            self.phase = P.BETTING
            self.need = P.WAGERS

    def _on_cut(self, inp: Cut) -> None:
        if not self.shoe.in_play:
            raise Rejected("cut card reported but no shoe is loaded")
        self.shoe.cut_card_seen = True
        self.audit.append(("cut", self.shoe.cards_dealt))
        if self.phase in (P.SETTLED, P.VOIDED):
            self.need = P.SHOE

    def _on_empty(self, inp: Empty) -> None:
        self.shoe.cut_card_seen = True
        if self.phase in P.IN_ROUND or self.phase == P.TILT:
            self._tilt("EMPTY", "the shoe is empty")
        elif self.phase in P.BETWEEN:
            self.need = P.SHOE  # nothing left to deal: wagers placed wait for the new shoe

    def _on_fault(self, inp: Fault) -> None:
        if inp.code not in FAULT_CODES:
            raise Rejected(f"unknown fault code {inp.code!r} (allowed: {', '.join(FAULT_CODES)})")
        detail = f": {inp.detail}" if inp.detail else ""
        words = TABLE_FAULT_WORDS.get(inp.code, f"shoe fault {inp.code}")
        self._tilt(inp.code, f"{words}{detail}", inp.code in PERSISTENT_FAULTS)

    def _on_fault_cleared(self, inp: FaultCleared) -> None:
        if self.tilt is not None:
            self.tilt.active = False

    def _on_hello(self, inp: Hello) -> None:
        if self.tilt is not None:
            self.tilt.active = False
        if self.phase in P.IN_ROUND or self.phase == P.TILT:
            self._tilt("HEL", "the shoe restarted (HEL) during the round")

    def _tilt(self, code: str, cause: str, active: bool = False) -> None:
        if self.tilt is not None:
            self.tilt.causes.append(cause)
            self.tilt.active = self.tilt.active or active
            if active:
                self.tilt.code = code
        else:
            self.tilt = Tilt(code, cause, active, self.phase, self.need)
            self.phase = P.TILT
            self.need = P.CONSOLE
        self.audit.append(("tilt", code, cause))

    # -- views -----------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        from firmware.engine.views import public_view

        return public_view(self)

    def private_view(self) -> dict[str, Any]:
        from firmware.engine.views import private_view

        return private_view(self)
