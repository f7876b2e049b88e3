"""The dealer's final-total law for many shoe compositions at once, exactly, with numpy.

Why a second dealer calculation: :mod:`firmware.math.dealer.final_total` recurses once per
composition, which is exact but costs milliseconds each, and a composition-dependent
analysis needs the law for thousands of compositions (Split to Double removes every
card its hands drew, :mod:`firmware.math.games.split_to_double.all_cards_return`). Here the work
that does not depend on the composition is done once per (deck kind, up card, dealer rule):

The dealer's cards after the up card (hole card, then draws) form an ordered sequence
that stops at the first stand or bust. The probability of one sequence from a
composition ``c`` (``N`` cards) depends only on its *multiset* ``m``:
``prod_v c_v (c_v - 1) ... (c_v - m_v + 1) / (N (N - 1) ... (N - |m| + 1))``. So the law
is ``sum over terminal multisets m of ways(m) * falling(c, m) / falling(N, |m|)``, where
``ways(m)``, the number of legal orderings (no earlier stop), is counted once by a
breadth-first pass over multisets (:class:`Paths`). Evaluating a batch of compositions is
then a gather-and-multiply over a few thousand terms: float64, within 1e-13 of the
rational recursion (checked by a test against ``dealer_distribution(exact=True)``).

Outcomes are the eight of :data:`firmware.math.dealer.final_total.OUTCOMES`; :func:`joint_laws`
gives P(outcome and no dealer Blackjack) with P(Blackjack) in the BJ entry (the joint
law a composition-dependent analysis needs, since the player's later draws change the
Blackjack probability too), :func:`laws` the law conditioned on no Blackjack.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from firmware.math.composition import DECK_KINDS
from firmware.math.dealer.rule import I22, IBJ, IBUST, dealer_stands


@dataclass(frozen=True)
class Paths:
    """Terminal multisets of the dealer's cards after the up card, with their weights."""

    #: (T, 10) cards of each value among hole + draws
    m: np.ndarray
    #: (T,) number of cards
    size: np.ndarray
    #: (T,) legal orderings of the multiset (float)
    ways: np.ndarray
    #: (T,) outcome index 0..7
    outcome: np.ndarray
    #: (10 D, T) selector: row v D + j is 1 for the terms holding j cards of value v + 1
    select: np.ndarray
    #: (T, 8) one-hot outcome of each term
    outcomes: np.ndarray

    @property
    def depth(self) -> int:
        return self.select.shape[0] // 10


def _outcome(hard: int, ace: bool, h17: bool) -> int | None:
    total = hard + 10 if ace and hard <= 11 else hard
    if total > 21:
        return I22 if total == 22 else IBUST
    if dealer_stands(hard, ace, h17):
        return total - 17
    return None


@lru_cache(maxsize=64)
def paths(up: int, h17: bool, blackjack_check: bool = True) -> Paths:
    """Every terminal multiset for ``up``, counted by a breadth-first pass (cached)."""
    rows: list[tuple[int, ...]] = []
    ways: list[float] = []
    outs: list[int] = []
    bj_hole = 10 if up == 1 else 1 if up == 10 else None
    level: dict[tuple[int, ...], float] = {}
    for h in range(1, 11):
        m = tuple(1 if v == h else 0 for v in range(1, 11))
        if blackjack_check and h == bj_hole:
            rows.append(m)
            ways.append(1.0)
            outs.append(IBJ)
            continue
        out = _outcome(up + h, up == 1 or h == 1, h17)
        if out is None:
            level[m] = level.get(m, 0.0) + 1.0
        else:
            rows.append(m)
            ways.append(1.0)
            outs.append(out)
    while level:
        nxt: dict[tuple[int, ...], float] = {}
        for m, w in level.items():
            hard = up + sum((v + 1) * k for v, k in enumerate(m))
            ace = up == 1 or m[0] > 0
            for v in range(1, 11):
                m2 = (*m[:v - 1], m[v - 1] + 1, *m[v:])
                out = _outcome(hard + v, ace or v == 1, h17)
                if out is None:
                    nxt[m2] = nxt.get(m2, 0.0) + w
                else:
                    rows.append(m2)
                    ways.append(w)
                    outs.append(out)
        level = nxt
    # the same multiset may end by different last cards: merge duplicates
    merged: dict[tuple[tuple[int, ...], int], float] = {}
    for m, w, o in zip(rows, ways, outs, strict=True):
        merged[(m, o)] = merged.get((m, o), 0.0) + w
    ms = np.array([k[0] for k in merged], dtype=np.int64)
    outcome = np.array([k[1] for k in merged], dtype=np.int64)
    t = ms.shape[0]
    depth = int(ms.max()) + 1
    select = np.zeros((10 * depth, t))
    for v in range(10):
        select[v * depth + ms[:, v], np.arange(t)] = 1.0
    onehot = np.zeros((t, 8))
    onehot[np.arange(t), outcome] = 1.0
    return Paths(m=ms, size=ms.sum(axis=1), ways=np.array(list(merged.values())),
                 outcome=outcome, select=select, outcomes=onehot)


def joint_laws(
    kind: str, counts: np.ndarray | None, up: int, h17: bool, *, check: bool = True
) -> np.ndarray:
    """(K, 8): P(outcome, no dealer Blackjack) per composition row; BJ entry P(BJ).

    ``counts`` (K, 10) are the compositions the hole card comes from (the up card and
    every other dealt card removed); None is the infinite deck (one row).
    """
    p = paths(up, h17, check)
    if counts is None:
        per = np.array(DECK_KINDS[kind], dtype=np.float64)
        q = per / per.sum()
        term = p.ways * np.prod(q[None, :] ** p.m, axis=1)
        out = np.zeros((1, 8))
        np.add.at(out[0], p.outcome, term)
        return out
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim == 1:
        c = c[None, :]
    k = c.shape[0]
    depth = p.depth
    # log of the falling factorials c_v (c_v - 1) ... (c_v - j + 1), j < depth: (K, 10, D);
    # a card value that runs out gives a probability 0 (a large negative log, not -inf,
    # so that the matrix product below stays finite)
    steps = c[:, :, None] - np.arange(depth - 1)[None, None, :]
    with np.errstate(divide="ignore"):
        logs = np.where(steps > 0, np.log(np.maximum(steps, 1.0)), -1e4)
    logfall = np.concatenate([np.zeros((k, 10, 1)), np.cumsum(logs, axis=2)], axis=2)
    n = c.sum(axis=1)
    smax = int(p.size.max()) + 1
    lognfall = np.concatenate([np.zeros((k, 1)), np.cumsum(
        np.log(n[:, None] - np.arange(smax - 1)[None, :]), axis=1)], axis=1)
    # sum over v of logfall[k, v, m_tv], for every term t at once: ten gathers (a matrix
    # product with the 0/1 selector would do ten times the work, and a BLAS product
    # starts threads that cost more CPU than they save on a shared machine)
    log_term = -lognfall[:, p.size]
    for v in range(10):
        log_term += logfall[:, v, p.m[:, v]]
    term = np.exp(log_term) * p.ways[None, :]
    out = np.zeros((k, 8))
    for o in range(8):
        out[:, o] = term[:, p.outcome == o].sum(axis=1)
    return out


def laws(kind: str, counts: np.ndarray | None, up: int, h17: bool) -> np.ndarray:
    """(K, 8): the law conditioned on no dealer Blackjack (BJ entry 0)."""
    j = joint_laws(kind, counts, up, h17)
    bj = j[:, IBJ].copy()
    j[:, IBJ] = 0.0
    return j / (1.0 - bj)[:, None]


__all__ = ["I22", "IBJ", "IBUST", "Paths", "joint_laws", "laws", "paths"]
