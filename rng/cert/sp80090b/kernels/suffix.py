"""The suffix array and its LCP array for the t-tuple and LRS estimates (90B 6.3.5-6.3.6).

The suffixes are first sorted by a packed key of their first symbols (a radix sort), and
sorted further only where two long suffixes share a key; Kasai's algorithm gives the LCP
from any suffix array; the tuple counts for every width come from the lcp-interval tree.
"""

from __future__ import annotations

import numpy as np

from rng.cert.sp80090b.kernels.jit import njit


@njit
def kasai(s, sa):
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
def tuple_counts(lcp, top):
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
def packed_keys(s, width, per):
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
def neighbour_lcp(sorted_keys, sa, width, per, n):
    """The LCP of neighbours in the suffix array from their packed keys.

    Equal keys are fine when at most one of them belongs to a suffix of at least ``per``
    symbols: the others are shorter suffixes that matched padding zeros, each a prefix of
    the next longer one, so they are put in order of length (``sa`` is reordered in place)
    and their LCP is the shorter length. Returns (lcp, False) when two suffixes of
    ``per`` symbols or more share a key (a repeat longer than the key: sort further)."""
    m = sorted_keys.size
    i = 0
    while i < m:  # runs of equal keys
        j = i + 1
        while j < m and sorted_keys[j] == sorted_keys[i]:
            j += 1
        if j - i > 1:
            long = 0
            for t in range(i, j):
                if n - sa[t] >= per:
                    long += 1
            if long > 1:
                return np.zeros(1, dtype=np.int64), False
            run = np.sort(sa[i:j])[::-1]
            sa[i:j] = run
        i = j
    lcp = np.zeros(m, dtype=np.int64)
    for i in range(1, m):
        a = n - sa[i]
        b = n - sa[i - 1]
        short = a if a < b else b
        x = sorted_keys[i] ^ sorted_keys[i - 1]
        if x == 0:
            lcp[i] = short
            continue
        lead = 0
        while (x >> np.uint64(63 - lead)) & np.uint64(1) == 0:
            lead += 1
        h = lead // width
        lcp[i] = h if h < short else short
    return lcp, True


@njit
def radix_argsort(keys):
    """The permutation that sorts uint64 ``keys`` stably (equal keys by index): one pass
    places every index in the bucket of its key's top 16 bits (in index order), then
    each bucket is sorted by the whole key, by insertion when it is small (random keys
    give about 15 a bucket) and by merge sort when not (a source with little entropy
    fills few buckets). One scatter instead of an LSD radix sort's four."""
    n = keys.size
    count = np.zeros(65537, dtype=np.int64)
    for i in range(n):
        count[(keys[i] >> np.uint64(48)) + np.uint64(1)] += 1
    for b in range(65536):
        count[b + 1] += count[b]
    pos = count.copy()
    idx = np.empty(n, dtype=np.int64)
    ks = np.empty(n, dtype=np.uint64)  # the keys in bucket order: the sorts stay local
    for i in range(n):
        b = keys[i] >> np.uint64(48)
        idx[pos[b]] = i
        ks[pos[b]] = keys[i]
        pos[b] += 1
    for b in range(65536):
        lo, hi = count[b], count[b + 1]
        if hi - lo <= 1:
            continue
        if hi - lo <= 32:
            for a in range(lo + 1, hi):
                v = idx[a]
                kv = ks[a]
                j = a - 1
                while j >= lo and ks[j] > kv:
                    idx[j + 1] = idx[j]
                    ks[j + 1] = ks[j]
                    j -= 1
                idx[j + 1] = v
                ks[j + 1] = kv
        else:
            order = np.argsort(ks[lo:hi], kind="mergesort")
            idx[lo:hi] = idx[lo:hi][order]
    return idx
