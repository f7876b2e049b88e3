"""Credits and betting: the methods of :class:`~firmware.engine.table.Table` that move money
on and off the seats and place the wagers of the next round.

They live here so each module holds one job (the round after betting is in
:mod:`firmware.engine.play`, shoe events and tilts in :mod:`firmware.engine.tilts`). Every
handler validates completely before it mutates, or raises :class:`Rejected`.
"""

from __future__ import annotations

from typing import Any

from firmware.engine import phases as P
from firmware.engine.hand import Seat
from firmware.engine.inputs import CreditsIn, CreditsOut, SideWager, Wager
from firmware.engine.rejected import Rejected
from firmware.engine.state import TableState


class Betting(TableState):
    """Credits in and out, wagers and optional wagers (a base of Table; the state is
    declared in :class:`~firmware.engine.state.TableState`)."""

    __slots__ = ()

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

    # -- credits ---------------------------------------------------------------------
    def credits_refusal(self, inp: CreditsIn | CreditsOut) -> str | None:
        """Why this credit transfer would be refused now, or None: a pure query (the
        controller asks before it journals a transfer with its meters in one transaction)."""
        try:
            self._credits_plan(inp)
        except Rejected as exc:
            return exc.reason
        return None

    def _credits_plan(self, inp: CreditsIn | CreditsOut) -> tuple[Seat, int]:
        """``(seat, signed cents)`` of a transfer, or :class:`Rejected`; changes nothing."""
        seat = self._seat(inp.seat)
        if isinstance(inp, CreditsIn):
            amount = self._amount(inp.amount, "credits in")
            if amount == 0:
                raise Rejected("credits in must be more than 0 cents")
            return seat, amount
        amount = self._amount(inp.amount, "credits out")
        self._no_tilt("credits out")
        if amount == 0 or amount > seat.credits:
            raise Rejected(f"seat {seat.number} has {seat.credits} cents, cannot pay out {amount}")
        return seat, -amount

    def _on_credits_in(self, inp: CreditsIn) -> None:
        self._move_credits(inp)

    def _on_credits_out(self, inp: CreditsOut) -> None:
        self._move_credits(inp)

    def _move_credits(self, inp: CreditsIn | CreditsOut) -> None:
        seat, signed = self._credits_plan(inp)
        seat.credits += signed
        self.funded += signed

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
