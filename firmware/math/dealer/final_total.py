"""The dealer's final total, exactly, for any shoe composition and dealer rule.

Outcomes are indexed ``17 18 19 20 21 22 23+ BJ`` (:data:`OUTCOMES`). 22 is kept apart from
the other busts because a Free Bet dealer 22 pushes (baseline §4) and Push 22 pays on it;
a Spanish shoe changes nothing here but the composition.

The dealer draws one card at a time from what is left, so the law of the final total is a
sum over the dealer's possible draw *multisets*: the state after some draws depends only on
which cards were drawn, not their order. :func:`dealer_distribution` memoises on that
multiset, which keeps even a one-card-at-a-time eight-deck calculation to a few hundred
states per up card.

This recursion runs on :class:`fractions.Fraction` (``exact=True``: exact rational
probabilities, for the tests). In floats (the strategy and return calculations, which
evaluate hundreds of compositions) the same law comes from
:mod:`firmware.math.dealer.many_shoes`, which counts the dealer's terminal multisets once per up
card and evaluates compositions in batches; it stays within 1e-12 of the exact value
(checked by a test).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from firmware.math.composition import Shoe
from firmware.math.dealer.rule import I22, IBJ, IBUST, dealer_stands


def dealer_distribution(
    shoe: Shoe,
    counts: Sequence[int] | None,
    up: int,
    hits_soft_17: bool,
    *,
    no_blackjack: bool = True,
    exact: bool = False,
) -> tuple[Any, ...]:
    """Probabilities of the eight outcomes for dealer up card ``up``.

    ``counts`` is the composition the hole card comes from (the up card and every other
    card already dealt removed), or None for the infinite deck. With ``no_blackjack`` the
    result is conditioned on the dealer not holding Blackjack (the check of baseline §1.4
    has happened and found none); the BJ entry is then 0.
    """
    if not exact:
        from firmware.math.dealer.many_shoes import joint_laws, laws

        arr = None if counts is None else np.asarray([counts])
        got = (laws if no_blackjack else joint_laws)(shoe.kind, arr, up, hits_soft_17)[0]
        return tuple(float(x) for x in got)
    one: Any = Fraction(1)
    zero: Any = one * 0
    base = list(shoe.per_deck if counts is None else counts)
    finite = counts is not None
    memo: dict[int, list[Any]] = {}

    def rec(key: int, hard: int, ace: bool, cur: list[int], n: int) -> list[Any]:
        if key in memo:
            return memo[key]
        total = hard + 10 if ace and hard <= 11 else hard
        res = [zero] * 8
        if total > 21:
            res[I22 if total == 22 else IBUST] = one
        elif dealer_stands(hard, ace, hits_soft_17):
            res[total - 17] = one
        else:
            for v in range(1, 11):
                c = cur[v - 1]
                if not c:
                    continue
                p = one * c / n
                if finite:
                    cur[v - 1] = c - 1
                    sub = rec(key + 16 ** (v - 1), hard + v, ace or v == 1, cur, n - 1)
                    cur[v - 1] = c
                else:
                    sub = rec(key + 16 ** (v - 1), hard + v, ace or v == 1, cur, n)
                for i in range(7):
                    if sub[i]:
                        res[i] += p * sub[i]
        memo[key] = res
        return res

    n = sum(base)
    blackjack_hole = 10 if up == 1 else 1 if up == 10 else None
    excluded = base[blackjack_hole - 1] if (no_blackjack and blackjack_hole) else 0
    hole_total = n - excluded
    out = [zero] * 8
    for h in range(1, 11):
        c = base[h - 1]
        if not c:
            continue
        if h == blackjack_hole:
            if not no_blackjack:
                out[IBJ] += one * c / hole_total
            continue
        p = one * c / hole_total
        cur = list(base)
        if finite:
            cur[h - 1] -= 1
        sub = rec(16 ** (h - 1), up + h, up == 1 or h == 1, cur, n - 1 if finite else n)
        for i in range(7):
            if sub[i]:
                out[i] += p * sub[i]
    return tuple(out)


def blackjack_probability(
    shoe: Shoe, counts: Sequence[int] | None, up: int, *, exact: bool = False
) -> Any:
    """Probability that the hole card makes a dealer Blackjack with ``up``."""
    base = list(shoe.per_deck if counts is None else counts)
    one: Any = Fraction(1) if exact else 1.0
    hole = 10 if up == 1 else 1 if up == 10 else None
    if hole is None:
        return one * 0
    return one * base[hole - 1] / sum(base)
