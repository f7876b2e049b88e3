"""The MultiMCW and lag predictors (90B 6.3.7, 6.3.8), compiled.

Each prediction depends on every sample before it, so these are sequential loops.
A most-common value ties to the most recent one in the window (MultiMCW); ties between
subpredictors go to the one updated last (scoreboard ``>=``), as the reference does.
"""

from __future__ import annotations

import numpy as np

from rng.cert.sp80090b.kernels.jit import njit

MCW_WINDOWS = (63, 255, 1023, 4095)
LAG_D = 128


@njit
def multi_mcw(s, k):
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
def multi_mcw_binary(s):
    """MultiMCW on bits: a full window of odd length has no tie, so its most common
    value is its majority, kept as a count of ones (what :func:`multi_mcw`'s counts and
    tie rule give on two symbols, without them)."""
    wins = np.array([63, 255, 1023, 4095], dtype=np.int64)
    n = s.size
    ones = np.zeros(4, dtype=np.int64)
    score = np.zeros(4, dtype=np.int64)
    winner = 0
    c = run = best = 0
    for i in range(n):
        x = s[i]
        if i >= wins[0]:
            if (1 if 2 * ones[winner] > wins[winner] else 0) == x:
                c += 1
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
            for j in range(4):
                if i >= wins[j] and (1 if 2 * ones[j] > wins[j] else 0) == x:
                    score[j] += 1
                    if score[j] >= score[winner]:
                        winner = j
        for j in range(4):
            ones[j] += x
            if i >= wins[j]:
                ones[j] -= s[i - wins[j]]
    return c, n - wins[0], best


@njit
def lag_binary(s):
    """The lag predictor on a bitstring, branch-free over the 128 lags: every lag whose
    sample matches scores; the winner becomes the largest such lag that reaches the top
    score (what the sequential rule ``score[d] >= score[winner]``, d ascending, gives)."""
    n = s.size
    if n <= LAG_D + 1:
        return lag(s)
    score = np.zeros(LAG_D + 1, dtype=np.int64)
    winner = 1
    c = run = best = 0
    for i in range(1, LAG_D):  # the first lags, one by one
        x = s[i]
        if s[i - winner] == x:
            c += 1
            run += 1
            if run > best:
                best = run
        else:
            run = 0
        for d in range(1, i + 1):
            if s[i - d] == x:
                score[d] += 1
                if score[d] >= score[winner]:
                    winner = d
    top = score[winner]
    for i in range(LAG_D, n):
        x = s[i]
        if s[i - winner] == x:
            c += 1
            run += 1
            if run > best:
                best = run
        else:
            run = 0
        m = 0
        for d in range(1, LAG_D + 1):
            inc = np.int64(s[i - d] == x)
            v = score[d] + inc
            score[d] = v
            v *= inc
            m = v if v > m else m
        if m >= top:
            for d in range(LAG_D, 0, -1):
                if score[d] == m and s[i - d] == x:
                    winner = d
                    break
            top = m
    return c, n - 1, best


@njit
def lag(s):
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
