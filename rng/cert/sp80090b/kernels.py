"""The sequential parts of the estimators, compiled with numba.

The predictors (90B 6.3.7-6.3.10) are inherently sequential: each prediction depends on
every sample before it. numba compiles them to machine code (the alternative, a C
extension, would need a compiler on every lab machine). The compiled code is cached out
of the program's directory, in ``$NUMBA_CACHE_DIR`` or the lab cache (``$ETG_CACHE_DIR``,
else ``$XDG_CACHE_HOME/etg``, ``~/.cache/etg``) under ``numba/``, so an installed
release's files stay exactly what was signed.

Conventions follow the reference tool where the standard leaves a choice: ties between
subpredictors go to the one updated last (scoreboard ``>=``), a most-common value ties
to the most recent one in the window (MultiMCW) or to the larger value (MultiMMC,
LZ78Y); LZ78Y prefers the longest context among equal counts.
"""

from __future__ import annotations

import os
from pathlib import Path

import numba
import numpy as np

if not os.environ.get("NUMBA_CACHE_DIR"):
    _base = os.environ.get("ETG_CACHE_DIR") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "etg")
    numba.config.CACHE_DIR = str(Path(_base) / "numba")  # type: ignore[attr-defined]

njit = numba.njit(cache=True, nogil=True)

MMC_D = 16
MMC_MAX_ENTRIES = 100_000
LZ_B = 16
LZ_MAX_DICT = 65_536
LAG_D = 128
MCW_WINDOWS = (63, 255, 1023, 4095)


@njit
def collision_walk(s):  # type: ignore[no-untyped-def]
    i, n, two, three = 0, s.size, 0, 0
    while i + 1 < n:
        if s[i] == s[i + 1]:
            two += 1
            i += 2
        elif i + 2 < n:
            three += 1
            i += 3
        else:
            break
    return two, three


@njit
def multi_mcw(s, k):  # type: ignore[no-untyped-def]
    """(C, N, longest run of correct predictions) of the MultiMCW predictor."""
    wins = np.array([63, 255, 1023, 4095], dtype=np.int64)
    nw = 4
    n = s.size
    counts = np.zeros((nw, k), dtype=np.int64)
    last = np.full((nw, k), -1, dtype=np.int64)
    freq = np.zeros(nw, dtype=np.int64)
    maxc = np.zeros(nw, dtype=np.int64)
    score = np.zeros(nw, dtype=np.int64)
    winner = 0
    c = run = best = 0
    for i in range(n):
        x = s[i]
        if i >= wins[0]:
            if freq[winner] == x:
                c += 1
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
            for j in range(nw):
                if i >= wins[j] and freq[j] == x:
                    score[j] += 1
                    if score[j] >= score[winner]:
                        winner = j
        for j in range(nw):
            w = wins[j]
            if i < w:  # still filling the window
                counts[j, x] += 1
                last[j, x] = i
                if counts[j, x] >= maxc[j]:
                    maxc[j] = counts[j, x]
                    freq[j] = x
                continue
            old = s[i - w]
            counts[j, old] -= 1
            counts[j, x] += 1
            last[j, x] = i
            if old != freq[j]:
                if counts[j, x] >= maxc[j]:
                    maxc[j] = counts[j, x]
                    freq[j] = x
            else:
                bc, bp, bv = -1, -1, 0
                for v in range(k):
                    cv = counts[j, v]
                    if cv > bc or (cv == bc and last[j, v] > bp):
                        bc, bp, bv = cv, last[j, v], v
                maxc[j] = bc
                freq[j] = bv
    return c, n - wins[0], best


@njit
def lag(s):  # type: ignore[no-untyped-def]
    """(C, N, longest run) of the lag predictor (lags 1..128)."""
    n = s.size
    score = np.zeros(LAG_D + 1, dtype=np.int64)
    winner = 1
    c = run = best = 0
    for i in range(1, n):
        x = s[i]
        if s[i - winner] == x:
            c += 1
            run += 1
            if run > best:
                best = run
        else:
            run = 0
        top = LAG_D if i >= LAG_D else i
        for d in range(1, top + 1):
            if s[i - d] == x:
                score[d] += 1
                if score[d] >= score[winner]:
                    winner = d
    return c, n - 1, best


@njit
def _mix(lo, hi, tag):  # type: ignore[no-untyped-def]
    h = lo ^ ((hi << np.uint64(29)) | (hi >> np.uint64(35))) ^ (tag * np.uint64(0x9E3779B97F4A7C15))
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@njit
def _ctx_slot(klo, khi, ktag, kid, lo, hi, tag):  # type: ignore[no-untyped-def]
    """The slot of (lo, hi, tag) in the open-addressing table: its own or the empty one."""
    mask = np.uint64(klo.size - 1)
    j = _mix(lo, hi, np.uint64(tag)) & mask
    while kid[j] >= 0:
        if klo[j] == lo and khi[j] == hi and ktag[j] == tag:
            return j
        j = (j + np.uint64(1)) & mask
    return j


@njit
def _pair_slot(pkey, key):  # type: ignore[no-untyped-def]
    mask = np.uint64(pkey.size - 1)
    j = _mix(np.uint64(key), np.uint64(0), np.uint64(7)) & mask
    while pkey[j] >= 0:
        if pkey[j] == key:
            return j
        j = (j + np.uint64(1)) & mask
    return j


def table_size(items: int) -> int:
    """A power of two at least twice ``items`` (load factor <= 1/2)."""
    size = 1024
    while size < 2 * items:
        size <<= 1
    return size


@njit
def _put(symbol, pos, lo, hi):  # type: ignore[no-untyped-def]
    """Symbol at context position ``pos`` (0 = most recent) into the 128-bit key."""
    if pos < 8:
        lo |= np.uint64(symbol) << np.uint64(8 * pos)
    else:
        hi |= np.uint64(symbol) << np.uint64(8 * (pos - 8))
    return lo, hi


@njit
def multi_mmc(s, k, cap):  # type: ignore[no-untyped-def]
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
    nctx = 0
    big = n - 2
    for d in range(MMC_D):  # each order's first (context, successor) pair
        if d < big:
            lo = np.uint64(0)
            hi = np.uint64(0)
            for t in range(d + 1):
                lo, hi = _put(s[d - t], t, lo, hi)
            j = _ctx_slot(klo, khi, ktag, kid, lo, hi, d)
            klo[j], khi[j], ktag[j], kid[j] = lo, hi, d, nctx
            y = s[d + 1]
            pj = _pair_slot(pkey, nctx * 256 + y)
            pkey[pj] = nctx * 256 + y
            pcnt[pj] = 1
            best_y[nctx], best_c[nctx] = y, 1
            nctx += 1
            entries[d] = 1
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
            lo, hi = _put(s[i - d - 1], d, lo, hi)
            j = _ctx_slot(klo, khi, ktag, kid, lo, hi, d)
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
                pj = _pair_slot(pkey, ctx * 256 + x)
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
                pj = _pair_slot(pkey, nctx * 256 + x)
                pkey[pj] = nctx * 256 + x
                pcnt[pj] = 1
                best_y[nctx], best_c[nctx] = x, 1
                nctx += 1
                entries[d] += 1
    return c, n - 2, best


@njit
def multi_mmc_binary(s):  # type: ignore[no-untyped-def]
    """MultiMMC on a bitstring: every context of m <= 16 bits has its own two counters."""
    n = s.size
    offset = np.zeros(MMC_D + 1, dtype=np.int64)  # order d: 2^(d+1) contexts from offset[d]
    for m in range(1, MMC_D + 1):
        offset[m] = offset[m - 1] + (1 << m)
    c0 = np.zeros(offset[MMC_D], dtype=np.int64)
    c1 = np.zeros(offset[MMC_D], dtype=np.int64)
    entries = np.zeros(MMC_D, dtype=np.int64)
    score = np.zeros(MMC_D, dtype=np.int64)
    for d in range(MMC_D):
        if d < n - 2:
            pat = 0
            for t in range(d + 1):
                pat |= np.int64(s[d - t]) << t
            j = offset[d] + pat
            if s[d + 1]:
                c1[j] = 1
            else:
                c0[j] = 1
            entries[d] = 1
    winner = 0
    c = run = best = 0
    for i in range(2, n):
        x = s[i]
        cur = winner
        found = False
        pat = 0
        top = MMC_D if i - 2 >= MMC_D - 1 else i - 1
        for d in range(top):
            pat |= np.int64(s[i - d - 1]) << d
            j = offset[d] + pat
            a, b = c0[j], c1[j]
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
            have = b if x else a
            if have > 0:
                if x:
                    c1[j] += 1
                else:
                    c0[j] += 1
            elif entries[d] < MMC_MAX_ENTRIES:
                if x:
                    c1[j] = 1
                else:
                    c0[j] = 1
                entries[d] += 1
    return c, n - 2, best


@njit
def lz78y(s, k, cap):  # type: ignore[no-untyped-def]
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
            lo, hi = _put(s[LZ_B - 1 - t], t, lo, hi)
        j = _ctx_slot(klo, khi, ktag, kid, lo, hi, m)
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
            lo, hi = _put(s[i - 1 - t], t, lo, hi)
            los[t + 1], his[t + 1] = lo, hi
        have = False
        pred = 0
        maxc = 0
        for m in range(LZ_B, 0, -1):
            j = _ctx_slot(klo, khi, ktag, kid, los[m], his[m], m)
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
def lz78y_binary(s):  # type: ignore[no-untyped-def]
    """LZ78Y on a bitstring: every context of m <= 16 bits has its own two counters."""
    n = s.size
    offset = np.zeros(LZ_B + 2, dtype=np.int64)
    for m in range(1, LZ_B + 2):
        offset[m] = offset[m - 1] + (1 << (m - 1))
    c0 = np.zeros(offset[LZ_B + 1], dtype=np.int64)
    c1 = np.zeros(offset[LZ_B + 1], dtype=np.int64)
    nctx = 0
    for m in range(1, LZ_B + 1):
        pat = 0
        for t in range(m):
            pat |= np.int64(s[LZ_B - 1 - t]) << t
        j = offset[m] + pat
        if s[LZ_B]:
            c1[j] = 1
        else:
            c0[j] = 1
        nctx += 1
    c = run = best = 0
    pats = np.zeros(LZ_B + 1, dtype=np.int64)
    for i in range(LZ_B + 1, n):
        x = s[i]
        pat = 0
        for t in range(LZ_B):
            pat |= np.int64(s[i - 1 - t]) << t
            pats[t + 1] = pat
        have = False
        pred = 0
        maxc = 0
        for m in range(LZ_B, 0, -1):
            j = offset[m] + pats[m]
            a, b = c0[j], c1[j]
            if a > 0 or b > 0:
                cnt = a if a > b else b
                if cnt > maxc:
                    maxc = cnt
                    pred = 0 if a > b else 1
                    have = True
                if x:
                    c1[j] += 1
                else:
                    c0[j] += 1
            elif nctx < LZ_MAX_DICT:
                if x:
                    c1[j] = 1
                else:
                    c0[j] = 1
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
def kasai(s, sa):  # type: ignore[no-untyped-def]
    """lcp[i] = the longest common prefix of suffixes sa[i-1] and sa[i] (lcp[0] = 0)."""
    n = s.size
    rank = np.empty(n, dtype=np.int64)
    for i in range(n):
        rank[sa[i]] = i
    lcp = np.zeros(n, dtype=np.int64)
    h = 0
    for i in range(n):
        r = rank[i]
        if r > 0:
            j = sa[r - 1]
            while i + h < n and j + h < n and s[i + h] == s[j + h]:
                h += 1
            lcp[r] = h
            if h > 0:
                h -= 1
        else:
            h = 0
    return lcp


@njit
def tuple_counts(lcp, top):  # type: ignore[no-untyped-def]
    """For W = 1..top: the count of the most common W-tuple and the number of pairs of
    equal W-tuples (sum of C(count, 2)), from the LCP array (its lcp-interval tree)."""
    n = lcp.size
    maxc = np.ones(top + 2, dtype=np.int64)
    diff = np.zeros(top + 2, dtype=np.int64)
    st_l = np.zeros(n + 1, dtype=np.int64)
    st_b = np.zeros(n + 1, dtype=np.int64)
    sp = 0
    st_l[0], st_b[0] = 0, 0
    for i in range(1, n + 1):
        h = lcp[i] if i < n else 0
        lb = i - 1
        while h < st_l[sp]:
            ell, left = st_l[sp], st_b[sp]
            sp -= 1
            size = i - left
            parent = h if h > st_l[sp] else st_l[sp]
            pairs = size * (size - 1) // 2
            a = parent + 1
            b = ell if ell < top else top
            if a <= b:
                diff[a] += pairs
                diff[b + 1] -= pairs
                for w in range(a, b + 1):
                    if size > maxc[w]:
                        maxc[w] = size
            lb = left
        if h > st_l[sp]:
            sp += 1
            st_l[sp], st_b[sp] = h, lb
    pairs_w = np.cumsum(diff)
    return maxc, pairs_w


@njit
def compression_g(z, nb, d):  # type: ignore[no-untyped-def]
    """v G(z) of 90B 6.3.4 (v = nb - d), summed by u: z^2 (1-z)^(u-1) log2(u) for every
    t in [d+1, nb] with t > u, plus z (1-z)^(t-1) log2(t) for t in [d+1, nb]. The powers
    are carried by multiplication and renewed from exp every 256 terms (no drift); the
    sum stops where they underflow."""
    lq = np.log1p(-z) if z < 1.0 else -np.inf
    first = 0.0
    second = 0.0
    power = 1.0
    inv_ln2 = 1.0 / np.log(2.0)
    step = np.exp(lq) if z < 1.0 else 0.0
    for u in range(1, nb + 1):
        if (u - 1) & 255 == 0 and z < 1.0:
            power = np.exp((u - 1) * lq)
        if power < 1e-300:
            break
        lg = np.log(float(u)) * inv_ln2
        if u < nb:
            later = nb - (u if u > d else d)
            first += lg * later * power
        if u >= d + 1:
            second += lg * power
        power *= step
    return z * z * first + z * second


@njit
def packed_keys(s, width, per):  # type: ignore[no-untyped-def]
    """keys[i] = s[i .. i+per-1] packed, ``width`` bits each, first symbol highest;
    symbols past the end are 0."""
    n = s.size
    keys = np.empty(n, dtype=np.uint64)
    w = np.uint64(width)
    total = width * per
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) if total == 64 else \
        (np.uint64(1) << np.uint64(total)) - np.uint64(1)
    key = np.uint64(0)
    for t in range(per):
        sym = np.uint64(s[t]) if t < n else np.uint64(0)
        key = (key << w) | sym
    for i in range(n):
        keys[i] = key
        j = i + per
        sym = np.uint64(s[j]) if j < n else np.uint64(0)
        key = ((key << w) | sym) & mask
    return keys


@njit
def neighbour_lcp(sorted_keys, sa, width, n):  # type: ignore[no-untyped-def]
    """The LCP of neighbours in the suffix array from their packed keys (valid when no two
    keys are equal): leading equal bits // width, at most the shorter suffix's length.
    Returns (lcp, True) or (lcp, False) when two neighbours' keys are equal."""
    m = sorted_keys.size
    lcp = np.zeros(m, dtype=np.int64)
    for i in range(1, m):
        x = sorted_keys[i] ^ sorted_keys[i - 1]
        if x == 0:
            return lcp, False
        lead = 0
        while (x >> np.uint64(63 - lead)) & np.uint64(1) == 0:
            lead += 1
        h = lead // width
        a = n - sa[i]
        b = n - sa[i - 1]
        short = a if a < b else b
        lcp[i] = h if h < short else short
    return lcp, True
