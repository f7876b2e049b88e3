"""Split to Double's rows past the tracked cards: a whole hand per step, cards summed.

Why apart from :func:`firmware.math.games.split_to_double.card_rows._step`: once a row's first
``depth`` further cards are drawn, its composition is frozen (later cards are drawn from it and
count for the dealer to first order), so the cards a hand draws no longer change the row's code.
The outcomes of a hand that end in the same state can then be added before any row is
made: a hand's second card and its double's card become at most three children (the
next hand with the Blackjack or Bust wager as it was, the next hand with it lost, the
resplit), instead of up to a hundred rows to merge. A group of paths moves by the sums
over the hand's outcomes of the probability ``P``, probability times payoff ``F``, times
the dealer's first-order change ``DJ``, and times their product ``FDJ``
(:func:`_advance_sum`: every quantity is linear in the outcome's probability).

Those sums are taken without listing the paths (:class:`_Outcomes`): a hand that ends
on its next card is one (row, card) cell of an (R, 10) array, and a double made now is
one (row, card) pair with the ten cards it may draw as columns; only the double's cells
are gathered, and each composition's first-order payoffs are computed once
(:class:`~firmware.math.games.split_to_double.card_rows.LawCache`), not once per row (3x faster than
the flat list of outcomes this replaced, same figures to 1e-16).
"""

from __future__ import annotations

import numpy as np

from firmware.math.games.split_to_double.card_rows import (
    _G,
    _GH,
    _H,
    ACC,
    DOUBLE,
    PAY_CAT,
    SPLIT,
    STAND,
    TOTAL,
    Counts,
    Decider,
    LawCache,
    LawSource,
    Rows,
    Totals,
    _step,
    decode,
)
from firmware.math.progress import stage
from firmware.math.ruleset import GameRules

#: payoff category of a total: 0 for 16 or less, 1..5 for 17..21, 6 busted
_CAT = np.array([0] * 17 + [1, 2, 3, 4, 5, 6])
# _CAT_AFTER[h, a, y]: payoff category of a hand of hard total h (ace a) after a card y+1
_CAT_AFTER = np.array([[[_CAT[TOTAL[min(h + y + 1, 31), int(a or y == 0)]] for y in range(10)]
                        for a in (0, 1)] for h in range(32)])


def _advance_sum(acc: np.ndarray, p: np.ndarray, f: np.ndarray, dj: np.ndarray,
                 fdj: np.ndarray) -> np.ndarray:
    """Each group's paths after a set of outcomes with the sums ``p`` (R), ``f`` (R, 8),
    ``dj`` (R, 8), ``fdj`` (R) (see the module's docstring)."""
    mass, g, h, gh = acc[:, 0], acc[:, _G], acc[:, _H], acc[:, _GH]
    out = np.empty_like(acc)
    out[:, 0] = p * mass
    out[:, _G] = p[:, None] * g + mass[:, None] * f
    out[:, _H] = p[:, None] * h + mass[:, None] * dj
    out[:, _GH] = (p * gh + np.einsum("rk,rk->r", g, dj) + np.einsum("rk,rk->r", f, h)
                   + mass * fdj)
    return out


class _Outcomes:
    """The outcomes of every row's current hand, by class (the hand stands or busts),
    summed per row without listing paths: the hands that end on the next card are
    (R, 10) arrays; a double made now lists its (row, card) pairs once, with the ten
    cards it may draw as columns (P, 10). The first-order payoffs ``PAY_CAT . dj`` are
    read from the law cache's flat table at ``(70 i + 7 v + c)`` (``i`` the row's law,
    ``v`` the card, ``c`` the category), never gathered per row whole."""

    def __init__(self, q: np.ndarray, dj: np.ndarray, pays: np.ndarray, i: np.ndarray
                 ) -> None:
        self.q, self.dj, self.pays = q, dj, pays.reshape(-1)
        self.at = i * 70  # each row's first entry in the flat table
        self.n = len(q)

    def ending(self, w: np.ndarray, cat: np.ndarray, scale: np.ndarray) -> None:
        """Hands ending on the next card x: weight ``w`` (R, 10), category, multiple."""
        self.w1, self.cat1, self.s1 = w, cat, scale
        self.pd1 = self.pays[self.at[:, None] + np.arange(0, 70, 7) + cat]
        self.b1 = cat == 6

    def doubling(self, rd: np.ndarray, xd: np.ndarray, cat: np.ndarray, scale: np.ndarray
                 ) -> None:
        """Doubles made now on card ``xd`` of row ``rd`` (P); ``cat`` (P, 10) by the
        double's card, ``scale`` (P) the hand's multiple."""
        self.rd, self.xd, self.cat2, self.s2 = rd, xd, cat, scale
        self.wxy = self.q[rd, xd][:, None] * self.q[rd]
        base = self.at[rd][:, None] + cat
        self.pd2 = self.pays[base + (xd * 7)[:, None]] + self.pays[base + np.arange(0, 70, 7)]
        self.b2 = cat == 6

    def any(self, busted: bool) -> bool:
        """Some outcome of this class has a positive probability."""
        b1, b2 = (self.b1, self.b2) if busted else (~self.b1, ~self.b2)
        return bool((b1 & (self.w1 > 0)).any() or (b2 & (self.wxy > 0)).any())

    def sums(self, busted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(P, F, DJ, FDJ) per row of the outcomes of one class."""
        n, rd = self.n, self.rd
        if self.any(not busted):  # (most steps have no hand that busts: no masks)
            w1 = np.where(self.b1 == busted, self.w1, 0.0)
            w2 = np.where(self.b2 == busted, self.wxy, 0.0)
        else:
            w1, w2 = self.w1, self.wxy
        p2 = w2.sum(1)
        p = w1.sum(1) + np.bincount(rd, weights=p2, minlength=n)
        ws1, ws2 = w1 * self.s1, w2 * self.s2[:, None]
        rows1 = np.arange(n)[:, None] * 7
        by_cat = (np.bincount((rows1 + self.cat1).ravel(), weights=ws1.ravel(),
                              minlength=7 * n)
                  + np.bincount((rd[:, None] * 7 + self.cat2).ravel(), weights=ws2.ravel(),
                                minlength=7 * n))
        f = np.einsum("rc,ck->rk", by_cat.reshape(n, 7), PAY_CAT)  # (no BLAS threads)
        per_card = w1.ravel() + np.bincount(rd * 10 + self.xd, weights=p2, minlength=10 * n)
        per_card += np.bincount((rd[:, None] * 10 + np.arange(10)).ravel(),
                                weights=w2.ravel(), minlength=10 * n)
        d = np.einsum("rv,rvk->rk", per_card.reshape(n, 10), self.dj)
        fdj = (ws1 * self.pd1).sum(1) + np.bincount(rd, weights=(ws2 * self.pd2).sum(1),
                                                     minlength=n)
        return p, f, d, fdj


def _frozen_step(r: GameRules, dec: Decider, rows: Rows, counts: Counts, laws: LawCache,
                 totals: Totals) -> Rows:
    """Every (frozen) row after its current hand: at most three children each."""
    n_rows = len(rows)
    q = (counts.cu[rows.up] - decode(rows.code)) / (counts.n[rows.up] - rows.size)[:, None]
    i = laws.index(rows.up, rows.code)
    law, dj = laws.law[i], laws.steps[i]
    xs = np.arange(1, 11)
    second = rows.cur < 64
    c = np.where(second, rows.cur, 0)
    dcode = rows.cur - 64
    hard1 = np.where(second, c, dcode >> 4)[:, None] + xs  # (R, 10) after the next card
    ace1 = np.where(second, c == 1, (dcode >> 3) & 1 == 1)[:, None] | (xs == 1)
    cat1 = _CAT[TOTAL[hard1, ace1.astype(np.int64)]]
    can = (second & (rows.n < r.max_hands))[:, None] & (c[:, None] == xs)
    ix = (rows.up[:, None], c[:, None], xs[None, :], rows.alive[:, None], can.astype(np.int64))
    act = np.where(second[:, None], dec.act[ix], -1)
    k = np.where(act == DOUBLE, dec.times[ix], np.where(second, 0, dcode & 7)[:, None])
    hands = _Outcomes(q, dj, laws.pays, i)
    # a hand that ends on this card (a stand, or a double's card) ...
    hands.ending(np.where((act == STAND) | ~second[:, None], q, 0.0), cat1, 1.0 + k)
    # ... and a double made now, with its card y
    rd, xd = np.nonzero((act == DOUBLE) & (q > 0))
    hands.doubling(rd, xd, _CAT_AFTER[hard1[rd, xd], ace1[rd, xd].astype(np.int64)],
                   1.0 + k[rd, xd])
    children = [_pop(rows, _advance_sum(rows.acc, *hands.sums(busted)), busted)
                for busted in (False, True) if hands.any(busted)]
    # a resplit: the hand keeps its card, a new hand of it goes last
    split = act == SPLIT
    if split.any():
        w_split = q * split
        d = np.einsum("rv,rvk->rk", w_split, dj)
        acc = _advance_sum(rows.acc, w_split.sum(1), np.zeros((n_rows, 8)), d,
                           np.zeros(n_rows))
        children.append(Rows(up=rows.up, code=rows.code, size=rows.size, cur=rows.cur,
                             pend=rows.pend | (c << (4 * rows.plen)), plen=rows.plen + 1,
                             n=rows.n + 1, alive=rows.alive, acc=acc))
    out = []
    for child in children:
        live = child.acc[:, 0] > 0
        end = live & (child.cur == 0)
        if end.any():
            totals.add(child.take(np.nonzero(end)[0]), law[end])
        out.append(child.take(np.nonzero(live & (child.cur != 0))[0]))
    return Rows.join(out).merged()


def _pop(rows: Rows, acc: np.ndarray, busted: bool) -> Rows:
    """The rows' next hands (cur 0: the round is over)."""
    more = rows.plen > 0
    return Rows(up=rows.up, code=rows.code, size=rows.size,
                cur=np.where(more, rows.pend & 15, 0), pend=rows.pend >> 4,
                plen=np.maximum(rows.plen - 1, 0), n=rows.n,
                alive=rows.alive * (0 if busted else 1), acc=acc)


def play_rows(r: GameRules, dec: Decider, rows: Rows, source: LawSource, depth: int,
              bob_alive: np.ndarray) -> tuple[float, float]:
    """(main, Blackjack or Bust) expected net of ``rows`` played to the end."""
    counts = Counts(np.array(r.shoe.counts(), dtype=np.float64))
    laws = LawCache(source, steps=False)  # leaves: the law alone
    frozen_laws = LawCache(source, steps=True)  # frozen rows: and its first-order steps
    totals = Totals(bob_alive)
    fin = rows.cur == 0
    if fin.any():
        ended = rows.take(np.nonzero(fin)[0])
        totals.add(ended, laws.get(ended.up, ended.code)[0])
    rows = rows.take(np.nonzero(~fin)[0]).merged()
    # (the number of steps is known only at the end: a card, or a hand, per step)
    with stage(0, "steps", "return, card by card") as advance:
        while len(rows):
            frozen = rows.size - 2 >= depth
            parts = []
            if (~frozen).any():
                parts.append(_step(r, dec, rows.take(np.nonzero(~frozen)[0]), counts, laws,
                                   depth, totals))
            if frozen.any():
                parts.append(_frozen_step(r, dec, rows.take(np.nonzero(frozen)[0]), counts,
                                          frozen_laws, totals))
            # each part comes out merged; only two parts may share a state
            rows = parts[0] if len(parts) == 1 else Rows.join(parts).merged()
            advance(1)
    return totals.main, totals.bob


__all__ = ["ACC", "play_rows"]
