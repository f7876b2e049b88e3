"""The LZ78Y predictor (90B 6.3.10), compiled: contexts of 1..16 symbols, a dictionary
of at most 65,536 entries; equal counts go to the longest context, a context's
prediction ties to the larger value, as the reference does.
"""

from __future__ import annotations

import numpy as np

from rng.cert.sp80090b.kernels.hashing import ctx_slot, put_symbol
from rng.cert.sp80090b.kernels.jit import njit

LZ_B = 16
LZ_MAX_DICT = 65_536


@njit
def lz78y(s, k, cap):
    """(C, N, longest run) of the LZ78Y predictor (contexts of 1..16), any alphabet."""
    n = s.size
    klo = np.zeros(cap, dtype=np.uint64)
    khi = np.zeros(cap, dtype=np.uint64)
    ktag = np.zeros(cap, dtype=np.int64)
    kid = np.full(cap, -1, dtype=np.int64)
    counts = np.zeros((LZ_MAX_DICT + LZ_B, k), dtype=np.int32)
    best_y = np.zeros(LZ_MAX_DICT + LZ_B, dtype=np.int64)
    best_c = np.zeros(LZ_MAX_DICT + LZ_B, dtype=np.int64)
    los = np.zeros(LZ_B + 1, dtype=np.uint64)
    his = np.zeros(LZ_B + 1, dtype=np.uint64)
    nctx = 0
    for m in range(1, LZ_B + 1):  # contexts s[16-m..15] with the successor s[16]
        lo = np.uint64(0)
        hi = np.uint64(0)
        for t in range(m):
            lo, hi = put_symbol(s[LZ_B - 1 - t], t, lo, hi)
        j = ctx_slot(klo, khi, ktag, kid, lo, hi, m)
        klo[j], khi[j], ktag[j], kid[j] = lo, hi, m, nctx
        y = s[LZ_B]
        counts[nctx, y] = 1
        best_y[nctx], best_c[nctx] = y, 1
        nctx += 1
    c = run = best = 0
    for i in range(LZ_B + 1, n):
        x = s[i]
        lo = np.uint64(0)
        hi = np.uint64(0)
        for t in range(LZ_B):
            lo, hi = put_symbol(s[i - 1 - t], t, lo, hi)
            los[t + 1], his[t + 1] = lo, hi
        have = False
        pred = 0
        maxc = 0
        for m in range(LZ_B, 0, -1):
            j = ctx_slot(klo, khi, ktag, kid, los[m], his[m], m)
            if kid[j] >= 0:
                ctx = kid[j]
                if best_c[ctx] > maxc:
                    maxc = best_c[ctx]
                    pred = best_y[ctx]
                    have = True
                counts[ctx, x] += 1
                cnt = counts[ctx, x]
                if cnt > best_c[ctx] or (cnt == best_c[ctx] and x > best_y[ctx]):
                    best_c[ctx], best_y[ctx] = cnt, x
            elif nctx < LZ_MAX_DICT:
                klo[j], khi[j], ktag[j], kid[j] = los[m], his[m], m, nctx
                counts[nctx, x] = 1
                best_y[nctx], best_c[nctx] = x, 1
                nctx += 1
        if have and pred == x:
            c += 1
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return c, n - LZ_B - 1, best


@njit
def lz78y_binary(s):
    """LZ78Y on a bitstring: every context of m <= 16 bits has its own two counters (side
    by side, int32); the last 16 bits are one number, whose low m bits are the context
    of length m."""
    n = s.size
    offset = np.zeros(LZ_B + 2, dtype=np.int64)
    for m in range(1, LZ_B + 2):
        offset[m] = offset[m - 1] + (1 << (m - 1))
    cnt = np.zeros(2 * offset[LZ_B + 1], dtype=np.int32)  # [2j]: 0s after j, [2j+1]: 1s
    hist = np.int64(0)
    for t in range(LZ_B):
        hist |= np.int64(s[LZ_B - 1 - t]) << t
    nctx = 0
    for m in range(1, LZ_B + 1):
        cnt[2 * (offset[m] + (hist & ((1 << m) - 1))) + s[LZ_B]] = 1
        nctx += 1
    c = run = best = 0
    for i in range(LZ_B + 1, n):
        x = s[i]
        hist = ((hist << 1) | s[i - 1]) & 0xFFFF
        have = False
        pred = 0
        maxc = 0
        for m in range(LZ_B, 0, -1):
            j = 2 * (offset[m] + (hist & ((1 << m) - 1)))
            a, b = cnt[j], cnt[j + 1]
            if a > 0 or b > 0:
                top = a if a > b else b
                if top > maxc:
                    maxc = top
                    pred = 0 if a > b else 1
                    have = True
                cnt[j + x] += 1
            elif nctx < LZ_MAX_DICT:
                cnt[j + x] = 1
                nctx += 1
        if have and pred == x:
            c += 1
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return c, n - LZ_B - 1, best
