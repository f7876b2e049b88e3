"""What a hand standing, doubled, bust or rescued is worth, for every row of a forest.

Values are *joint*: the expectation of the payoff times the event "the dealer has no
Blackjack" (a dealer Blackjack ends the round before any decision, and is counted once
at the start of the round). The dealer's law of a row is the exact joint law of the
shoe less the up card and everything the row's hand removed
(:func:`firmware.math.dealer.removed_cards.exact_joint_laws`), so a standing hand's value is read
from it directly. Bingo's payoffs depend on the target and multiplier drawn before the
cards: every array has a last axis of lanes (one lane for the other games).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from firmware.math.dealer.final_total import I22, IBUST
from firmware.math.games.hitting.round_value import bingo_lanes, spanish_suit_factors
from firmware.math.hands.forest import Forest
from firmware.math.ruleset import GameRules


@dataclass
class Payoffs:
    """Per-row figures of a forest, all joint with "no dealer Blackjack"."""

    pw: np.ndarray  # (R,) standing wins
    pp: np.ndarray  # (R,) standing pushes
    pl: np.ndarray  # (R,) standing loses
    notbj: np.ndarray  # (R,) no dealer Blackjack
    win: np.ndarray  # (R, L) odds of an undoubled win (Bingo target, Spanish bonuses)
    plain: np.ndarray  # (R, L) odds of a doubled hand's main wager win (no bonus)
    dwin: np.ndarray  # (R, L) odds of the Double Down wager's win
    stake: np.ndarray  # (R,) main wager at risk: 0 for a Free Bet lammer
    bust_notbj: np.ndarray  # (R, 10) no dealer Blackjack after one more card busts
    laws: np.ndarray  # (R, 8) the joint laws


def hole_value(up: int) -> int:
    """The hole card value that makes a dealer Blackjack with ``up`` (0: none)."""
    return 10 if up == 1 else 1 if up == 10 else 0


def outcome_probabilities(rules: GameRules, total: np.ndarray, laws: np.ndarray,
                          notbj: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(win, push, lose) of hands standing on ``total`` against joint ``laws``."""
    j = laws
    dealer_22_push = j[:, I22] if rules.dealer_22_pushes else np.zeros(len(j))
    pw = j[:, I22] + j[:, IBUST] - dealer_22_push
    pp = dealer_22_push.copy()
    for i, dt in enumerate(range(17, 22)):
        beat = (total > dt) | ((total == 21) & (dt == 21) & rules.player_21_wins)
        pw = pw + np.where(beat, j[:, i], 0.0)
        pp = pp + np.where((total == dt) & ~beat, j[:, i], 0.0)
    return pw, pp, np.maximum(notbj - pw - pp, 0.0)


def payoffs(rules: GameRules, f: Forest, laws: np.ndarray) -> Payoffs:
    """The :class:`Payoffs` of every row of ``f`` (``laws``: its rows' joint laws)."""
    lanes, wf = bingo_lanes(rules)
    j = laws
    hole = hole_value(f.up)
    rem = f.c0[None, :] - f.removed
    notbj = np.ones(f.rows)
    if hole and rules.dealer_check:  # read from the counts: a row needs no law for it
        notbj = 1.0 - rem[:, hole - 1] / f.left
    t = f.total
    pw, pp, pl = outcome_probabilities(rules, t, j, notbj)
    wf_t = np.array([np.broadcast_to(np.asarray(w, dtype=float), (lanes,)) for w in wf])
    plain = wf_t[np.minimum(t, 21)]
    win = plain * _bonus(rules, f)[:, None]
    dwin = plain if rules.multiplier_on_double else np.ones_like(plain)
    stake = np.ones(f.rows)
    lam = np.array([ins.lammer for ins in f.instances])[f.inst]
    stake[lam] = 0.0
    bust_notbj = np.ones((f.rows, 10))
    if hole and rules.dealer_check:
        left = np.maximum(f.left - 1, 1)[:, None]
        holes = rem[:, hole - 1][:, None] - (np.arange(1, 11) == hole)[None, :]
        bust_notbj = 1.0 - np.maximum(holes, 0) / left
    return Payoffs(pw, pp, pl, notbj, win, plain, dwin, stake, bust_notbj, j)


def _bonus(rules: GameRules, f: Forest) -> np.ndarray:
    """Odds of a winning undoubled 21 (Spanish 21's bonuses, § 635a.12(b)); 1 elsewhere."""
    b = rules.spanish_bonuses
    out = np.ones(f.rows)
    if b is None:
        return out
    at21 = f.total == 21
    out[at21 & (f.nc == 5)] = float(b.five_card_21)
    out[at21 & (f.nc == 6)] = float(b.six_card_21)
    out[at21 & (f.nc >= 7)] = float(b.seven_card_21)
    f678, f777 = spanish_suit_factors(rules, f.up)
    three = at21 & (f.nc == 3)
    c = f.comp
    out[three & (c[:, 5] == 1) & (c[:, 6] == 1) & (c[:, 7] == 1)] = f678
    out[three & (c[:, 6] == 3)] = f777
    return out


def stand_value(p: Payoffs, rows: Any, k: int = 0, dlam: bool = False) -> np.ndarray:
    """(n, L) value of standing (``k`` > 0: carrying a k-unit Double Down wager,
    ``dlam``: a free one) for ``rows``."""
    stake = p.stake[rows]
    if k == 0:
        return p.pw[rows, None] * p.win[rows] - (p.pl[rows] * stake)[:, None]
    won = p.plain[rows] + k * p.dwin[rows]
    lost = stake + (0.0 if dlam else float(k))
    return p.pw[rows, None] * won - (p.pl[rows] * lost)[:, None]


def rescue_value(p: Payoffs, rows: Any) -> np.ndarray:
    """(n, 1) value of a rescue (§ 635a.10(d)): the Double Down wager back, the original
    wager lost."""
    return -(p.notbj[rows] * p.stake[rows])[:, None]
