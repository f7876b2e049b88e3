"""Every hand a round can hold, as rows of numpy arrays: the unit of the card-removal
calculation of the hitting games.

A hand is valued from its *composition* (the multiset of its cards' values) and the shoe
it was drawn from: the cards it holds are out of the shoe for its next card and for the
dealer. A :class:`Forest` holds, for one up card, every composition of a hard total up to
21 in each *instance* the calculation needs:

* instance 0, the initial hand: drawn from the shoe less the up card, two cards or more;
* one instance per split hand kind ``(pair, extra, lammer)``: a hand whose first card is
  ``pair``, drawn from the shoe less the up card and the ``1 + extra`` other pair cards
  already dealt to the seat's other hands (:mod:`firmware.math.hands.split_card_removal` says why
  nothing else of the other hands matters), one card or more.

Rows are sorted by hard total (aces as one), which every card raises: a pass from 21
down values every hand after all the hands it can become.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=16)
def compositions(cap: tuple[int, ...]) -> np.ndarray:
    """(K, 10) every multiset of card values of hard total <= 21 within the counts ``cap``
    (the empty one excluded), in no particular order."""
    out: list[list[int]] = []
    cur = [0] * 10

    def rec(start: int, hard: int) -> None:
        for v in range(start, 11):
            if hard + v > 21:
                break
            if cur[v - 1] >= cap[v - 1]:
                continue
            cur[v - 1] += 1
            out.append(list(cur))
            rec(v, hard + v)
            cur[v - 1] -= 1

    rec(1, 0)
    return np.array(out, dtype=np.int64)


#: bits per card value in a packed composition
BITS = 5


class _Index:
    """(instance, cards) -> row, by the packed keys of the rows (sorted when first
    asked: most forests are only walked level by level)."""

    def __init__(self, keys: np.ndarray, weights: np.ndarray) -> None:
        self.keys, self.weights = keys, weights
        self.sorted: np.ndarray | None = None
        self.sort = keys

    def find(self, instance: int, cards: tuple[int, ...]) -> int:
        if self.sorted is None:
            self.sort = np.argsort(self.keys)
            self.sorted = self.keys[self.sort]
        key = instance << (10 * BITS)
        for v in cards:
            key += int(self.weights[v - 1])
        at = int(np.searchsorted(self.sorted, key))
        if at >= len(self.sorted) or int(self.sorted[at]) != key:
            raise KeyError((instance, cards))
        return int(self.sort[at])


@dataclass(frozen=True)
class Instance:
    """A kind of hand: ``pair`` 0 for the initial hand, else a split hand's first card."""

    pair: int = 0
    extra: int = 0
    lammer: bool = False

    @property
    def split(self) -> bool:
        return self.pair > 0


@dataclass
class Forest:
    """The rows of one up card: every instance's compositions, sorted by hard total."""

    up: int
    c0: np.ndarray  # (10,) the shoe less the up card
    instances: tuple[Instance, ...]
    inst: np.ndarray  # (R,) instance index of each row
    comp: np.ndarray  # (R, 10) the hand's cards
    removed: np.ndarray  # (R, 10) everything out of c0 when the hand is as it is
    hard: np.ndarray
    ace: np.ndarray
    nc: np.ndarray
    total: np.ndarray
    child: np.ndarray  # (R, 10) row of the hand with one more card of value v; -1 bust
    q: np.ndarray  # (R, 10) probability of each value as the next card
    left: np.ndarray  # (R,) cards left in the shoe
    levels: tuple[tuple[int, int], ...]  # row ranges of each hard total, 21 first
    index: _Index

    @property
    def rows(self) -> int:
        return self.inst.shape[0]

    def row(self, instance: int, cards: tuple[int, ...]) -> int:
        """The row of the hand ``cards`` (point values) of ``instance`` (KeyError: none)."""
        return self.index.find(instance, cards)


@lru_cache(maxsize=16)
def _base(cap: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The compositions of ``cap``, their hard totals and the composition one more card
    of each value makes (index, -1 when it busts or runs out)."""
    base = compositions(cap)
    hard = base @ np.arange(1, 11)
    weights = np.int64(1) << (BITS * np.arange(10, dtype=np.int64))
    keys = base @ weights
    sort = np.argsort(keys)
    skeys = keys[sort]
    child = np.full((len(base), 10), -1, dtype=np.int64)
    for v in range(1, 11):
        want = keys + weights[v - 1]
        at = np.minimum(np.searchsorted(skeys, want), len(skeys) - 1)
        hit = (skeys[at] == want) & (hard + v <= 21)
        child[hit, v - 1] = sort[at[hit]]
    return base, hard, child


def build_forest(c0: tuple[int, ...], up: int, instances: tuple[Instance, ...]) -> Forest:
    """The rows of ``instances`` for the shoe less the up card ``c0``."""
    base, hard_all, base_child = _base(c0)
    cap = np.asarray(c0)[None, :]
    sels, others = [], []
    for ins in instances:
        other = np.zeros(10, dtype=np.int64)
        if ins.split:
            other[ins.pair - 1] = 1 + ins.extra
        ok = np.all(base + other[None, :] <= cap, axis=1)
        if ins.split:
            ok &= base[:, ins.pair - 1] >= 1
        else:
            ok &= base.sum(axis=1) >= 2
        sels.append(np.nonzero(ok)[0])
        others.append(other)
    inst = np.concatenate([np.full(len(s), i, dtype=np.int64) for i, s in enumerate(sels)])
    src = np.concatenate(sels)
    hard = hard_all[src]
    order = np.lexsort((inst, -hard))
    inst, src, hard = inst[order], src[order], hard[order]
    comp = base[src]
    removed = comp + np.stack(others)[inst]
    # where each (instance, base composition) landed, then every child through it
    pos = np.full((len(instances), len(base)), -1, dtype=np.int64)
    pos[inst, src] = np.arange(len(inst))
    bc = base_child[src]
    child = np.where(bc >= 0, pos[inst[:, None], np.maximum(bc, 0)], -1)
    return _finish(np.asarray(c0, dtype=np.int64), up, instances, inst, comp, removed, hard,
                   child)


def _finish(c0: np.ndarray, up: int, instances: tuple[Instance, ...], inst: np.ndarray,
            comp: np.ndarray, removed: np.ndarray, hard: np.ndarray, child: np.ndarray
            ) -> Forest:
    weights = np.int64(1) << (BITS * np.arange(10, dtype=np.int64))
    keys = (inst << (10 * BITS)) + comp @ weights
    index = _Index(keys, weights)
    rem = c0[None, :] - removed
    left = rem.sum(axis=1)
    q = rem / left[:, None]
    ace = comp[:, 0] > 0
    total = np.where(ace & (hard <= 11), hard + 10, hard)
    neg = -hard
    levels = []
    for h in range(21, 0, -1):
        lo, hi = np.searchsorted(neg, -h, "left"), np.searchsorted(neg, -h, "right")
        if hi > lo:
            levels.append((int(lo), int(hi)))
    return Forest(up, c0, instances, inst, comp, removed, hard, ace, comp.sum(axis=1), total,
                  child, q, left, tuple(levels), index)


def prune(f: Forest, keep: np.ndarray) -> tuple[Forest, np.ndarray]:
    """The forest of the rows ``keep`` (a mask), and the old row of each new one. A
    dropped child reads as -2: a row kept must not need it (its action does not)."""
    rows = np.nonzero(keep)[0]
    new = np.full(f.rows, -2, dtype=np.int64)
    new[rows] = np.arange(len(rows))
    ch = f.child[rows]
    child = np.where(ch >= 0, new[np.maximum(ch, 0)], -1)
    return _finish(f.c0, f.up, f.instances, f.inst[rows], f.comp[rows], f.removed[rows],
                   f.hard[rows], child), rows
