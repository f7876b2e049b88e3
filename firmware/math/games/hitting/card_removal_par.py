"""A hitting game's PAR figures by card removal: every line's exact count per round.

For each up card and start the hand's lines (:mod:`firmware.math.games.hitting.card_removal_lines`)
are read from the rows the strategy plays, a split's through the exact split recursion, and the
start's own lines added (Blackjacks, the dealer's Blackjack). Rounds without a split
hold one hand, so their lines are also the exact distribution of their net result;
rounds with a split are kept apart (the PAR sheet gives their distribution from a
simulation of those rounds, :mod:`firmware.math.par.split_distribution`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from firmware.math.composition import initial_deals
from firmware.math.dealer.final_total import I22
from firmware.math.games.hitting.card_removal_lines import (
    LineBook,
    hand_book,
    lines_pass,
    multipliers,
)
from firmware.math.games.hitting.card_removal_return import FAST_TO_PASS, _work
from firmware.math.games.hitting.round_value import super_bonus_live
from firmware.math.hands.hand_value import DOUBLE, DOUBLE_MAX, HIT, SPLIT, STAND, SURRENDER
from firmware.math.hands.payoffs import hole_value
from firmware.math.hands.split_card_removal import split_value
from firmware.math.hands.up_card import hand_table, lane_weights
from firmware.math.ruleset import GameRules
from firmware.math.strategy.dense_tables import FastTables, build_tables

#: lanes valued at once in the line passes (Bingo has 60; arrays are rows x lanes x lines)
LANE_CHUNK = 12
#: the rows kept of a pass (:class:`KeptRows`): hands of at most this many cards
KEPT_CARDS = 3


class KeptRows:
    """The rows of a forest whose line counts a round reads: a hand of at most
    :data:`KEPT_CARDS` cards (the start's two-card hand, a split hand's first card and the
    two-card hands it becomes, and the third card of Spanish 21's 7-7).

    Why: a pass computes every row (rows x lanes x lines, and as much again per double
    kind: gigabytes for Bingo's 60 lanes), but the round's lines read only these; the
    rest is dropped as each lane chunk is done, the kept values copied unchanged."""

    def __init__(self, nc: np.ndarray) -> None:
        self.rows = np.nonzero(nc <= KEPT_CARDS)[0]
        self._at = np.full(len(nc), -1, dtype=np.int64)
        self._at[self.rows] = np.arange(len(self.rows))

    def view(self, data: np.ndarray) -> RowView:
        return RowView(self._at, data)


class RowView:
    """Indexed by a forest's row (an int or an array of rows) like the full array; a
    row that was not kept is an IndexError, never a wrong value."""

    def __init__(self, at: np.ndarray, data: np.ndarray) -> None:
        self._at = at
        self.data = data
        self.shape = (len(at), *data.shape[1:])
        self.ndim = data.ndim

    def __getitem__(self, rows: Any) -> np.ndarray:
        at = self._at[rows]
        if np.any(at < 0):
            raise IndexError("a row whose line counts were not kept")
        return self.data[at]


@dataclass
class LineCounts:
    """Expected count per round of every line, per Bingo lane (one lane elsewhere)."""

    book: LineBook
    lane_w: np.ndarray  # (L,) probability of each lane
    mult: np.ndarray  # (L,) each lane's multiplier (1 without Bingo)
    all_rounds: np.ndarray  # (L, NL)
    no_split: np.ndarray  # (L, NL): from rounds without a split
    p_split: np.ndarray  # (L,) probability that the round splits
    #: (a, b, up, probability, lanes splitting): the starts whose round splits
    split_starts: list[tuple[int, int, int, float, np.ndarray]] = field(default_factory=list)
    insurance_win: float = 0.0  # P(dealer Blackjack) when insurance is offered
    p_insurance: float = 0.0  # P(insurance is offered) = P(ace up)
    p_dealer_22: float = 0.0

    def payout(self, line: int) -> np.ndarray:
        """(L,) the line's payout in each lane."""
        ln = self.book.lines[line]
        return np.array([self.book.pay(ln, m) for m in self.mult])

    def stake(self, line: int) -> float:
        return self.book.lines[line].stake

    def expected(self, counts: np.ndarray | None = None) -> float:
        """Expected net per round of the main wager (lanes weighted)."""
        c = self.all_rounds if counts is None else counts
        pay = np.stack([self.payout(i) for i in range(len(self.book))], axis=1)
        return float(self.lane_w @ (c * pay).sum(axis=1))


def line_counts(rules: GameRules, ups: tuple[int, ...] = tuple(range(1, 11))) -> LineCounts:
    """The :class:`LineCounts` of ``rules``' strategy (a hitting game, finite shoe);
    ``ups``: only the rounds with these up cards (their part of each count)."""
    from firmware.math.strategy.basic import strategy_for

    s = strategy_for(rules)
    t = build_tables(rules)
    lanes = len(lane_weights(rules))
    book: LineBook | None = None
    allr = nos = None
    p_split = np.zeros(lanes)
    split_starts: list[tuple[int, int, int, float, np.ndarray]] = []
    ins_w = ins_n = p22 = 0.0
    deals = initial_deals(rules.shoe)
    full = rules.shoe.counts()
    assert full is not None
    for up in ups:
        if not full[up - 1]:
            continue
        work = _work(rules, t, up, s.solved)
        kinds = work[0][0].masks()[1].kinds
        if book is None:
            book = hand_book(rules, kinds)
            allr = np.zeros((lanes, len(book)))
            nos = np.zeros((lanes, len(book)))
        assert allr is not None and nos is not None
        per = _up_lines(rules, book, t, up, work, lanes)
        for a, b, u, w in deals:
            if u != up:
                continue
            fw = float(w)
            got, splits, rest, pbj, d22 = per(a, b)
            allr += fw * got
            # a split start meets a dealer Blackjack before any split: that part of it
            # is an unsplit round (one line, the dealer's Blackjack); so is the part of
            # it played without a split (Spanish 21's suited 7-7 against a 7)
            bj_only = np.zeros_like(got)
            bj_only[:, book.index[("dealer-bj",)]] = pbj
            if rest is not None:
                bj_only += rest
            nos += fw * np.where(splits[:, None] > 0, bj_only, got)
            p_split += fw * (1 - pbj) * splits
            p22 += fw * d22
            if splits.any():
                split_starts.append((a, b, up, fw, splits))
            if up == 1:
                ins_w += fw * pbj
                ins_n += fw
    assert book is not None and allr is not None and nos is not None
    return LineCounts(book, lane_weights(rules), multipliers(rules), allr, nos, p_split,
                      split_starts, ins_w / ins_n if ins_n else 0.0, ins_n, p22)


def _up_lines(rules: GameRules, book: LineBook, t: FastTables, up: int, work: list[Any],
              lanes: int) -> Any:
    """The function (a, b) -> (lines (L, NL), splits (L,), P(dealer BJ), P(dealer 22))."""
    lv = []
    for uc, res in work:
        keep = KeptRows(uc.forest.nc)
        parts, dparts = [], []
        for lo in range(0, lanes, LANE_CHUNK):
            o, d = lines_pass(book, uc, res, slice(lo, lo + LANE_CHUNK))
            parts.append(o[keep.rows])
            dparts.append([x[keep.rows] for x in d])
            del o, d
        lv.append((keep.view(np.concatenate(parts, axis=1)),
                   [keep.view(np.concatenate([d[i] for d in dparts], axis=1))
                    for i in range(len(dparts[0]))]))
    uc0, res0 = next((u, r) for u, r in work if u.forest.instances[0].pair == 0)
    lines0, dbl0 = lv[work.index((uc0, res0))]
    splits: dict[int, np.ndarray] = {}
    for p in range(1, 11):
        if not any(i.pair == p and not i.lammer for u, _ in work for i in u.forest.instances):
            continue
        lams = [False] + ([True] if rules.free_split and p not in rules.real_split_values
                          else [])
        resp = {lam: (t.split2[:, up, p, p, int(lam), 1, 1] == 3) for lam in lams}
        resp.setdefault(True, resp[False])
        # hand_table indexes its arrays by row only, as a RowView allows
        hands = hand_table([(u, cast(np.ndarray, lv[i][0])) for i, (u, _) in enumerate(work)],
                           p)
        splits[p] = split_value(rules, p, hands, resp, lanes)
    f = uc0.forest
    hole = hole_value(up)
    bj = book.index[("bj",)]
    dbj = book.index[("dealer-bj",)]
    sevens = up == 7 and super_bonus_live(rules, 7)

    def per(a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, float,
                                      float]:
        c = f.c0.copy()
        c[a - 1] -= 1
        c[b - 1] -= 1
        pbj = c[hole - 1] / c.sum() if hole and rules.dealer_check else 0.0
        out = np.zeros((lanes, len(book)))
        none = np.zeros(lanes)
        if {a, b} == {1, 10}:
            # the dealer's hand is dealt out whenever the Push 22 wager is on, a player
            # Blackjack or not (the engine does): its dealer 22 counts in every round
            d22bj = float(uc0.pay.laws[f.row(0, (a, b)), I22])
            if pbj:
                key = ("bj-beats-bj",) if rules.player_blackjack_wins else ("bj-push",)
                out[:, book.index[key]] += pbj
            if rules.bingo:
                on21 = _targets21(lanes)
                out[:, bj] += np.where(on21, 0.0, 1 - pbj)
                out[:, book.index[("bj-target",)]] += np.where(on21, 1 - pbj, 0.0)
            else:
                out[:, bj] += 1 - pbj
            return out, none, None, pbj, d22bj
        out[:, dbj] += pbj
        row = f.row(0, (a, b))
        d22 = float(uc0.pay.laws[row, I22])
        hand = lines0[row]
        split_lanes = (t.init[:, up, a, b] == 3).astype(float) if a == b else none
        if a == b and a in splits:
            hand = np.where(split_lanes[:, None] > 0, splits[a], hand)
        rest = None
        if a == b == 7 and sevens:
            hand, split_lanes, rest = _sevens_lines(rules, book, t, uc0, res0, lines0, dbl0,
                                                    row, splits.get(7))
        return out + hand, split_lanes, rest, pbj, d22

    return per


def _targets21(lanes: int) -> np.ndarray:
    from firmware.math.games.hitting.round_value import lane_pairs

    return np.array([tg == 21 for tg, _ in lane_pairs()])[:lanes]


def _sevens_lines(rules: GameRules, book: LineBook, t: FastTables, uc: Any, res: Any,
                  lines: RowView, dbl: list[RowView], row: int,
                  split: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Spanish 21, initial 7-7 against a 7, super bonus live: the suited and the mixed
    pair each by its own decision, a third 7's suits by their exact probabilities.
    Returns the lines, the share of these rounds that split (per lane) and the lines of
    the share that does not."""
    from firmware.math.games.hitting.card_removal_lines import bonus_shares

    f, pay = uc.forest, uc.pay
    p_same, third_same, third_spades = suited_pair_sevens(rules)
    third = int(f.child[row, 6])
    base = (False, False, -1)
    idx = book.index
    out = np.zeros_like(lines[row])
    unsplit = np.zeros_like(out)
    splits = np.zeros(out.shape[0])
    for share, suited, code in ((p_same, True, t.suited_77), (1 - p_same, False,
                                                               int(t.init[0, 7, 7, 7]))):
        act = FAST_TO_PASS.get(int(code), STAND)
        if act == SPLIT and split is not None:
            out += share * split
            splits += share
            continue
        opt = _option_lines(rules, book, uc, lines, dbl, row, act)
        if act == HIT and third >= 0:
            blind = bonus_shares(rules, f, 7)
            pw = pay.pw[third] * f.q[row, 6]
            for cat, sh in blind.items():
                opt[:, idx[(*base, "bonus", cat)]] -= pw * sh[third]
            if suited:
                opt[:, idx[(*base, "bonus", "777-spades-super")]] += pw * third_spades
                opt[:, idx[(*base, "bonus", "777-suited-super")]] += pw * (third_same
                                                                            - third_spades)
                opt[:, idx[(*base, "bonus", "777-mixed")]] += pw * (1 - third_same)
            else:
                opt[:, idx[(*base, "bonus", "777-mixed")]] += pw
        out += share * opt
        unsplit += share * opt
    return out, splits, unsplit


def _option_lines(rules: GameRules, book: LineBook, uc: Any, lines: RowView,
                  dbl: list[RowView], row: int, act: int) -> np.ndarray:
    """(L, NL) the lines of one row played by ``act`` (any action, not only the chosen)."""
    from firmware.math.games.hitting.card_removal_lines import bonus_shares, stand_lines

    f, pay = uc.forest, uc.pay
    lanes = lines.shape[1]
    split = np.array([f.instances[f.inst[row]].split])
    lam = np.array([f.instances[f.inst[row]].lammer])
    from firmware.math.games.hitting.card_removal_lines import _targets

    targets = _targets(rules)[:lanes]
    if act == STAND:
        return stand_lines(book, pay, np.array([row]), split, lam, -1,
                           bonus_shares(rules, f, f.up), f.total, targets, None)[0]
    out = np.zeros((lanes, len(book)))
    if act == SURRENDER:
        out[:, book.index[("surrender",)]] = pay.notbj[row]
        return out
    ch = f.child[row]
    ok = ch >= 0
    q = f.q[row]
    _, kinds = uc.masks()
    src = lines
    kind = -1
    if act in (DOUBLE, DOUBLE_MAX):
        kind = int(kinds.of_row[row, act])
        src = dbl[kind]
    for v in range(10):
        if ok[v]:
            out += q[v] * src[ch[v]]
        elif q[v] > 0:
            out[:, book.index[(False, False, kind, "bust")]] += q[v] * pay.bust_notbj[row, v]
    return out


def suited_pair_sevens(rules: GameRules) -> tuple[float, float, float]:
    """Against a 7 up: P(an initial 7-7 is suited); given that it is, P(a third 7 is of
    its suit), P(that suit is spades and the third 7 is too)."""
    d = rules.decks
    pair = third = spades = 0.0
    for up_suit in range(4):
        c = [d - (1 if s == up_suit else 0) for s in range(4)]
        n = sum(c)
        for s in range(4):
            w = c[s] * (c[s] - 1) / (n * (n - 1)) / 4
            tt = (c[s] - 2) / (n - 2)
            pair += w
            third += w * tt
            if s == 0:
                spades += w * tt
    if pair == 0:  # one deck: no two 7s of a suit left beside a 7 up
        return 0.0, 0.0, 0.0
    return pair, third / pair, spades / pair


__all__ = ["LineCounts", "line_counts", "suited_pair_sevens"]
