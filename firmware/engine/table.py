"""The table: a pure state machine fed one input at a time.

:class:`Table` holds credits per seat, the shoe's composition and the round. It never does
I/O, reads a clock or draws a random number: the same inputs always give the same state,
so a journal of inputs replays a table exactly (power-fail recovery, recall, bench, audit).

``apply(input)`` first checks that the input fits the state and raises :class:`Rejected`
with the reason if not, having changed nothing; only then does it mutate. Hardware faults
are not rejected: they are inputs that tilt the table (nothing is settled while tilted;
``DEAL`` resumes once the fault has cleared, ``VOID`` returns every wager of the round).

``Table`` is put together from parts that each hold one job: :mod:`~firmware.engine.betting`
(credits and wagers), :mod:`~firmware.engine.tilts` (shoe events, faults, tilt, void),
:mod:`~firmware.engine.play` (the round after betting), all on the attributes declared
by :class:`~firmware.engine.state.TableState`. This module keeps the entry point, the
dispatch, closing betting, the RNG draw, cards, decisions, the console and the views.
"""

from __future__ import annotations

from typing import Any

from etgcore.errors import UserError
from firmware.engine import phases as P
from firmware.engine.betting import Betting
from firmware.engine.cards import CODE
from firmware.engine.expect import Expecting, expecting_of
from firmware.engine.hand import Hand, Seat
from firmware.engine.inputs import (
    ACTIONS,
    CONSOLE_PRESSES,
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
from firmware.engine.play import RoundPlay
from firmware.engine.rejected import Rejected
from firmware.engine.rules import Rules
from firmware.engine.shoe import Shoe
from firmware.engine.tilts import Tilting


class Table(Betting, Tilting, RoundPlay):
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
        self.tilt = None
        self.burn_left = 0
        self._reset_round()
        self.phase = P.NEW_SHOE
        self.need = P.SHOE
        if shoe_in_play:
            self.shoe.load(rules.decks)
            self.phase = P.BETTING
            self.need = P.WAGERS
        self._dispatch = {
            Card: self._on_card, Decision: self._on_decision, Wager: self._on_wager,
            SideWager: self._on_side_wager, CloseBetting: self._on_close,
            Console: self._on_console, CreditsIn: self._on_credits_in,
            CreditsOut: self._on_credits_out, Draw: self._on_draw, NewShoe: self._on_new_shoe,
            Cut: self._on_cut, Empty: self._on_empty, Fault: self._on_fault,
            FaultCleared: self._on_fault_cleared, Hello: self._on_hello,
        }

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
    def seat_stake(self, seat: Seat) -> int:
        """Cents of ``seat`` at stake in the round not yet settled or voided."""
        return 0 if seat.net is not None else seat.staked

    def at_stake(self) -> int:
        return sum(s.staked for s in self.seats if s.net is None)

    # -- closing betting, the RNG draw -----------------------------------------------
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
    def decision_refusal(self, inp: Decision) -> str | None:
        """Why this decision would be refused now, or None: a pure query (the panel asks
        which sizes of a 1x-4x double the seat may take before it offers them)."""
        try:
            if self.phase == P.INSURANCE and self.need == P.DECISION:
                self._insurance_plan(self._checked_action(inp))
            else:
                self._decision_plan(inp)
        except Rejected as exc:
            return exc.reason
        return None

    def _checked_action(self, inp: Decision) -> Decision:
        if self.need != P.DECISION:
            raise Rejected(f"no decision is due ({expecting_of(self).why})")
        if inp.action not in ACTIONS:
            raise Rejected(f"unknown action {inp.action!r} (allowed: {', '.join(ACTIONS)})")
        return inp

    def _on_decision(self, inp: Decision) -> None:
        self._checked_action(inp)
        if self.phase == P.INSURANCE:
            self._insurance(inp)
            return
        seat, h = self._decision_plan(inp)
        self._decide(seat, h, inp.action, inp.times)

    def _decision_plan(self, inp: Decision) -> tuple[Seat, Hand]:
        """The seat and hand a (non-insurance) decision acts on, or :class:`Rejected`;
        changes nothing."""
        self._checked_action(inp)
        action = inp.action
        seat = self.players[self.turn_seat]
        number = self.turn_hand + 1  # hands are numbered from 1 outside the engine
        if inp.seat != seat.number or inp.hand != number:
            raise Rejected(
                f"{action}: the table waits for seat {seat.number} hand {number}, "
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
        return seat, h

    def _insurance_plan(self, inp: Decision) -> tuple[Seat, int]:
        """The seat asked and the insurance it takes (0: declined), or :class:`Rejected`."""
        seat = self.players[self.turn_seat]
        if inp.seat != seat.number or inp.hand != 1:
            raise Rejected(
                f"insurance is asked of seat {seat.number} hand 1, not seat {inp.seat} "
                f"hand {inp.hand}"
            )
        if inp.action == "insurance":
            half = self.insurance_offer(seat)
            amount = half if inp.amount is None else inp.amount
            if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= half:
                raise Rejected(f"insurance must be 1..{half} cents (half the wager): {amount!r}")
            if amount > seat.credits:
                raise Rejected(f"seat {seat.number} has {seat.credits} cents, not {amount}")
            return seat, amount
        if inp.action != "no-insurance":
            raise Rejected(f"{inp.action} is not legal now (legal: insurance, no-insurance)")
        return seat, 0

    def _insurance(self, inp: Decision) -> None:
        seat, amount = self._insurance_plan(inp)
        if amount:
            seat.credits -= amount
            seat.staked += amount
            seat.insurance = amount
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

    # -- views -----------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        from firmware.engine.views import public_view

        return public_view(self)

    def private_view(self) -> dict[str, Any]:
        from firmware.engine.views import private_view

        return private_view(self)
