"""The compiled part of :mod:`firmware.math.dealer.removed_cards`: exact dealer laws, many at once.

Why compiled: a card-removal calculation of a hitting game needs the dealer's exact law
for about 16,000 removed multisets per up card (every hand composition, also those of
split hands); numpy's gather-and-multiply over the dealer's few thousand terminal
multisets costs about 0.1 ms a law, so 16 s a game.

The law of a composition ``c0 - r`` (``c0`` the shoe less the up card, ``r`` the cards
removed) is ``sum over dealer terms t of base_t * prod_v rho_v(r_v, m_tv) * nu(|r|, |m_t|)``
with ``base_t`` the term's probability from ``c0`` (computed once),
``rho_v(r, m) = falling(c0_v - r, m) / falling(c0_v, m)`` and
``nu(R, s) = falling(N0, s) / falling(N0 - R, s)``. ``rho_v`` is 1 for a value not in
``r``, so for a group of removed multisets with the same *support* (the values present)
the terms that agree on the support's values, the size and the outcome are added once
(a few hundred instead of a few thousand) and each law is then a short sum. Exact in
real arithmetic; float64 within 1e-14 of the rational recursion (tests/math).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: longest dealer draw (cards after the up card) the tables hold
DEPTH = 16


@njit(cache=True)
def _factors(c0: np.ndarray, rem: np.ndarray, k: int, sv: np.ndarray, ns: int,
             n0: int, rho: np.ndarray, nu: np.ndarray) -> None:
    """``rho`` for the support values of removed multiset ``k`` and ``nu`` of its size."""
    size = 0
    for i in range(ns):
        v = sv[i]
        r = rem[k, v]
        size += r
        acc = 1.0
        rho[v, 0] = 1.0
        for j in range(1, DEPTH):
            num = c0[v] - r - j + 1
            den = c0[v] - j + 1
            if num <= 0 or den <= 0:
                acc = 0.0
            else:
                acc *= num / den
            rho[v, j] = acc
    acc = 1.0
    nu[0] = 1.0
    for s in range(1, DEPTH):
        den = n0 - size - s + 1
        if den <= 0:
            acc = 0.0
        else:
            acc *= (n0 - s + 1) / den
        nu[s] = acc


@njit(cache=True)
def _direct(c0: np.ndarray, rem: np.ndarray, k0: int, k1: int, sv: np.ndarray, ns: int,
            n0: int, m: np.ndarray, size: np.ndarray, outcome: np.ndarray,
            base: np.ndarray, rho: np.ndarray, nu: np.ndarray, out: np.ndarray) -> None:
    """Laws ``k0..k1`` term by term (a few laws: cheaper than adding the terms first)."""
    for k in range(k0, k1):
        _factors(c0, rem, k, sv, ns, n0, rho, nu)
        o8 = np.zeros(8)
        for t in range(m.shape[0]):
            x = base[t] * nu[size[t]]
            for i in range(ns):
                x *= rho[sv[i], m[t, sv[i]]]
            o8[outcome[t]] += x
        for o in range(8):
            out[k, o] = o8[o]


@njit(cache=True)
def _aggregate(sv: np.ndarray, ns: int, m: np.ndarray, size: np.ndarray,
               outcome: np.ndarray, base: np.ndarray, tw: np.ndarray, ts: np.ndarray,
               to: np.ndarray, bm: np.ndarray, bstart: np.ndarray) -> int:
    """The terms added up by (counts of the support's values, size, outcome), sorted, in
    ``tw``/``ts``/``to``; blocks of equal support counts in ``bm``/``bstart``. Returns the
    number of blocks."""
    t_all = m.shape[0]
    keys = np.empty(t_all, np.int64)
    for t in range(t_all):
        key = 0
        for i in range(ns):
            key = key * DEPTH + m[t, sv[i]]
        keys[t] = (key * DEPTH + size[t]) * 8 + outcome[t]
    order = np.argsort(keys)
    nt = 0
    nb = 0
    last = -1
    last_block = -1
    for j in range(t_all):
        t = order[j]
        key = keys[t]
        if key != last:
            block = key // (DEPTH * 8)
            if block != last_block:
                for i in range(ns):
                    bm[nb, i] = m[t, sv[i]]
                bstart[nb] = nt
                nb += 1
                last_block = block
            tw[nt] = base[t]
            ts[nt] = size[t]
            to[nt] = outcome[t]
            nt += 1
            last = key
        else:
            tw[nt - 1] += base[t]
    bstart[nb] = nt
    return nb


@njit(cache=True)
def grouped_laws(c0: np.ndarray, rem: np.ndarray, starts: np.ndarray, m: np.ndarray,
                 size: np.ndarray, outcome: np.ndarray, base: np.ndarray,
                 out: np.ndarray) -> None:
    """Joint laws of ``c0 - rem[k]`` into ``out[k]`` (8 outcomes).

    ``rem`` rows are grouped by support: group g is ``rem[starts[g]:starts[g + 1]]``.
    ``m``, ``size``, ``outcome``, ``base``: the dealer's terminal multisets, their card
    counts, outcome indices and probabilities from ``c0``. Within a group the terms are
    added by (counts of the support's values, size, outcome), and those with the same
    counts of the support's values share one product of ``rho`` (a block).
    """
    t_all = m.shape[0]
    n0 = 0
    for v in range(10):
        n0 += c0[v]
    tw = np.empty(t_all)
    ts = np.empty(t_all, np.int64)
    to = np.empty(t_all, np.int64)
    bm = np.empty((t_all, 10), np.int64)
    bstart = np.empty(t_all + 1, np.int64)
    rho = np.ones((10, DEPTH))
    nu = np.empty(DEPTH)
    sv = np.empty(10, np.int64)
    prefix = np.ones(11)
    for g in range(starts.shape[0] - 1):
        k0, k1 = starts[g], starts[g + 1]
        ns = 0
        for v in range(10):
            if rem[k0, v] > 0:
                sv[ns] = v
                ns += 1
        if (k1 - k0) * (ns + 1) <= 24:
            _direct(c0, rem, k0, k1, sv, ns, n0, m, size, outcome, base, rho, nu, out)
            continue
        nb = _aggregate(sv, ns, m, size, outcome, base, tw, ts, to, bm, bstart)
        # where each block first differs from the one before (blocks are sorted, so
        # the product of the values before that is the previous block's)
        diff = np.zeros(nb, np.int64)
        for b in range(1, nb):
            i = 0
            while i < ns and bm[b, i] == bm[b - 1, i]:
                i += 1
            diff[b] = i
        for k in range(k0, k1):
            _factors(c0, rem, k, sv, ns, n0, rho, nu)
            o8 = np.zeros(8)
            for b in range(nb):
                for i in range(diff[b], ns):
                    prefix[i + 1] = prefix[i] * rho[sv[i], bm[b, i]]
                prod = prefix[ns]
                if prod == 0.0:
                    continue
                for u in range(bstart[b], bstart[b + 1]):
                    o8[to[u]] += prod * tw[u] * nu[ts[u]]
            for o in range(8):
                out[k, o] = o8[o]
