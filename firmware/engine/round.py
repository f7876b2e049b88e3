"""The round in play: its phase, what it waits for, the dealer, the players' turn.

:class:`Round` is the part of a :class:`~firmware.engine.game.Game` that owns the round:
betting opening and closing, the RNG draw, the burn of a new shoe, and (through
:mod:`firmware.engine.play` and :mod:`firmware.engine.decisions`) dealing, insurance, the
decisions and the dealer. Money is not its own: every cent a decision puts at stake or
settlement gives back moves through the :class:`~firmware.engine.bank.Bank`.

Mechanisms never see the round itself; they get its :class:`ReadOnlyRound`, which reads the
round and changes nothing. A mechanism changes only the seat and hand a hook hands it,
and keeps its own notes on the round by returning them (``new_round``, ``apply_draw``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from firmware.engine import phases as P
from firmware.engine.cards import CODE
from firmware.engine.hand import Hand, Seat
from firmware.engine.rejected import Rejected

if TYPE_CHECKING:
    from firmware.engine.bank import Bank
    from firmware.engine.inputs import CloseBetting, Draw
    from firmware.engine.mechanism import DrawRequest, Hooks
    from firmware.engine.rules import Rules
    from firmware.engine.shoe import Shoe


class ReadOnlyRound:
    """The round's :class:`~firmware.engine.mechanism.RoundView`: what a mechanism may
    read of the round: rules, dealer, players, the turn's state and the mechanisms'
    notes. The view itself changes nothing; the seats and hands it
    shows are the round's own (not copies, so a hook costs no copying), and a mechanism
    changes only the seat and hand a hook is handed."""

    __slots__ = ("_round",)

    def __init__(self, r: Round) -> None:
        self._round = r

    @property
    def rules(self) -> Rules:
        return self._round.rules

    @property
    def dealer(self) -> Hand:
        return self._round.dealer

    @property
    def players(self) -> Sequence[Seat]:
        """The seats playing the round, in dealing order (a tuple: the view cannot change
        who plays)."""
        return tuple(self._round.players)

    @property
    def hole_revealed(self) -> bool:
        return self._round.hole_revealed

    @property
    def post_double(self) -> bool:
        """A doubled hand still owes a decision after its card (a rescue)."""
        return self._round.post_double

    @property
    def notes(self) -> Mapping[str, Any]:
        """What the mechanisms noted on the round (e.g. the Bingo draw)."""
        return MappingProxyType(self._round.extra)

    def hand_result(self, seat: Seat, hand: Hand, result: str) -> str:
        """``result`` against the dealer as the game's ``hand_result`` rules amend it."""
        for hook in self._round.hooks.hand_result:
            result = hook(self, seat, hand, result)
        return result


class Round:
    """The round in play and the phase of the table around it."""

    __slots__ = (
        "audit", "bank", "burn_left", "card_to", "deal_order", "deal_pos", "dealer",
        "dealer_bj", "doubling", "draw_request", "draws", "extra", "hole_revealed", "hooks",
        "need", "phase", "players", "post_double", "round_no", "rules", "shoe", "turn_hand",
        "turn_seat", "view",
    )

    def __init__(self, rules: Rules, bank: Bank, shoe: Shoe) -> None:
        self.rules = rules
        self.hooks: Hooks = rules.hooks
        self.bank = bank
        self.shoe = shoe
        self.view = ReadOnlyRound(self)
        self.round_no = 0
        self.burn_left = 0
        self.phase = P.NEW_SHOE
        self.need = P.SHOE
        self.reset()

    def reset(self) -> None:
        """An empty round: no players, no dealer cards, nothing drawn or audited."""
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

    def record(self, *entry: Any) -> None:
        """Add ``entry`` to the round's audit record."""
        self.audit.append(entry)

    @property
    def in_play(self) -> bool:
        """Cards are being dealt or played, or the round is paused by a tilt."""
        return self.phase in P.IN_ROUND or self.phase == P.TILT

    @property
    def over(self) -> bool:
        return self.phase in (P.SETTLED, P.VOIDED)

    def next_need(self) -> str:
        """What a round that has ended waits for: a new shoe once the cut card was seen."""
        return P.SHOE if self.shoe.cut_card_seen or not self.shoe.in_play else P.WAGERS

    # -- betting ---------------------------------------------------------------------
    def open_betting(self) -> None:
        """After a settled or voided round, the first wager starts a fresh one."""
        if self.phase != P.BETTING:
            # only the last round's players hold round state (all seats after a void
            # during betting, when no round was dealt)
            self.bank.clear_round(self.players or self.bank.seats)
            self.reset()
            self.phase = P.BETTING
            self.need = P.WAGERS

    def close_betting(self, inp: CloseBetting | None = None) -> bool:
        """Betting closes (a ``CloseBetting`` input or ``DEAL``): the round starts. True
        when the first card is due now (the game then starts dealing,
        :func:`firmware.engine.play.start_dealing`); False while an RNG draw is due."""
        if self.phase != P.BETTING:
            raise Rejected(f"no betting to close (phase {self.phase})")
        if self.need == P.SHOE:
            raise Rejected("the table waits for a new shoe")
        players = [s for s in self.bank.seats if s.wager]
        if not players:
            raise Rejected("no wagers: place a Blackjack wager before closing betting")
        self.round_no += 1
        self.players = players
        for s in players:
            s.hands = [Hand(s.wager)]
        view = self.view
        for hook in self.hooks.new_round:
            self.extra.update(hook(view))
        for ask in self.hooks.draw_request:
            req = ask(view)
            if req is not None:
                self.draw_request = req
                self.phase = P.RNG
                self.need = P.DRAW
                return False
        return True

    def draw(self, inp: Draw, bench: bool) -> None:
        """Take the RNG draw the round waits for (forced values only on a bench table); the
        game then starts dealing."""
        req = self.draw_request
        if self.need != P.DRAW or req is None:
            raise Rejected("no RNG draw is due")
        if inp.forced and not bench:
            raise Rejected("forced draws are a bench power; this table runs in production mode")
        if set(inp.values) != set(req.values):
            raise Rejected(f"the draw must give {', '.join(sorted(req.values))}")
        for name, domain in req.values.items():
            if inp.values[name] not in domain:
                raise Rejected(f"draw {name}={inp.values[name]!r} is not one of {list(domain)}")
        self.draws = dict(inp.values)
        self.audit.append(("draw", dict(inp.values), inp.forced, inp.record))
        view = self.view
        for hook in self.hooks.apply_draw:
            self.extra.update(hook(view, dict(inp.values)))
        self.draw_request = None

    # -- the shoe --------------------------------------------------------------------
    def new_shoe(self, burn: int) -> None:
        """A new shoe is loaded: the last round is cleared, ``burn`` cards are burned."""
        if self.over:
            self.bank.clear_round(self.bank.seats)
            self.reset()
        self.burn_left = burn
        if burn:
            self.phase = P.NEW_SHOE
            self.need = P.CARD
        else:
            self.phase = P.BETTING
            self.need = P.WAGERS

    def burn(self, card: int) -> None:
        """A card burned after a new shoe (baseline §1.3); the other cards of the round go
        to :mod:`firmware.engine.play` (the table routes them by phase)."""
        self.audit.append(("burn", CODE[card]))
        self.burn_left -= 1
        if not self.burn_left:
            self.phase = P.BETTING
            self.need = P.WAGERS

    def cut(self) -> None:
        self.audit.append(("cut", self.shoe.cards_dealt))
        if self.over:
            self.need = P.SHOE

    def shoe_due(self) -> None:
        """Nothing is left to deal: wagers placed wait for the new shoe."""
        self.need = P.SHOE

    # -- tilts -----------------------------------------------------------------------
    def pause(self) -> None:
        """A tilt pauses the round (its phase and need are kept by the tilt)."""
        self.phase = P.TILT
        self.need = P.CONSOLE

    def resume(self, phase: str, need: str) -> None:
        self.phase = phase
        self.need = need

    def voided(self) -> None:
        """The round is voided (the bank has returned every stake)."""
        self.card_to = None
        self.phase = P.VOIDED
        self.need = self.next_need()
