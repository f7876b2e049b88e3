"""Split to Double's rows past the tracked cards: a whole hand per step, cards summed.

Why apart from :func:`firmware.math.stdrows._step`: once a row's first ``depth`` further
cards are drawn, its composition is frozen (later cards are drawn from it and count for
the dealer to first order), so the cards a hand draws no longer change the row's code.
The outcomes of a hand that end in the same state can then be added before any row is
made: a hand's second card and its double's card become at most three children (the
next hand with the Blackjack or Bust wager as it was, the next hand with it lost, the
resplit), instead of up to a hundred rows to merge. A group of paths moves by the sums
over the hand's outcomes of the probability ``P``, probability times payoff ``F``, times
the dealer's first-order change ``DJ``, and times their product ``FDJ``
(:func:`_advance_sum`: every quantity is linear in the outcome's probability).
"""

from __future__ import annotations

import numpy as np

from firmware.math.ruleset import GameRules
from firmware.math.stdrows import (
    _G,
    _GH,
    _H,
    ACC,
    DOUBLE,
    PAY,
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

#: payoff category of a total: 0 for 16 or less, 1..5 for 17..21, 6 busted
_CAT = np.array([0] * 17 + [1, 2, 3, 4, 5, 6])
_PAY_CAT = PAY[[16, 17, 18, 19, 20, 21, 22]]


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


def _sums(n: int, ri: np.ndarray, w: np.ndarray, cat: np.ndarray, scale: np.ndarray,
          cards: list[np.ndarray], dj: np.ndarray, pd: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(P, F, DJ, FDJ) per row of the outcomes listed flat: row ``ri``, weight ``w``,
    payoff category ``cat`` and multiple ``scale``, the card values drawn ``cards``
    (0..9; -1: none), whose dealer changes ``dj`` (R, 10, 8) add up; ``pd`` (R, 10, 7):
    ``PAY[category] . dj`` per card value."""
    p = np.bincount(ri, weights=w, minlength=n)
    ws = w * scale
    f = np.bincount(ri * 7 + cat, weights=ws, minlength=7 * n).reshape(n, 7) @ _PAY_CAT
    per_card = np.zeros(10 * n)
    pdsum = np.zeros(len(ri))
    flat_pd = pd.reshape(-1)
    for v in cards:
        drawn = v >= 0
        vv = np.where(drawn, v, 0)
        per_card += np.bincount(ri * 10 + vv, weights=w * drawn, minlength=10 * n)
        pdsum += np.where(drawn, flat_pd[(ri * 10 + vv) * 7 + cat], 0.0)
    d = np.einsum("rv,rvk->rk", per_card.reshape(n, 10), dj)
    fdj = np.bincount(ri, weights=ws * pdsum, minlength=n)
    return p, f, d, fdj


def _frozen_step(r: GameRules, dec: Decider, rows: Rows, counts: Counts, laws: LawCache,
                 totals: Totals) -> Rows:
    """Every (frozen) row after its current hand: at most three children each."""
    n_rows = len(rows)
    q = (counts.cu[rows.up] - decode(rows.code)) / (counts.n[rows.up] - rows.size)[:, None]
    law, dj = laws.get(rows.up, rows.code)
    pd = np.einsum("ck,rvk->rvc", _PAY_CAT, dj)  # (R, 10, 7): PAY[cat] . dj of card v
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
    # outcomes, flat: a hand that ends on this card (a stand, or a double's card) ...
    ra, xa = np.nonzero(((act == STAND) | ~second[:, None]) & (q > 0))
    # ... and a double made now, with its card y
    rd, xd = np.nonzero((act == DOUBLE) & (q > 0))
    rb = np.repeat(rd, 10)
    xb = np.repeat(xd, 10)
    yb = np.tile(np.arange(10), len(rd))
    keep = q[rb, yb] > 0
    rb, xb, yb = rb[keep], xb[keep], yb[keep]
    cat_b = _CAT[TOTAL[hard1[rb, xb] + yb + 1, (ace1[rb, xb] | (yb == 0)).astype(np.int64)]]
    ri = np.concatenate([ra, rb])
    w = np.concatenate([q[ra, xa], q[rb, xb] * q[rb, yb]])
    cat = np.concatenate([cat1[ra, xa], cat_b])
    scale = 1.0 + np.concatenate([k[ra, xa], k[rb, xb]])
    card1 = np.concatenate([xa, xb])
    card2 = np.concatenate([np.full(len(ra), -1), yb])
    children = []
    for busted in (False, True):
        sel = (cat == 6) == busted
        sums = _sums(n_rows, ri[sel], w[sel], cat[sel], scale[sel], [card1[sel], card2[sel]],
                     dj, pd)
        children.append(_pop(rows, _advance_sum(rows.acc, *sums), busted))
    # a resplit: the hand keeps its card, a new hand of it goes last
    w_split = q * (act == SPLIT)
    d = np.einsum("rv,rvk->rk", w_split, dj)
    acc = _advance_sum(rows.acc, w_split.sum(1), np.zeros((n_rows, 8)), d, np.zeros(n_rows))
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
    while len(rows):
        frozen = rows.size - 2 >= depth
        parts = []
        if (~frozen).any():
            parts.append(_step(r, dec, rows.take(np.nonzero(~frozen)[0]), counts, laws,
                               depth, totals))
        if frozen.any():
            parts.append(_frozen_step(r, dec, rows.take(np.nonzero(frozen)[0]), counts,
                                      frozen_laws, totals))
        rows = Rows.join(parts).merged()
    return totals.main, totals.bob


__all__ = ["ACC", "play_rows"]
