"""The MultiMMC predictor (90B 6.3.9), compiled: orders 1..16, at most 100,000 entries
per order; a context's prediction ties to the larger value, as the reference does.
"""

from __future__ import annotations

import numpy as np

from rng.cert.sp80090b.kernels.hashing import ctx_slot, pair_slot, put_symbol
from rng.cert.sp80090b.kernels.jit import njit

MMC_D = 16
MMC_MAX_ENTRIES = 100_000


@njit
def _seed(s, klo, khi, ktag, kid, pkey, pcnt, best_y, best_c, entries):
    """Each order's first (context, successor) pair; returns the number of contexts."""
    nctx = 0
    big = s.size - 2
    for d in range(MMC_D):
        if d < big:
            lo = np.uint64(0)
            hi = np.uint64(0)
            for t in range(d + 1):
                lo, hi = put_symbol(s[d - t], t, lo, hi)
            j = ctx_slot(klo, khi, ktag, kid, lo, hi, d)
            klo[j], khi[j], ktag[j], kid[j] = lo, hi, d, nctx
            y = s[d + 1]
            pj = pair_slot(pkey, nctx * 256 + y)
            pkey[pj] = nctx * 256 + y
            pcnt[pj] = 1
            best_y[nctx], best_c[nctx] = y, 1
            nctx += 1
            entries[d] = 1
    return nctx


@njit
def multi_mmc(s, k, cap):
    """(C, N, longest run) of the MultiMMC predictor (orders 1..16), any alphabet."""
    n = s.size
    klo = np.zeros(cap, dtype=np.uint64)
    khi = np.zeros(cap, dtype=np.uint64)
    ktag = np.zeros(cap, dtype=np.int64)
    kid = np.full(cap, -1, dtype=np.int64)
    pkey = np.full(cap, -1, dtype=np.int64)
    pcnt = np.zeros(cap, dtype=np.int64)
    best_y = np.zeros(cap // 2 + 1, dtype=np.int64)
    best_c = np.zeros(cap // 2 + 1, dtype=np.int64)
    entries = np.zeros(MMC_D, dtype=np.int64)
    score = np.zeros(MMC_D, dtype=np.int64)
    nctx = _seed(s, klo, khi, ktag, kid, pkey, pcnt, best_y, best_c, entries)
    winner = 0
    c = run = best = 0
    for i in range(2, n):
        x = s[i]
        cur = winner
        found = False
        lo = np.uint64(0)
        hi = np.uint64(0)
        top = MMC_D if i - 2 >= MMC_D - 1 else i - 1
        for d in range(top):
            lo, hi = put_symbol(s[i - d - 1], d, lo, hi)
            j = ctx_slot(klo, khi, ktag, kid, lo, hi, d)
            exists = kid[j] >= 0
            if d == 0 or found:
                found = exists
            if found:
                ctx = kid[j]
                if best_y[ctx] == x:
                    score[d] += 1
                    if score[d] >= score[winner]:
                        winner = d
                    if d == cur:
                        c += 1
                        run += 1
                        if run > best:
                            best = run
                elif d == cur:
                    run = 0
            if exists:
                ctx = kid[j]
                pj = pair_slot(pkey, ctx * 256 + x)
                if pkey[pj] >= 0:
                    pcnt[pj] += 1
                elif entries[d] < MMC_MAX_ENTRIES:
                    pkey[pj] = ctx * 256 + x
                    pcnt[pj] = 1
                    entries[d] += 1
                else:
                    continue
                cnt = pcnt[pj]
                if cnt > best_c[ctx] or (cnt == best_c[ctx] and x > best_y[ctx]):
                    best_c[ctx], best_y[ctx] = cnt, x
            elif entries[d] < MMC_MAX_ENTRIES:
                klo[j], khi[j], ktag[j], kid[j] = lo, hi, d, nctx
                pj = pair_slot(pkey, nctx * 256 + x)
                pkey[pj] = nctx * 256 + x
                pcnt[pj] = 1
                best_y[nctx], best_c[nctx] = x, 1
                nctx += 1
                entries[d] += 1
    return c, n - 2, best


@njit
def multi_mmc_binary(s):
    """MultiMMC on a bitstring: every context of m <= 16 bits has its own two counters
    (side by side, int32: the tables stay in cache); the last 16 bits are kept as one
    number, whose low m bits are the context of order m."""
    n = s.size
    offset = np.zeros(MMC_D + 1, dtype=np.int64)  # order d: 2^(d+1) contexts from offset[d]
    for m in range(1, MMC_D + 1):
        offset[m] = offset[m - 1] + (1 << m)
    cnt = np.zeros(2 * offset[MMC_D], dtype=np.int32)  # [2j]: 0s after context j, [2j+1]: 1s
    entries = np.zeros(MMC_D, dtype=np.int64)
    score = np.zeros(MMC_D, dtype=np.int64)
    for d in range(MMC_D):
        if d < n - 2:
            pat = np.int64(0)
            for t in range(d + 1):
                pat |= np.int64(s[d - t]) << t
            cnt[2 * (offset[d] + pat) + s[d + 1]] = 1
            entries[d] = 1
    winner = 0
    c = run = best = 0
    hist = np.int64(s[0]) if n > 0 else np.int64(0)
    for i in range(2, n):
        x = s[i]
        hist = ((hist << 1) | s[i - 1]) & 0xFFFF
        cur = winner
        found = False
        top = MMC_D if i - 2 >= MMC_D - 1 else i - 1
        for d in range(top):
            j = 2 * (offset[d] + (hist & ((2 << d) - 1)))
            a, b = cnt[j], cnt[j + 1]
            exists = a > 0 or b > 0
            if d == 0 or found:
                found = exists
            if found:
                pred = 0 if a > b else 1
                if pred == x:
                    score[d] += 1
                    if score[d] >= score[winner]:
                        winner = d
                    if d == cur:
                        c += 1
                        run += 1
                        if run > best:
                            best = run
                elif d == cur:
                    run = 0
            if cnt[j + x] > 0:
                cnt[j + x] += 1
            elif entries[d] < MMC_MAX_ENTRIES:
                cnt[j + x] = 1
                entries[d] += 1
    return c, n - 2, best
