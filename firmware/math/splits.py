"""Value of splitting a pair (and, for Split to Double, any two cards).

The split hands are valued with the same :class:`HandSolver` as the hand being split, so
they draw from the composition left after the first three cards: the cards drawn to the
other split hands are not removed (the usual approximation of combinatorial analysers,
cf. "for splitting values the program only considered how many hands the player had
already split"). Its size is measured in tests against published figures; it is below
0.01% of the initial wager for 4 or more decks and zero for the infinite deck.

A pair that pairs again is resplit whenever the rules allow (the hand count is below
``max_hands``, aces only with ``resplit_aces``): the usual "resplit whenever you would
split" rule. Hands are played one after the other, as § 672a.10(c) orders.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from firmware.math.handcalc import HandCtx, HandSolver, Value, next_tag


def hand_start_tag(solver: HandSolver, cards: tuple[int, ...]) -> tuple[int, ...] | None:
    if not solver.spanish:
        return None
    tag: tuple[int, ...] | None = ()
    for c in cards:
        tag = next_tag(tag, c)
    return tag


def split_value(solver: HandSolver, pair: int) -> Value:
    """Expected value of splitting a pair of ``pair`` (all hands, in units of one wager)."""
    r = solver.r
    q = solver.q
    free = r.free_split and pair not in r.real_split_values
    can_resplit = pair != 1 or r.resplit_aces

    def final(lammer: bool, x: int) -> Value:
        ctx = HandCtx(split=True, lammer=lammer, split_ace=pair == 1)
        return solver.value(
            pair + x, pair == 1 or x == 1, 2, hand_start_tag(solver, (pair, x)), ctx
        )

    @cache
    def dp(n: int, pending: tuple[bool, ...]) -> Any:
        if not pending:
            return 0.0
        lam, rest = pending[0], pending[1:]
        total: Value = 0.0
        for x in range(1, 11):
            p = q[x - 1]
            if not p:
                continue
            if x == pair and can_resplit and n < r.max_hands:
                total = total + p * dp(n + 1, (lam, free, *rest))
            else:
                total = total + p * (final(lam, x) + dp(n, rest))
        return total

    return dp(2, (False, free))
