"""Exact joint dealer laws for many removed multisets at once (every card of a round).

``exact_joint_laws(kind, c0, removed, up, h17)`` gives, for each row of ``removed``,
P(outcome and no dealer Blackjack) of the shoe ``c0 - removed`` (``c0``: the shoe less
the up card), with P(Blackjack) as the last entry, as
:func:`firmware.math.dealer.many_shoes.joint_laws` does for one composition: the law a
card-removal calculation needs, since the player's cards change the Blackjack
probability too. The compiled kernel
(:mod:`firmware.math.dealer.removed_cards_kernel`, numba; compiled ahead of time by
``make setup`` so that no numba is imported) does it in about 5 microseconds a law;
without numba the same laws come from the numpy
implementation, about twenty times slower.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from firmware.math.dealer.many_shoes import joint_laws, paths


def _kernel() -> Any | None:
    """The compiled kernel: the ahead-of-time build when it is current (no numba to
    import: :mod:`firmware.math.dealer.removed_cards_aot`), else numba's JIT one."""
    from firmware.math.dealer.removed_cards_aot import aot

    mod = aot()
    if mod is not None:
        return mod
    try:
        from firmware.math.cache import load_kernel

        return load_kernel("firmware.math.dealer.removed_cards_kernel")
    except ImportError:  # numba missing: the numpy laws give the same figures, slower
        return None


def _base(c0: np.ndarray, m: np.ndarray, size: np.ndarray, ways: np.ndarray) -> np.ndarray:
    """Each dealer term's probability from ``c0``: ways * falling(c0, m) / falling(N0, |m|)."""
    c = np.asarray(c0, dtype=np.float64)
    top = int(max(m.max(), size.max())) + 1
    logs = np.zeros(m.shape[0])
    for v in range(10):
        steps = c[v] - np.arange(top - 1)
        cum = np.concatenate([[0.0], np.cumsum(np.log(np.maximum(steps, 1e-300)))])
        logs += cum[m[:, v]]
        logs[m[:, v] > c[v]] = -np.inf
    n = c.sum()
    cum_n = np.concatenate([[0.0], np.cumsum(np.log(n - np.arange(top - 1)))])
    return ways * np.exp(logs - cum_n[size])


def exact_joint_laws(kind: str, c0: np.ndarray, removed: np.ndarray, up: int, h17: bool
                     ) -> np.ndarray:
    """(K, 8) joint laws of ``c0 - removed`` (K, 10); a value short of cards gives 0."""
    removed = np.asarray(removed, dtype=np.int64)
    if removed.ndim == 1:
        removed = removed[None, :]
    k = _kernel()
    if k is None or removed.shape[0] < 8:
        comps = np.maximum(np.asarray(c0, dtype=np.int64)[None, :] - removed, 0)
        return joint_laws(kind, comps, up, h17)
    p = paths(up, h17)
    c0 = np.ascontiguousarray(c0, dtype=np.int64)
    code = ((removed > 0) * (1 << np.arange(10))).sum(axis=1)
    order = np.argsort(code, kind="stable")
    rem = np.ascontiguousarray(removed[order])
    cs = code[order]
    starts = np.concatenate([[0], np.nonzero(np.diff(cs))[0] + 1, [len(cs)]]).astype(np.int64)
    out = np.zeros((rem.shape[0], 8))
    k.grouped_laws(c0, rem, starts, np.ascontiguousarray(p.m, dtype=np.int64),
                   np.ascontiguousarray(p.size, dtype=np.int64),
                   np.ascontiguousarray(p.outcome, dtype=np.int64),
                   np.ascontiguousarray(_base(c0, p.m, p.size, p.ways), dtype=np.float64), out)
    res = np.empty_like(out)
    res[order] = out
    return res


__all__ = ["exact_joint_laws"]
