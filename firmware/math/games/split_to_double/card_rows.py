"""The rows of Split to Double's composition-dependent calculation, one card at a time.

Why rows: the calculation (:mod:`firmware.math.games.split_to_double.all_cards_return`) follows tens
of thousands of partial rounds (a start, the cards drawn so far, the hand being played, the hands
still waiting); one Python object per partial round made it minutes of CPU. Here a partial
round is one row of a few numpy arrays, and one :func:`_step` deals the next card to
every row at once (ten vectorised passes, one per card value), so the whole game is a
handful of steps.

A row's state (rows in the same state are merged, their accumulators added):

* ``up``; ``code``: the cards removed from the shoe less the up card, packed
  (:data:`BITS` bits per value, ace first), the initial two cards included; ``size``
  their number. The first ``depth`` further cards are *tracked* (added to ``code``); later
  ones are drawn from the composition ``code`` leaves and counted for the dealer to
  first order (below);
* ``cur``: the hand being played: its first card ``c`` (1..10) while it waits for its
  second card, ``64 + 16 hard + 8 ace + k`` while a ``k``-times double waits for its card,
  0 once the round's hands are all played;
* ``pend`` / ``plen``: first cards of the hands waiting (4 bits each, next one lowest);
  ``n``: hands made; ``alive``: no hand has busted (the Blackjack or Bust wager lives).

The accumulator of a group of paths (:data:`ACC`): its probability, the sum of the
probability times the main wager's payoff vector ``g`` (one entry per dealer outcome),
and for the untracked cards the sum of the dealer law's first-order change ``H`` (each
untracked card of value v adds ``J(t + v) - J(t)``) and of ``g . H``. A path's main value
is ``(g - BJ) . (J + H)``, so these sums are all a leaf needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from firmware.math.dealer.final_total import IBJ
from firmware.math.hands.hand_value import total_of
from firmware.math.ruleset import GameRules
from firmware.math.strategy.dense_tables import legal_for

#: bits per card value in a packed removed multiset (up to 31 cards of one value)
BITS = 5
_MASK = (1 << BITS) - 1
#: accumulator: mass, g (8), H (8), g . H
ACC = 18
_G, _H, _GH = slice(1, 9), slice(9, 17), 17
#: actions of a split hand's two cards
STAND, DOUBLE, SPLIT = 0, 1, 2

LawSource = Callable[[int, np.ndarray, bool], tuple[np.ndarray, np.ndarray]]


def _payoff(t: int) -> np.ndarray:
    """Main wager net per unit for a standing total ``t`` (22: busted) per dealer outcome."""
    if t > 21:
        return np.array([-1.0] * 7 + [0.0])
    f = np.zeros(8)
    for i, dt in enumerate((17, 18, 19, 20, 21)):
        f[i] = 1.0 if t > dt else 0.0 if t == dt else -1.0
    f[5] = f[6] = 1.0  # dealer busts
    return f


#: payoff vector by total 0..22 (22 = busted); total by (hard 0..31, ace)
PAY = np.array([_payoff(t) for t in range(23)])
TOTAL = np.array([[min(total_of(h, a), 22) for a in (False, True)] for h in range(32)])
#: payoff vector by category: 0 for 16 or less, 1..5 for 17..21, 6 busted
PAY_CAT = PAY[[16, 17, 18, 19, 20, 21, 22]]
_E_BJ = np.eye(8)[IBJ]


@dataclass
class Rows:
    up: np.ndarray
    code: np.ndarray
    size: np.ndarray
    cur: np.ndarray
    pend: np.ndarray
    plen: np.ndarray
    n: np.ndarray
    alive: np.ndarray
    acc: np.ndarray

    def __len__(self) -> int:
        return len(self.up)

    def take(self, idx: np.ndarray) -> Rows:
        return Rows(*(getattr(self, f.name)[idx] for f in fields(self)))

    @staticmethod
    def join(parts: list[Rows]) -> Rows:
        return Rows(*(np.concatenate([getattr(p, f.name) for p in parts])
                      for f in fields(Rows)))

    def merged(self) -> Rows:
        """Rows in the same state as one, accumulators added."""
        if len(self) == 0:
            return self
        k1 = (self.code | (self.up - 1) << 50 | self.alive << 54 | self.n << 55)
        k2 = self.cur | self.plen << 9 | self.pend << 13
        order = np.lexsort((k2, k1))
        s1, s2 = k1[order], k2[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = (s1[1:] != s1[:-1]) | (s2[1:] != s2[:-1])
        idx = np.nonzero(first)[0]
        out = self.take(order[idx])
        # group of each row; the sort is stable, so each group adds its rows in their
        # order (as a reduceat over the sorted rows would, at a third of the cost)
        group = np.empty(len(order), dtype=np.int64)
        group[order] = np.cumsum(first) - 1
        out.acc = np.stack([np.bincount(group, weights=self.acc[:, j], minlength=len(idx))
                            for j in range(ACC)], axis=1)
        return out


def decode(code: np.ndarray) -> np.ndarray:
    """(K, 10) card counts of packed removed multisets."""
    return (code[:, None] >> (BITS * np.arange(10))[None, :]) & _MASK


def encode(counts: np.ndarray) -> np.ndarray:
    return (np.asarray(counts, dtype=np.int64) << (BITS * np.arange(10))[None, :]).sum(1)


class Decider:
    """The strategy's decisions as tables: a split hand's action and double multiple by
    (up, first card, second card, alive, may split), and the initial decision."""

    def __init__(self, rules: GameRules, strategy: Any) -> None:
        self.r, self.s = rules, strategy
        self.act = np.zeros((11, 11, 11, 2, 2), dtype=np.int64)
        self.times = np.ones((11, 11, 11, 2, 2), dtype=np.int64)
        codes = {"stand": STAND, "double": DOUBLE, "split": SPLIT}
        for up in range(1, 11):
            for c in range(1, 11):
                for x in range(1, 11):
                    for alive in (0, 1):
                        for can in (0, 1):
                            if can and (x != c or (c == 1 and not rules.resplit_aces)):
                                self.act[up, c, x, alive, 1] = self.act[up, c, x, alive, 0]
                                self.times[up, c, x, alive, 1] = self.times[up, c, x, alive, 0]
                                continue
                            legal = legal_for(rules, (c, x), split_hand=True, split_ace=c == 1,
                                              can_split=bool(can), first=False)
                            d = strategy.decide(up, (c, x), legal, split_hand=True,
                                                bob_alive=bool(alive), split_ace=c == 1)
                            self.act[up, c, x, alive, can] = codes.get(d.action, STAND)
                            self.times[up, c, x, alive, can] = d.times

    def initial(self, up: int, a: int, b: int) -> tuple[str, int]:
        r = self.r
        can = r.max_hands >= 2 and (a == b or r.split_any_initial)
        legal = legal_for(r, (a, b), split_hand=False, split_ace=False, can_split=can,
                          first=True)
        d = self.s.decide(up, (a, b), legal, split_hand=False, bob_alive=True,
                          split_ace=False)
        return d.action, d.times


def start_rows(rules: GameRules, decider: Decider,
               starts: list[tuple[int, int, int, float]]) -> Rows:
    """One row per start (two for a split of two different cards: either is dealt
    first with the same probability); stands and surrenders are already done (cur 0)."""
    cols: list[tuple[int, int, int, int, int, int, int]] = []
    accs: list[np.ndarray] = []
    for a, b, up, w in starts:
        action, k = decider.initial(up, a, b)
        base = (1 << BITS * (a - 1)) + (1 << BITS * (b - 1))
        acc = np.zeros(ACC)
        acc[0] = w
        alive = 1
        if action == "split":
            orders = [(a, b)] if a == b else [(a, b), (b, a)]
            for first, second in orders:
                acc_s = acc / len(orders)
                cols.append((up, base, first, second, 1, 2, alive))
                accs.append(acc_s)
            continue
        if action == "double":
            cur = 64 + 16 * (a + b) + 8 * int(1 in (a, b)) + k
        elif action == "surrender":
            pay = np.full(8, float(rules.surrender_refund) - 1.0)
            pay[IBJ] = 0.0
            acc[_G] = w * pay
            cur, alive = 0, 0
        else:
            acc[_G] = w * PAY[TOTAL[a + b, int(1 in (a, b))]]
            cur = 0
        cols.append((up, base, cur, 0, 0, 1, alive))
        accs.append(acc)
    c = np.array(cols, dtype=np.int64).reshape(-1, 7)
    return Rows(up=c[:, 0], code=c[:, 1], size=np.full(len(c), 2, dtype=np.int64),
                cur=c[:, 2], pend=c[:, 3], plen=c[:, 4], n=c[:, 5], alive=c[:, 6],
                acc=np.array(accs).reshape(-1, ACC))


def _advance(acc: np.ndarray, p: np.ndarray, f: np.ndarray) -> np.ndarray:
    """(R x 10, ACC): each group's paths after drawing each card value, of probability
    ``p`` (R, 10), whose hand pays ``f`` (R, 10, 8). The card is tracked (it is in the
    code the dealer's law is taken at), so it moves no first-order term: ``H`` only
    scales with the probability."""
    mass, g, h, gh = acc[:, 0], acc[:, _G], acc[:, _H], acc[:, _GH]
    out = np.empty((acc.shape[0], 10, ACC))
    pm = p * mass[:, None]
    out[:, :, 0] = pm
    out[:, :, _G] = p[:, :, None] * g[:, None, :] + pm[:, :, None] * f
    out[:, :, _H] = p[:, :, None] * h[:, None, :]
    out[:, :, _GH] = p * (gh[:, None] + np.einsum("rxk,rk->rx", f, h))
    return out.reshape(-1, ACC)


class Counts:
    """The shoe less each up card: counts (11, 10) and sizes, for draw probabilities."""

    def __init__(self, full: np.ndarray) -> None:
        self.cu = np.zeros((11, 10))
        for up in range(1, 11):
            self.cu[up] = full - np.eye(10)[up - 1]
        self.n = self.cu.sum(1)


class LawCache:
    """Dealer laws ``J`` (8) and their first-order steps (10, 8) per (up, code), computed
    once by ``source(up, removed, steps)`` and looked up by every later row; with the
    steps, also ``PAY_CAT . step`` (10, 7) per card value and payoff category (the
    frozen rows' first-order payoffs: once per composition, not once per row)."""

    def __init__(self, source: LawSource, steps: bool) -> None:
        self.source, self.with_steps = source, steps
        self.keys = np.zeros(0, dtype=np.int64)
        self.law = np.zeros((0, 8))
        self.steps = np.zeros((0, 10, 8))
        self.pays = np.zeros((0, 10, 7))

    def index(self, up: np.ndarray, code: np.ndarray) -> np.ndarray:
        """Positions of (up, code) in the cache, computing the laws not there yet."""
        key = code | (up - 1) << 50
        new = np.setdiff1d(np.unique(key), self.keys)
        if len(new):
            self._add(new)
        return np.searchsorted(self.keys, key)

    def get(self, up: np.ndarray, code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        i = self.index(up, code)
        return self.law[i], self.steps[i]

    def _add(self, new: np.ndarray) -> None:
        ups, codes = (new >> 50) + 1, new & ((1 << 50) - 1)
        law, steps = np.zeros((len(new), 8)), np.zeros((len(new), 10, 8))
        for up in np.unique(ups):
            sel = np.nonzero(ups == up)[0]
            law[sel], steps[sel] = self.source(int(up), decode(codes[sel]), self.with_steps)
        pays = (np.einsum("ck,rvk->rvc", PAY_CAT, steps) if self.with_steps
                else np.zeros((len(new), 10, 7)))
        keys = np.concatenate([self.keys, new])
        order = np.argsort(keys)
        self.keys = keys[order]
        self.law = np.concatenate([self.law, law])[order]
        self.steps = np.concatenate([self.steps, steps])[order]
        self.pays = np.concatenate([self.pays, pays])[order]


@dataclass
class Totals:
    """The round's expected net so far: main wager, Blackjack or Bust."""

    bob_alive: np.ndarray
    main: float = 0.0
    bob: float = 0.0

    def add(self, rows: Rows, law: np.ndarray) -> None:
        """Rows whose hands are all played, against the dealer laws of their codes."""
        mass, g, h, gh = rows.acc[:, 0], rows.acc[:, _G], rows.acc[:, _H], rows.acc[:, _GH]
        self.main += float(((g - mass[:, None] * _E_BJ) * law).sum() + gh.sum()
                           - h[:, IBJ].sum())
        dealer = mass[:, None] * law + h
        alive = rows.alive == 1
        self.bob += float((dealer[alive] @ self.bob_alive).sum() - dealer[~alive].sum())


def _step(r: GameRules, dec: Decider, rows: Rows, counts: Counts, laws: LawCache,
          depth: int, totals: Totals) -> Rows:
    """Every (tracked) row after its next card, all ten card values at once (R x 10
    candidates); the candidates whose round ends are added to ``totals``, the others
    merged. Rows past their tracked cards go to
    :mod:`firmware.math.games.split_to_double.past_tracked_cards`."""
    xs = np.arange(1, 11)[None, :]
    cnt = decode(rows.code)
    p = (counts.cu[rows.up] - cnt) / (counts.n[rows.up] - rows.size)[:, None]
    second = rows.cur < 64
    c = np.where(second, rows.cur, 0)
    dcode = rows.cur - 64
    hard = np.where(second, c, dcode >> 4)[:, None] + xs
    ace = (np.where(second, c == 1, (dcode >> 3) & 1 == 1)[:, None] | (xs == 1))
    total = TOTAL[hard, ace.astype(np.int64)]
    can = (second & (rows.n < r.max_hands))[:, None] & (c[:, None] == xs)
    ix = (rows.up[:, None], c[:, None], xs, rows.alive[:, None], can.astype(np.int64))
    act = np.where(second[:, None], dec.act[ix], -1)
    stand, split, double = act == STAND, act == SPLIT, act == DOUBLE
    doubled = ~second[:, None]
    scale = np.where(stand, 1.0, np.where(doubled, (1 + np.where(second, 0, dcode & 7))
                                          [:, None], 0.0))
    f = PAY[total] * scale[:, :, None]
    done = stand | doubled
    more = done & (rows.plen > 0)[:, None]
    cur = np.where(done, np.where(more, (rows.pend & 15)[:, None], 0), rows.cur[:, None])
    cur = np.where(double, 64 + 16 * hard + 8 * ace + dec.times[ix], cur)
    pend = np.where(more, (rows.pend >> 4)[:, None], rows.pend[:, None])
    pend = np.where(split, (rows.pend | (c << (4 * rows.plen)))[:, None], pend)
    alive = rows.alive[:, None] & ~(doubled & (total > 21))
    code = rows.code[:, None] + (1 << BITS * (xs - 1))
    acc = _advance(rows.acc, p, f)
    rep = np.repeat(np.arange(len(rows)), 10)
    nxt = Rows(up=rows.up[rep], code=code.ravel(), size=rows.size[rep] + 1,
               cur=cur.ravel(), pend=pend.ravel(), plen=(rows.plen[:, None] - more + split
                                                        ).ravel(),
               n=(rows.n[:, None] + split).ravel(), alive=alive.ravel().astype(np.int64),
               acc=acc)
    live = p.ravel() > 0
    end = np.nonzero(live & (nxt.cur == 0))[0]
    if len(end):
        ended = nxt.take(end)
        totals.add(ended, laws.get(ended.up, ended.code)[0])
    return nxt.take(np.nonzero(live & (nxt.cur != 0))[0]).merged()
