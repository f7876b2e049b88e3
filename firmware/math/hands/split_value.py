"""Value of splitting a pair (and, for Split to Double, any two cards).

The split hands are valued with the same :class:`HandSolver` as the hand being split, so
they draw from the composition left after the first three cards: the cards drawn to the
other split hands are not removed (the usual approximation of combinatorial analysers,
cf. "for splitting values the program only considered how many hands the player had
already split"). Its size is measured in tests against published figures; it is below
0.01% of the initial wager for 4 or more decks and zero for the infinite deck.

A pair that pairs again may be resplit while the rules allow (the hand count is below
``max_hands``, aces only with ``resplit_aces``); whether it is comes from the strategy
(``("resplit", up, pair, lammer)``, :func:`resplit_choice`), or is the better of the two
when no strategy is given. Hands are played one after the other, as § 672a.10(c) orders.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from firmware.math.hands.hand_value import SPLIT, STAND, HandCtx, HandSolver, Value, next_tag


def hand_start_tag(solver: HandSolver, cards: tuple[int, ...]) -> tuple[int, ...] | None:
    if not solver.spanish:
        return None
    tag: tuple[int, ...] | None = ()
    for c in cards:
        tag = next_tag(tag, c)
    return tag


def split_value(solver: HandSolver, pair: int, lammer: bool = False) -> Value:
    """Expected value of splitting a pair of ``pair`` (all hands, in units of one wager).

    ``lammer``: the hand being split is itself a Free Bet lammer (the second hand of a
    free split); it stays one, and the new hand is free again (except tens), so its
    split risks no money of the player's and is worth more than a real hand's.
    """
    r = solver.r
    q = solver.q
    free = r.free_split and pair not in r.real_split_values
    can_resplit = pair != 1 or r.resplit_aces

    def final(lam: bool, x: int) -> Value:
        ctx = HandCtx(split=True, lammer=lam, split_ace=pair == 1)
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
            play = final(lam, x) + dp(n, rest)
            if x == pair and can_resplit and n < r.max_hands:
                again = dp(n + 1, (lam, free, *rest))
                key = ("resplit", solver.up, pair, lam)
                play = solver._pick([(STAND, play), (SPLIT, again)], key)
            total = total + p * play
        return total

    return dp(2, (lammer, free))


def resplit_choice(solver: HandSolver, pair: int, lammer: bool) -> Any:
    """SPLIT or STAND: whether a pair made by a split is split again (per lane).

    The same comparison :meth:`Strategy.decide` makes for the engine's automatic players
    (splitting against the pair's best play as a split hand), so that the return
    calculation resplits exactly where the players do.
    """
    ctx = HandCtx(split=True, lammer=lammer, split_ace=pair == 1)
    play = solver.value(2 * pair, pair == 1, 2, hand_start_tag(solver, (pair, pair)), ctx)
    again = split_value(solver, pair, lammer)
    if solver.vec:
        return np.where(again > play + 1e-12, SPLIT, STAND)
    return SPLIT if again > play + 1e-12 else STAND
