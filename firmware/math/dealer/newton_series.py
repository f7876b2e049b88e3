"""The dealer's joint law near one shoe, as a finite Newton series in the cards removed.

Why: Split to Double's composition-dependent calculation
(:mod:`firmware.math.games.split_to_double.all_cards_return`) needs the dealer's law for tens of
thousands of compositions, the shoe less the up card less a few cards ``t`` (the player's). Each
exact law costs about 0.1 ms (:func:`firmware.math.dealer.many_shoes.joint_laws`), so they would
dominate. But the law moves little per card removed: removing one card changes it by about 1/N, and
each further
*difference* is about 50 times smaller again (measured at six decks: first differences
3e-3, second 2e-5, third 5e-7, fourth 1e-8). The multivariate Newton series

    J(c - t) = sum over multisets s <= t of  prod_v C(t_v, s_v) * D^s J(c)

(``D_v f(c) = f(c - e_v) - f(c)``, exact when all the terms are kept) is therefore
truncated at ``|s| <= ORDER``: the law of every composition within ``ORDER`` cards of
``c`` is exact, and further ones are off by the neglected higher differences (for five
cards removed, at most ``C(5, 4)`` fourth differences). ``D^s J(c)`` come from the exact
laws of the ``C(10 + ORDER, ORDER)`` compositions ``c - s``, ``|s| <= ORDER`` (286 for
order 3), by inverting the series on them. The error this leaves in a figure is measured
by evaluating the same figure with exact laws (``dealer="exact"``, docs/math.md).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb

import numpy as np

from firmware.math.dealer.many_shoes import joint_laws

#: highest difference kept
ORDER = 3


@lru_cache(maxsize=8)
def _multisets(order: int) -> np.ndarray:
    """Every multiset of at most ``order`` card values, as (M, 10) counts, by size."""
    rows = [np.zeros(10, dtype=np.int64)]
    for k in range(1, order + 1):
        for vs in combinations_with_replacement(range(10), k):
            r = np.zeros(10, dtype=np.int64)
            for v in vs:
                r[v] += 1
            rows.append(r)
    return np.array(rows)


@lru_cache(maxsize=8)
def _slots(order: int) -> tuple[np.ndarray, np.ndarray]:
    """For each multiset ``s``: ``order`` (value, count) slots, unused ones count 0."""
    ms = _multisets(order)
    vals = np.zeros((ms.shape[0], order), dtype=np.int64)
    cnts = np.zeros((ms.shape[0], order), dtype=np.int64)
    for i, s in enumerate(ms):
        for j, v in enumerate(np.nonzero(s)[0]):
            vals[i, j], cnts[i, j] = v, s[v]
    return vals, cnts


_BINOM = np.array([[comb(n, k) for k in range(16)] for n in range(64)], dtype=np.float64)


def newton_basis(t: np.ndarray, order: int = ORDER) -> np.ndarray:
    """(K, M): ``prod_v C(t_v, s_v)`` for every removed multiset ``t`` (K, 10) and every
    ``s`` of :func:`_multisets` (the series' coefficients for ``c - t``)."""
    vals, cnts = _slots(order)
    t = np.asarray(t, dtype=np.int64)
    # C(t_v, j) for j <= order, as columns v (order + 1) + j: three column gathers
    table = _BINOM[t][:, :, :order + 1].reshape(t.shape[0], 10 * (order + 1))
    cols = vals * (order + 1) + cnts
    out = table[:, cols[:, 0]]
    for j in range(1, order):
        out *= table[:, cols[:, j]]
    return out


class NewtonLaws:
    """Joint dealer laws of ``c - t`` for removed multisets ``t``, from the series at
    ``c`` (the shoe less the up card) truncated at ``order``."""

    def __init__(self, kind: str, counts: np.ndarray, up: int, h17: bool,
                 order: int = ORDER) -> None:
        self.order = order
        ms = _multisets(order)
        comps = np.asarray(counts, dtype=np.int64)[None, :] - ms
        exact = joint_laws(kind, np.maximum(comps, 0), up, h17)
        # J(c - s') = sum_s Z[s', s] D^s J(c), Z[s', s] = prod_v C(s'_v, s_v); its inverse
        # is Z with the sign (-1)^(|s'| - |s|) (binomial inversion, value by value)
        zeta = newton_basis(ms, order)
        size = ms.sum(1)
        sign = np.where((size[:, None] - size[None, :]) % 2 == 0, 1.0, -1.0)
        self.diffs = (sign * zeta) @ exact

        # the first differences of the series: by Pascal's rule, the series of
        # J(c - t - e_v) - J(c - t) is sum over s of B_s(t) D^(s + e_v) J(c), |s| < order
        ms_lo = _multisets(order - 1)
        index = {tuple(m): i for i, m in enumerate(ms)}
        self.shifted = np.zeros((ms_lo.shape[0], 10, 8))
        for i, m in enumerate(ms_lo):
            for v in range(10):
                up_m = m.copy()
                up_m[v] += 1
                self.shifted[i, v] = self.diffs[index[tuple(up_m)]]

    def laws(self, removed: np.ndarray) -> np.ndarray:
        """(K, 8): P(outcome, no dealer Blackjack), BJ entry P(Blackjack), for ``c - t``."""
        return newton_basis(removed, self.order) @ self.diffs

    def laws_and_steps(self, removed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`laws` and (K, 10, 8) their change when one more card of each value is
        removed (the same series' difference, from one basis evaluation)."""
        basis = newton_basis(removed, self.order)
        m_lo = self.shifted.shape[0]
        steps = (basis[:, :m_lo] @ self.shifted.reshape(m_lo, 80)).reshape(-1, 10, 8)
        return basis @ self.diffs, steps


__all__ = ["ORDER", "NewtonLaws", "newton_basis"]
