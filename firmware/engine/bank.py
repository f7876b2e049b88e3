"""The bank: the seats' credits and every wager, the money in and out of the table.

:class:`Bank` is the part of a :class:`~firmware.engine.game.Game` that moves money:
credits in and out, the wagers of the next round (with the paired and optional wagers of
a variation), the stakes a decision adds (insurance, a double, a split), what settlement
gives back and the house result, the stakes a void returns. Nothing else changes a
seat's credits, so conservation is one class's to keep: credits on the seats plus what
is at stake plus the house result equal the credits funded.

Every handler validates completely before it mutates (``*_plan`` raises
:class:`Rejected` and changes nothing); the refusal queries answer from the same plans.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from firmware.engine import phases as P
from firmware.engine.hand import Seat
from firmware.engine.inputs import CreditsIn, CreditsOut, SideWager, Wager
from firmware.engine.rejected import Rejected

if TYPE_CHECKING:
    from firmware.engine.mechanism import RoundView
    from firmware.engine.rules import Rules


class Betting(Protocol):
    """What the bank reads of the round to judge a wager (the round satisfies it; the
    bank sits below the round in the engine's layers, so it names only this)."""

    @property
    def phase(self) -> str: ...
    @property
    def need(self) -> str: ...
    @property
    def view(self) -> RoundView: ...

#: a planned wager: (seat, amount, old stake, new total stake, side wagers)
WagerPlan = tuple[Seat, int, int, int, dict[str, int]]


def _amount(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise Rejected(f"{what} must be a whole number of cents >= 0, got {v!r}")
    return v


class Bank:
    """Credits per seat, the wagers on them, the house result and the credits funded."""

    __slots__ = ("funded", "hooks", "house", "nseats", "rules", "seats")

    def __init__(self, rules: Rules, nseats: int) -> None:
        self.rules = rules
        self.hooks = rules.hooks
        self.nseats = nseats
        self.seats = [Seat(i + 1) for i in range(nseats)]
        self.house = 0          # the house result: stakes collected minus payouts
        self.funded = 0         # credits in minus credits out

    def seat(self, number: Any) -> Seat:
        if isinstance(number, bool) or not isinstance(number, int) or not (
            1 <= number <= self.nseats
        ):
            raise Rejected(f"no seat {number!r} at this table (seats 1..{self.nseats})")
        return self.seats[number - 1]

    # -- what is at stake ------------------------------------------------------------
    @staticmethod
    def seat_stake(seat: Seat) -> int:
        """Cents of ``seat`` at stake in the round not yet settled or voided."""
        return 0 if seat.net is not None else seat.staked

    def at_stake(self) -> int:
        return sum(s.staked for s in self.seats if s.net is None)

    def any_staked(self) -> bool:
        return any(s.staked for s in self.seats)

    # -- credits ---------------------------------------------------------------------
    def credits_plan(
        self, inp: CreditsIn | CreditsOut, tilted: str | None
    ) -> tuple[Seat, int]:
        """``(seat, signed cents)`` of a transfer, or :class:`Rejected`; changes nothing.
        ``tilted``: the tilt's cause while the table is tilted (no credits out then)."""
        seat = self.seat(inp.seat)
        if isinstance(inp, CreditsIn):
            amount = _amount(inp.amount, "credits in")
            if amount == 0:
                raise Rejected("credits in must be more than 0 cents")
            return seat, amount
        amount = _amount(inp.amount, "credits out")
        if tilted is not None:
            raise Rejected(f"credits out: the table is tilted ({tilted})")
        if amount == 0 or amount > seat.credits:
            raise Rejected(f"seat {seat.number} has {seat.credits} cents, cannot pay out {amount}")
        return seat, -amount

    def move_credits(self, plan: tuple[Seat, int]) -> None:
        seat, signed = plan
        seat.credits += signed
        self.funded += signed

    # -- betting ---------------------------------------------------------------------
    def _betting_seat(self, number: Any, what: str, r: Betting) -> Seat:
        seat = self.seat(number)
        if r.phase not in P.BETWEEN:
            raise Rejected(f"{what}: betting is closed (phase {r.phase})")
        if r.need == P.SHOE:
            raise Rejected(f"{what}: the table waits for a new shoe")
        return seat

    def optional(self, name: str) -> bool:
        return any(name in m.optional_wagers for m in self.rules.mechanisms)

    def wager_plan(self, inp: Wager, r: Betting) -> WagerPlan:
        """The wager ``inp`` places for the round ``r`` (betting open), or :class:`Rejected`;
        mechanisms judge it from the round's read-only view."""
        seat = self._betting_seat(inp.seat, "wager", r)
        amount = _amount(inp.amount, "a wager")
        rules = self.rules
        view = r.view
        fresh = r.phase != P.BETTING
        old = 0 if fresh else seat.staked
        options = ({} if fresh or not seat.side else
                   {k: v for k, v in seat.side.items() if self.optional(k)})
        paired: dict[str, int] = {}
        if amount:
            if amount % rules.wager_unit:
                raise Rejected(f"wager {amount} is not a multiple of the unit {rules.wager_unit}")
            if not rules.min_wager <= amount <= rules.max_wager:
                raise Rejected(
                    f"wager {amount} is outside the limits {rules.min_wager}..{rules.max_wager}"
                )
            for refusal in self.hooks.wager_refusal:
                why = refusal(view, seat, amount)
                if why:
                    raise Rejected(why)
            for hook in self.hooks.paired_wagers:
                paired.update(hook(view, seat, amount))
        else:
            options = {}
        if paired or options:
            side = {**paired, **options}
            total = amount + sum(paired.values()) + sum(options.values())
        else:  # the plain wager (no paired or optional wager): no dictionaries to merge
            side, total = {}, amount
        if total > seat.credits + old:
            raise Rejected(
                f"seat {seat.number} has {seat.credits + old} cents, the wagers need {total}"
            )
        return seat, amount, old, total, side

    def place_wager(self, plan: WagerPlan) -> None:
        seat, amount, old, total, side = plan
        seat.credits += old - total
        seat.wager = amount
        seat.side = side
        if side:
            seat.staked_by_kind = {k: v for k, v in (("blackjack", amount), *side.items()) if v}
        else:
            seat.staked_by_kind = {"blackjack": amount} if amount else {}
        seat.staked = total

    def side_wager_plan(self, inp: SideWager, r: Betting) -> tuple[Seat, int, int]:
        """``(seat, amount, credits it takes)`` or :class:`Rejected`; changes nothing."""
        seat = self._betting_seat(inp.seat, "side wager", r)
        view = r.view
        amount = _amount(inp.amount, "a side wager")
        rules = self.rules
        if not self.optional(inp.name):
            offered = [n for m in rules.mechanisms for n in m.optional_wagers]
            raise Rejected(
                f"{rules.title} offers no optional wager {inp.name!r} "
                f"(offered: {', '.join(offered) or 'none'})"
            )
        if r.phase != P.BETTING or not seat.wager:
            raise Rejected(f"seat {seat.number}: place the Blackjack wager first")
        if amount % rules.wager_unit:
            raise Rejected(f"wager {amount} is not a multiple of the unit {rules.wager_unit}")
        for refusal in self.hooks.side_wager_refusal:
            why = refusal(view, seat, inp.name, amount)
            if why:
                raise Rejected(why)
        delta = amount - seat.side.get(inp.name, 0)
        if delta > seat.credits:
            raise Rejected(f"seat {seat.number} has {seat.credits} cents, needs {delta} more")
        return seat, amount, delta

    def place_side_wager(self, name: str, plan: tuple[Seat, int, int]) -> None:
        seat, amount, delta = plan
        seat.credits -= delta
        seat.staked += delta
        if amount:
            seat.side[name] = amount
            seat.staked_by_kind[name] = amount
        else:
            seat.side.pop(name, None)
            seat.staked_by_kind.pop(name, None)

    # -- the round's money -----------------------------------------------------------
    @staticmethod
    def stake(seat: Seat, cents: int, kind: str) -> None:
        """``seat`` puts ``cents`` more at stake as a wager of ``kind`` (``insurance``,
        ``double``, ``blackjack`` for a split hand): the total and the kind together, so
        the meters' stakes by kind always add up to what the seat staked."""
        seat.credits -= cents
        seat.staked += cents
        if cents:
            seat.staked_by_kind[kind] = seat.staked_by_kind.get(kind, 0) + cents

    def insure(self, seat: Seat, cents: int) -> None:
        """``seat`` takes ``cents`` of insurance (baseline §1.5)."""
        self.stake(seat, cents, "insurance")
        seat.insurance = cents

    def settled(self, seat: Seat, returned: int, by_kind: dict[str, int]) -> None:
        """Settlement gives ``returned`` back to ``seat`` (stakes and winnings)."""
        seat.returned = returned
        seat.returned_by_kind = by_kind
        seat.credits += returned
        seat.net = returned - seat.staked
        self.house += seat.staked - returned

    def return_stakes(self) -> None:
        """A void: every stake not yet settled goes back to its seat."""
        for s in self.seats:
            if s.net is None and s.staked:
                s.credits += s.staked
                s.returned = s.staked
                s.returned_by_kind = dict(s.staked_by_kind)  # each stake as its own kind
                s.net = 0

    @staticmethod
    def clear_round(seats: Iterable[Seat]) -> None:
        """The last round's wagers and hands leave ``seats`` (a new round or shoe)."""
        for s in seats:
            s.clear_round()
