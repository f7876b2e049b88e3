"""The table: a pure state machine fed one input at a time.

:class:`Game` holds credits per seat, the shoe's composition and the round. It never does
I/O, reads a clock or draws a random number: the same inputs always give the same state,
so a journal of inputs replays a table exactly (power-fail recovery, recall, bench, audit;
see :mod:`firmware.engine.replay`).

``apply(input)`` first checks that the input fits the state and raises :class:`Rejected`
with the reason if not, having changed nothing; only then does it mutate. Hardware faults
are not rejected: they are inputs that tilt the table (nothing is settled while tilted;
``DEAL`` resumes once the fault has cleared, ``VOID`` returns every wager of the round).

``Game`` is a thin dispatcher over parts that each own their state: the
:class:`~firmware.engine.round.Round` (phase, dealer, players, the turn; dealing and play),
the :class:`~firmware.engine.bank.Bank` (credits, wagers, stakes, the house result), the
:class:`~firmware.engine.tilts.Tilts` (the tilt in force) and the
:class:`~firmware.engine.shoe.Shoe` (what the shoe can still hold). The read-only
properties below are the table's public state for the controller, the bench and the views.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from etgcore.errors import UserError
from firmware.engine import phases as P
from firmware.engine.bank import Bank
from firmware.engine.cards import CODE
from firmware.engine.decisions import (
    checked_action,
    decision_plan,
    insurance_plan,
    legal_now,
)
from firmware.engine.expect import Expecting, expecting_of
from firmware.engine.inputs import (
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
from firmware.engine.play import (
    deal_card,
    dealer_card,
    decide,
    insure,
    player_card,
    start_dealing,
)
from firmware.engine.rejected import Rejected
from firmware.engine.round import Round
from firmware.engine.rules import Rules
from firmware.engine.shoe import Shoe
from firmware.engine.tilts import Tilts
from firmware.engine.views import private_view, public_view

if TYPE_CHECKING:
    from etgcore.view import PrivateView, PublicView
    from firmware.engine.hand import Hand, Seat
    from firmware.engine.tilts import Tilt


class Game:
    """One blackjack table: seats, shoe and round, driven by :meth:`apply`.

    ``bench``: forced RNG draws are accepted (a bench power). ``shoe_in_play``: start with
    a shoe already loaded, shuffled, cut and burned (the bench's starting point).
    """

    __slots__ = ("_dispatch", "bank", "bench", "round", "rules", "shoe", "tilts")

    def __init__(
        self, rules: Rules, seats: int | None = None, bench: bool = False,
        shoe_in_play: bool = False,
    ) -> None:
        n = rules.max_seats if seats is None else seats
        if not 1 <= n <= rules.max_seats:
            raise UserError(f"{rules.title} seats at most {rules.max_seats} players, not {n}")
        self.rules = rules
        self.bench = bench
        self.shoe = Shoe(rules.decks, rules.deck_kind)
        self.bank = Bank(rules, n)
        self.round = r = Round(rules, self.bank, self.shoe)
        self.tilts = tilts = Tilts(r, self.bank, self.shoe)
        if shoe_in_play:
            self.shoe.load(rules.decks)
            r.new_shoe(burn=0)  # already burned: betting is open
        self._dispatch: dict[type, Callable[[Any], None]] = {
            Card: self._on_card, Decision: self._on_decision, Wager: self._on_wager,
            SideWager: self._on_side_wager, CloseBetting: self._on_close_betting,
            Console: self._on_console, CreditsIn: self._on_credits,
            CreditsOut: self._on_credits, Draw: self._on_draw, NewShoe: self._on_new_shoe,
            Cut: self._on_cut, Empty: self._on_empty, Fault: tilts.fault,
            FaultCleared: self._on_fault_cleared, Hello: self._on_hello,
        }

    # -- the one entry point ---------------------------------------------------------
    def apply(self, inp: Input) -> None:
        """Apply one input, or raise :class:`Rejected` leaving the state unchanged."""
        handler = self._dispatch.get(type(inp))
        if handler is None:
            raise Rejected(f"not an input: {inp!r}")
        self.tilts.paused_on = None
        handler(inp)

    @property
    def paused_on(self) -> str | None:
        """The tilt code the last applied input paused the game with (None: it did not):
        the game's own verdict, e.g. that a card read was not due (``UNEXPECTED``)."""
        return self.tilts.paused_on

    def expecting(self) -> Expecting:
        """What the table waits for now (see :mod:`firmware.engine.expect`)."""
        return expecting_of(self.round, self.tilts.tilt)

    # -- the public state (read-only; the parts own it) ------------------------------
    @property
    def nseats(self) -> int:
        return self.bank.nseats

    @property
    def seats(self) -> list[Seat]:
        return self.bank.seats

    @property
    def house(self) -> int:
        """The house result: stakes collected minus payouts."""
        return self.bank.house

    @property
    def funded(self) -> int:
        """Credits in minus credits out."""
        return self.bank.funded

    @property
    def tilt(self) -> Tilt | None:
        return self.tilts.tilt

    @property
    def phase(self) -> str:
        return self.round.phase

    @property
    def need(self) -> str:
        return self.round.need

    @property
    def round_no(self) -> int:
        return self.round.round_no

    @property
    def players(self) -> list[Seat]:
        return self.round.players

    @property
    def dealer(self) -> Hand:
        return self.round.dealer

    @property
    def dealer_bj(self) -> bool:
        return self.round.dealer_bj

    @property
    def hole_revealed(self) -> bool:
        return self.round.hole_revealed

    @property
    def turn_seat(self) -> int:
        return self.round.turn_seat

    @property
    def turn_hand(self) -> int:
        return self.round.turn_hand

    @property
    def post_double(self) -> bool:
        return self.round.post_double

    @property
    def draws(self) -> dict[str, int]:
        return self.round.draws

    @property
    def extra(self) -> dict[str, Any]:
        """The mechanisms' notes on the round (e.g. the Bingo draw)."""
        return self.round.extra

    @property
    def audit(self) -> list[tuple[Any, ...]]:
        return self.round.audit

    # -- queries ---------------------------------------------------------------------
    def seat_stake(self, seat: Seat) -> int:
        """Cents of ``seat`` at stake in the round not yet settled or voided."""
        return self.bank.seat_stake(seat)

    def at_stake(self) -> int:
        return self.bank.at_stake()

    def legal_now(self, seat: Seat, h: Hand) -> list[str]:
        """The decisions legal for ``h`` now, in panel order."""
        return legal_now(self.round, seat, h)

    def credits_refusal(self, inp: CreditsIn | CreditsOut) -> str | None:
        """Why this credit transfer would be refused now, or None: a pure query (the
        controller asks before it journals a transfer with its meters in one transaction)."""
        try:
            self.bank.credits_plan(inp, self.tilts.cause())
        except Rejected as exc:
            return exc.reason
        return None

    def resume_refusal(self) -> str | None:
        """Why DEAL would not resume the tilt now, or None: a pure query."""
        return self.tilts.resume_refusal()

    def wager_refusal(self, seat: int, amount: int) -> str | None:
        """Why ``Wager(seat, amount)`` would be refused now, or None: a pure query.

        Panels light a BET lamp only for a press the table takes; the paired wagers of a
        variation (an activator, an equal wager) and the seat's credits are judged here
        exactly as when the wager is placed, so callers never guess them."""
        try:
            self.bank.wager_plan(Wager(seat, amount), self.round)
        except Rejected as exc:
            return exc.reason
        return None

    def side_wager_refusal(self, seat: int, name: str, amount: int) -> str | None:
        """Why ``SideWager(seat, name, amount)`` would be refused now, or None: a pure
        query (the panel lights the button of an optional wager only when it would be
        taken)."""
        try:
            self.bank.side_wager_plan(SideWager(seat, name, amount), self.round)
        except Rejected as exc:
            return exc.reason
        return None

    def decision_refusal(self, inp: Decision) -> str | None:
        """Why this decision would be refused now, or None: a pure query (the panel asks
        which sizes of a 1x-4x double the seat may take before it offers them)."""
        try:
            if self.round.need != P.DECISION:
                raise Rejected(f"no decision is due ({self.expecting().why})")
            checked_action(inp)
            if self.round.phase == P.INSURANCE:
                insurance_plan(self.round, inp)
            else:
                decision_plan(self.round, inp)
        except Rejected as exc:
            return exc.reason
        return None

    # -- money -----------------------------------------------------------------------
    def _on_credits(self, inp: CreditsIn | CreditsOut) -> None:
        self.bank.move_credits(self.bank.credits_plan(inp, self.tilts.cause()))

    def _on_wager(self, inp: Wager) -> None:
        r = self.round
        plan = self.bank.wager_plan(inp, r)
        if r.phase != P.BETTING:  # the first wager after a round: a fresh one opens
            r.open_betting()
        self.bank.place_wager(plan)

    def _on_side_wager(self, inp: SideWager) -> None:
        self.bank.place_side_wager(inp.name, self.bank.side_wager_plan(inp, self.round))

    # -- the round -------------------------------------------------------------------
    def _on_close_betting(self, inp: CloseBetting | None = None) -> None:
        if self.round.close_betting(inp):
            start_dealing(self.round)

    def _on_draw(self, inp: Draw) -> None:
        self.round.draw(inp, self.bench)
        start_dealing(self.round)

    def _on_card(self, inp: Card) -> None:
        card = inp.card
        shoe = self.shoe
        r = self.round
        if r.need != P.CARD:
            self.tilts.pause("UNEXPECTED", f"card {CODE[card]} left the shoe when none was due")
            if not shoe.refusal(card):
                shoe.take(card)
            return
        if not shoe.counts[card]:
            self.tilts.pause("BADCARD", str(shoe.refusal(card)))
            return
        shoe.counts[card] -= 1
        shoe.cards_dealt += 1
        phase = r.phase  # the part of the round the card goes to
        if phase == P.DEALING:
            deal_card(r, card)
        elif phase == P.DECISIONS:
            player_card(r, card)
        elif phase == P.DEALER:
            dealer_card(r, card)
        else:  # burning after a new shoe (baseline §1.3)
            r.burn(card)

    def _on_decision(self, inp: Decision) -> None:
        r = self.round
        if r.need != P.DECISION:
            raise Rejected(f"no decision is due ({self.expecting().why})")
        checked_action(inp)
        if r.phase == P.INSURANCE:
            seat, amount = insurance_plan(r, inp)
            insure(r, seat, amount)
            return
        seat, h = decision_plan(r, inp)
        decide(r, seat, h, inp.action, inp.times)

    # -- the console -----------------------------------------------------------------
    def _on_console(self, inp: Console) -> None:
        press = inp.press
        if press not in CONSOLE_PRESSES:
            allowed = ", ".join(CONSOLE_PRESSES)
            raise Rejected(f"unknown console press {press!r} (allowed: {allowed})")
        if press == "DEAL":
            if self.round.phase == P.TILT:
                self.tilts.resume()
            else:
                self._on_close_betting()
        elif press == "VOID":
            self.tilts.void()
        else:
            self._on_new_shoe(NewShoe())

    # -- shoe events -----------------------------------------------------------------
    def _on_new_shoe(self, inp: NewShoe) -> None:
        rules = self.rules
        decks = rules.decks if inp.decks is None else inp.decks
        if decks != rules.decks:
            raise Rejected(f"the Rules Submission deals {rules.decks} decks, not {decks!r}")
        phase = self.round.phase
        if phase not in P.BETWEEN and phase != P.NEW_SHOE:
            raise Rejected(f"a new shoe is loaded only between rounds (phase {phase})")
        self.shoe.load(decks)
        self.round.new_shoe(rules.burn_cards)

    def _on_cut(self, inp: Cut) -> None:
        if not self.shoe.in_play:
            raise Rejected("cut card reported but no shoe is loaded")
        self.shoe.cut_card_seen = True
        self.round.cut()

    def _on_empty(self, inp: Empty) -> None:
        self.shoe.cut_card_seen = True
        if self.round.in_play:
            self.tilts.pause("EMPTY", "the shoe is empty")
        elif self.round.phase in P.BETWEEN:
            self.round.shoe_due()

    def _on_fault_cleared(self, inp: FaultCleared) -> None:
        self.tilts.device_clears()

    def _on_hello(self, inp: Hello) -> None:
        self.tilts.hello()

    # -- views -----------------------------------------------------------------------
    def public_view(self) -> PublicView:
        return public_view(self)

    def private_view(self) -> PrivateView:
        return private_view(self)
