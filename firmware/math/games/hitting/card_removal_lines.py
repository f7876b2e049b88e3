"""Every paytable line of a hitting game, with its exact probability.

A line is one way a hand (or a round) ends, with a fixed net payout and a fixed amount
wagered: "won, doubled, after a split", "21 with six cards (2:1)", "Blackjack on the
target 21 at 25x", "busted"... Each hand ends on exactly one line, so the game's return
is the sum over lines of (expected count per round) x (payout), and the amount wagered
the sum of count x stake: the PAR sheet's lines add up to its return exactly.

The counts come from the same passes as the return (:mod:`firmware.math.hands.backward_pass`),
played backwards with the strategy's actions fixed, each row carrying a vector of line
counts instead of a value (joint with "no dealer Blackjack", as the values are); split
hands go through the same recursion (:func:`firmware.math.hands.split_card_removal.split_value`),
which is linear.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from firmware.math.dealer.final_total import I22
from firmware.math.games.hitting.round_value import spanish_sevens
from firmware.math.hands.backward_pass import PassResult
from firmware.math.hands.hand_value import DOUBLE, DOUBLE_MAX, HIT, STAND, SURRENDER
from firmware.math.hands.payoffs import Payoffs
from firmware.math.ruleset import GameRules

#: the bonus categories of a winning undoubled 21 (Spanish 21, § 635a.12(b), (c))
BONUSES = ("5-card", "6-card", "7-card", "678-mixed", "678-suited", "678-spades",
           "777-mixed", "777-suited", "777-spades")


@dataclass(frozen=True)
class Line:
    """One way a hand ends: its net payout and what it wagered (units of the initial
    Blackjack wager). ``target`` lines pay the Bingo multiplier drawn (``payout`` and
    ``stake`` are then per unit of the multiplier's own part, see :meth:`LineBook.pay`)."""

    key: tuple[Any, ...]
    label: str
    payout: float
    stake: float
    target: int = 0  # Bingo: 0 none, 1 an undoubled win on the target, 2 a doubled one
    double: float = 0.0  # the Double Down wager's part of a doubled target win


@dataclass
class LineBook:
    """The lines of one rule set, indexed."""

    rules: GameRules
    kinds: list[tuple[int, bool]]
    lines: list[Line] = field(default_factory=list)
    index: dict[tuple[Any, ...], int] = field(default_factory=dict)

    def add(self, key: tuple[Any, ...], label: str, payout: float, stake: float,
            target: int = 0, double: float = 0.0) -> int:
        got = self.index.get(key)
        if got is None:
            got = self.index[key] = len(self.lines)
            self.lines.append(Line(key, label, payout, stake, target, double))
        return got

    def __len__(self) -> int:
        return len(self.lines)

    def pay(self, line: Line, multiplier: float) -> float:
        """A line's payout when the Bingo multiplier drawn is ``multiplier``."""
        if line.target == 1:
            return line.payout * multiplier
        if line.target == 2:
            return multiplier + line.double * (multiplier if self.rules.multiplier_on_double
                                               else 1.0)
        return line.payout


def hand_book(rules: GameRules, kinds: list[tuple[int, bool]]) -> LineBook:
    """Every line a hand of ``rules`` can end on (by context, double kind, outcome)."""
    book = LineBook(rules, kinds)
    refund = float(rules.surrender_refund)
    book.add(("dealer-bj",), "Dealer Blackjack", -1.0, 1.0)
    book.add(("bj",), f"Blackjack ({_odds(rules.blackjack_pays)})",
             float(rules.blackjack_pays), 1.0)
    book.add(("bj-push",), "Blackjack against a dealer Blackjack", 0.0, 1.0)
    if rules.player_blackjack_wins:
        book.add(("bj-beats-bj",), "Blackjack beats a dealer Blackjack "
                 f"({_odds(rules.blackjack_pays)})", float(rules.blackjack_pays), 1.0)
    if rules.bingo:
        book.add(("bj-target",), "Blackjack on the target 21 (3:2 x multiplier)",
                 float(rules.blackjack_pays), 1.0, target=1)
    book.add(("surrender",), "Surrender", -(1.0 - refund), 1.0)
    for split in (False, True):
        for lam in (False, True) if rules.free_split else (False,):
            if lam and not split:
                continue
            for kind in [-1, *range(len(kinds))]:
                _hand_lines(book, split, lam, kind)
    return book


def _hand_lines(book: LineBook, split: bool, lam: bool, kind: int) -> None:
    r = book.rules
    where = ("split hand, Free Bet lammer" if lam else "split hand") if split else ""
    main = 0.0 if lam else 1.0
    k, free = book.kinds[kind] if kind >= 0 else (0, False)
    if kind >= 0 and free and not r.free_double_on:
        return
    stake = main + (0.0 if free else float(k))
    dbl = "" if kind < 0 else (f"doubled free x{k}" if free else f"doubled x{k}")
    tag = ", ".join(x for x in (dbl, where) if x)
    sfx = f" ({tag})" if tag else ""
    base = (split, lam, kind)
    book.add((*base, "win"), "Win" + sfx, 1.0 + float(k), stake)
    if r.bingo:
        book.add((*base, "target"), "Win on the target" + sfx, 1.0, stake,
                 target=1 if kind < 0 else 2, double=float(k))
    book.add((*base, "push"), "Push" + sfx, 0.0, stake)
    if r.dealer_22_pushes:
        book.add((*base, "dealer_22_push"), "Push on a dealer 22" + sfx, 0.0, stake)
    book.add((*base, "loss"), "Loss" + sfx, -stake, stake)
    if r.hitting:
        book.add((*base, "bust"), "Bust" + sfx, -stake, stake)
    if kind >= 0 and r.rescue:
        book.add((*base, "rescue"), "Rescue" + sfx, -main, stake)
    if kind < 0 and r.spanish_bonuses is not None:
        b = r.spanish_bonuses
        odds = {"5-card": b.five_card_21, "6-card": b.six_card_21, "7-card": b.seven_card_21,
                "678-mixed": b.mixed_678, "678-suited": b.suited_678,
                "678-spades": b.spades_678, "777-mixed": b.mixed_777,
                "777-suited": b.suited_777, "777-spades": b.spades_777}
        names = {"5-card": "21 with 5 cards", "6-card": "21 with 6 cards",
                 "7-card": "21 with 7 or more cards", "678-mixed": "6-7-8 mixed suits",
                 "678-suited": "6-7-8 suited", "678-spades": "6-7-8 spades",
                 "777-mixed": "7-7-7 mixed suits", "777-suited": "7-7-7 suited",
                 "777-spades": "7-7-7 spades"}
        for cat in BONUSES:
            book.add((*base, "bonus", cat), f"{names[cat]} ({_odds(odds[cat])})" + sfx,
                     float(odds[cat]), stake)
        if b.super_bonus_units:
            for cat in ("777-suited", "777-spades"):
                pay = float(odds[cat] + b.super_bonus_units)
                book.add((*base, "bonus", cat + "-super"),
                         f"{names[cat]} against a dealer 7 ({_odds(odds[cat])} + super "
                         f"bonus)" + sfx, pay, stake)


def _odds(x: Any) -> str:
    from fractions import Fraction

    f = Fraction(x)
    return f"{f.numerator}:{f.denominator}"


def bonus_shares(rules: GameRules, f: Any, up: int, suited_pair: bool | None = None
                 ) -> dict[str, np.ndarray]:
    """(R,) the share of a row's undoubled wins on each bonus line (Spanish 21)."""
    b = rules.spanish_bonuses
    out: dict[str, np.ndarray] = {}
    if b is None:
        return out
    at21 = f.total == 21
    for n, cat in ((5, "5-card"), (6, "6-card")):
        out[cat] = (at21 & (f.nc == n)).astype(float)
    out["7-card"] = (at21 & (f.nc >= 7)).astype(float)
    c = f.comp
    three = at21 & (f.nc == 3)
    s678 = (three & (c[:, 5] == 1) & (c[:, 6] == 1) & (c[:, 7] == 1)).astype(float)
    out["678-spades"] = s678 / 64
    out["678-suited"] = s678 * (1 / 16 - 1 / 64)
    out["678-mixed"] = s678 * (1 - 1 / 16)
    s777 = (three & (c[:, 6] == 3)).astype(float)
    any_s, spade = sevens_suited(rules, up)
    sup = "-super" if up == 7 and b.super_bonus_units else ""
    out["777-spades" + sup] = s777 * spade
    out["777-suited" + sup] = s777 * (any_s - spade)
    out["777-mixed"] = s777 * (1 - any_s)
    return out


def sevens_suited(rules: GameRules, up: int) -> tuple[float, float]:
    """P(three 7s of a hand are of one suit), P(all spades), suits drawn without
    replacement from the shoe's 7s (one fewer of its suit when a 7 is up)."""
    d = rules.decks
    s_any = s_sp = 0.0
    ups = range(4) if up == 7 else [None]
    for up_suit in ups:
        c = [d - (1 if s == up_suit else 0) for s in range(4)]
        n = sum(c)
        den = n * (n - 1) * (n - 2)
        probs = [ci * (ci - 1) * (ci - 2) / den for ci in c]
        s_any += sum(probs) / len(ups)
        s_sp += probs[0] / len(ups)
    return s_any, s_sp


def stand_lines(book: LineBook, pay: Payoffs, rows: np.ndarray, split: np.ndarray,
                lam: np.ndarray, kind: int, shares: dict[str, np.ndarray], total: np.ndarray,
                targets: np.ndarray, rescued: np.ndarray | None) -> np.ndarray:
    """(n, L, NL) line counts of the hands at ``rows`` standing (``kind`` >= 0: doubled
    into the row by that double kind; ``rescued``: (n, L) where they rescue)."""
    n, lanes = len(rows), targets.shape[0]
    out = np.zeros((n, lanes, len(book)))
    r = book.rules
    p22 = pay.laws[rows, I22] if r.dealer_22_pushes else np.zeros(n)
    for split_v in (False, True):
        for lam_v in (False, True):
            sel = (split == split_v) & (lam == lam_v)
            if not sel.any():
                continue
            base = (split_v, lam_v, kind)
            if (*base, "win") not in book.index:
                continue
            i = np.nonzero(sel)[0]
            rr = rows[i]
            pw = pay.pw[rr]
            plain = pw.copy()
            if kind < 0 and shares:
                for cat, share in shares.items():
                    part = pw * share[rr]
                    plain = plain - part
                    out[i, :, book.index[(*base, "bonus", cat)]] += part[:, None]
            on_target = total[rr][:, None] == targets[None, :]
            win_i = book.index[(*base, "win")]
            out[i, :, win_i] += np.where(on_target, 0.0, plain[:, None])
            if r.bingo:
                out[i, :, book.index[(*base, "target")]] += np.where(on_target,
                                                                     plain[:, None], 0.0)
            out[i, :, book.index[(*base, "push")]] += (pay.pp[rr] - p22[i])[:, None]
            if r.dealer_22_pushes:
                out[i, :, book.index[(*base, "dealer_22_push")]] += p22[i][:, None]
            out[i, :, book.index[(*base, "loss")]] += pay.pl[rr][:, None]
            if rescued is not None and r.rescue:
                take = rescued[i]
                out[i] = np.where(take[:, :, None], 0.0, out[i])
                out[i, :, book.index[(*base, "rescue")]] += np.where(
                    take, pay.notbj[rr][:, None], 0.0)
    return out


def lines_pass(book: LineBook, uc: Any, res: PassResult, lane_slice: slice
               ) -> tuple[np.ndarray, list[np.ndarray]]:
    """(R, L', NL) each row's line counts with the actions of ``res`` (lanes of
    ``lane_slice``), the hands it can become already counted; and per double kind the
    counts of a hand doubled into each row."""
    r = book.rules
    f, pay = uc.forest, uc.pay
    _, kinds = uc.masks()
    split = np.array([i.split for i in f.instances])[f.inst]
    lam = np.array([i.lammer for i in f.instances])[f.inst]
    targets = _targets(r)[lane_slice]
    lanes = len(targets)
    act = res.action[:, lane_slice]
    nl = len(book)
    out = np.zeros((f.rows, lanes, nl))
    dbl = [np.zeros((f.rows, lanes, nl)) for _ in kinds.kinds]
    shares = bonus_shares(r, f, f.up)
    bust_i = {(s, lm, k): book.index.get((s, lm, k, "bust")) for s in (False, True)
              for lm in (False, True) for k in range(-1, len(kinds.kinds))}
    for lo, hi in f.levels:
        sl = slice(lo, hi)
        rows = np.arange(lo, hi)
        for i in range(len(kinds.kinds)):
            resc = res.rescued[i][sl, lane_slice] if res.rescued else None
            dbl[i][sl] = stand_lines(book, pay, rows, split[sl], lam[sl], i, {}, f.total,
                                     targets, resc)
        a = act[sl]
        here = np.zeros((hi - lo, lanes, nl))
        stands = (a == STAND)
        if stands.any():
            s = stand_lines(book, pay, rows, split[sl], lam[sl], -1, shares, f.total,
                            targets, None)
            here += np.where(stands[:, :, None], s, 0.0)
        ch = f.child[sl]
        ok = ch >= 0
        safe = np.maximum(ch, 0)
        q = f.q[sl]
        bust = pay.bust_notbj[sl]
        hits = a == HIT
        if hits.any():
            flow = _flow(q, ok, out, safe)
            bp = np.einsum("nv,nv->n", q * ~ok, bust)
            for j in range(hi - lo):
                b = bust_i[(bool(split[lo + j]), bool(lam[lo + j]), -1)]
                if b is not None:
                    flow[j, :, b] += bp[j]
            here += np.where(hits[:, :, None], flow, 0.0)
        for code in (DOUBLE, DOUBLE_MAX):
            doubles = a == code
            if not doubles.any():
                continue
            kind_of = kinds.of_row[sl, code]
            for i in range(len(kinds.kinds)):
                sel = kind_of == i
                if not sel.any():
                    continue
                flow = _flow(q[sel], ok[sel], dbl[i], safe[sel])
                bp = np.einsum("nv,nv->n", q[sel] * ~ok[sel], bust[sel])
                for jj, at in enumerate(np.nonzero(sel)[0]):
                    b = bust_i[(bool(split[lo + at]), bool(lam[lo + at]), i)]
                    if b is not None:
                        flow[jj, :, b] += bp[jj]
                here[sel] += np.where(doubles[sel][:, :, None], flow, 0.0)
        surr = a == SURRENDER
        if surr.any():
            here[:, :, book.index[("surrender",)]] += np.where(
                surr, pay.notbj[sl][:, None], 0.0)
        out[sl] = here
    return out, dbl


def _flow(q: np.ndarray, ok: np.ndarray, src: np.ndarray, safe: np.ndarray) -> np.ndarray:
    """(n, L, NL) sum over the next card v of q[n, v] * src[child], a missing child 0.

    Why a loop over the ten cards: gathering every child at once made an (n, 10, L, NL)
    array and a masked copy of it (a quarter of the Bingo sheet's time); one card at a
    time adds the same products in the same order (0 + card 1 + card 2 ...), which is
    how the einsum it replaces summed them, so every figure is the same to the bit."""
    qm = np.where(ok, q, 0.0)
    flow = np.zeros((q.shape[0], *src.shape[1:]))
    for v in range(q.shape[1]):
        flow += qm[:, v, None, None] * src[safe[:, v]]
    return flow


def _targets(rules: GameRules) -> np.ndarray:
    """(L,) the Bingo target of each lane (0: no target)."""
    from firmware.math.games.hitting.round_value import lane_pairs

    if not rules.bingo:
        return np.zeros(1, dtype=np.int64)
    return np.array([t for t, _ in lane_pairs()], dtype=np.int64)


def multipliers(rules: GameRules) -> np.ndarray:
    from firmware.math.games.hitting.round_value import lane_pairs

    if not rules.bingo:
        return np.ones(1)
    return np.array([m for _, m in lane_pairs()], dtype=float)


__all__ = ["BONUSES", "Line", "LineBook", "hand_book", "lines_pass", "multipliers",
           "spanish_sevens", "stand_lines"]
