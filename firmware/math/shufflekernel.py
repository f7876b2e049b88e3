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
order); the caller keeps what is left over (and a pending high half) for the next call,
so a run of shoes reads the generator's stream exactly as repeated ``rng.shuffle`` would.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def shuffles(deck: np.ndarray, raw: np.ndarray, pos: int, half: int, has_half: int,
             out: np.ndarray) -> tuple[int, int, int, int]:  # pragma: no cover - compiled
    """Shuffle copies of ``deck`` into the rows of ``out`` (the first ``out.shape[1]``
    cards of each kept), drawing from ``raw[pos:]`` after the pending ``half``.

    Returns (shoes made, pos, half, has_half) as they stand after the last whole shoe:
    a shoe the raw values ran out in the middle of is not counted and its draws are
    given back (the caller draws more and calls again)."""
    n = deck.shape[0]
    keep = out.shape[1]
    shoe = np.empty(n, np.int64)
    made = 0
    total = raw.shape[0]
    while made < out.shape[0]:
        p, h, has = pos, half, has_half
        for k in range(n):
            shoe[k] = deck[k]
        ok = True
        for i in range(n - 1, 0, -1):
            mask = i
            mask |= mask >> 1
            mask |= mask >> 2
            mask |= mask >> 4
            mask |= mask >> 8
            mask |= mask >> 16
            while True:
                if has:
                    v = h
                    has = 0
                else:
                    if p >= total:
                        ok = False
                        break
                    r = raw[p]
                    p += 1
                    v = np.int64(r & np.uint64(0xFFFFFFFF))  # type: ignore[assignment]
                    h = np.int64(r >> np.uint64(32))  # type: ignore[assignment]
                    has = 1
                v &= mask
                if v <= i:
                    break
            if not ok:
                break
            t = shoe[i]
            shoe[i] = shoe[v]
            shoe[v] = t
        if not ok:
            break
        for k in range(keep):
            out[made, k] = shoe[k]
        made += 1
        pos, half, has_half = p, h, has
    return made, pos, half, has_half
