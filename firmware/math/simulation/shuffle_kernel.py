"""numpy's ``Generator.shuffle`` of a shoe, compiled (numba), many shoes per call.

Why: `etg rtp` through the engine shuffles a fresh six-deck shoe every round; numpy's
shuffle of 312 cards costs about 5 µs, most of it the call around a loop of 1.5 µs. This
is the same Fisher-Yates on the same bits, so each shoe is exactly the permutation
``rng.shuffle`` gives (tests/math/test_math_rtp_pinned.py pins the figures bit for bit):

* numpy (``_shuffle_raw``): for i = n-1 down to 1, j = random_interval(i), swap x[i], x[j];
* random_interval(i): mask = the smallest 2^k - 1 >= i, draw 32-bit values masked until
  one is <= i;
* a 32-bit draw of PCG64 is the low half of a 64-bit output, the next one its high half.

The 64-bit outputs come from ``bit_generator.random_raw`` (the same outputs in the same
order), read here as their 32-bit halves; the caller keeps what is left over (a pending
high half included) for the next call, so a run of shoes reads the generator's stream
exactly as repeated ``rng.shuffle`` would.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def shuffles(deck: np.ndarray, draws: np.ndarray, pos: int, masks: np.ndarray,
             out: np.ndarray) -> tuple[int, int]:  # pragma: no cover - compiled
    """Shuffle copies of ``deck`` into the rows of ``out`` (the first ``out.shape[1]``
    cards of each kept), reading the 32-bit draws ``draws[pos:]`` (the generator's 64-bit
    outputs viewed as uint32 on a little-endian machine: low half, then high half, the
    order PCG64 hands them out); ``masks[i]`` is the smallest 2^k - 1 >= i.

    Returns (shoes made, pos after the last whole shoe): a shoe the draws ran out in the
    middle of is not counted and its draws are given back (the caller adds more)."""
    n = deck.shape[0]
    keep = out.shape[1]
    shoe = np.empty(n, np.int64)
    made = 0
    total = draws.shape[0]
    while made < out.shape[0]:
        p = pos
        for k in range(n):
            shoe[k] = deck[k]
        i = n - 1
        while i > 0:
            mask = masks[i]
            while p < total:
                v = draws[p] & mask
                p += 1
                if v <= i:
                    break
            else:
                return made, pos
            t = shoe[i]
            shoe[i] = shoe[v]
            shoe[v] = t
            i -= 1
        for k in range(keep):
            out[made, k] = shoe[k]
        made += 1
        pos = p
    return made, pos
