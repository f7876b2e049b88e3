"""Split to Double's paytable lines, exact, and the distribution of its unsplit rounds.

A round that does not split holds one hand that stands, doubles (1x or 4x, one card) or
surrenders, so every way it ends is enumerated exactly: the two cards and the up card by
their exact weights, the double's card from the shoe less those three, and the dealer's
exact law of the shoe the round leaves (:mod:`firmware.math.dealer.removed_cards`). The Blackjack or
Bust wager's Blackjack lines come from the suits
(:data:`~firmware.math.games.split_to_double.hand_values.BOB_BJ_SHARES`) and its dealer-bust line
from the certified wager's value (it is the only line left). Split rounds couple their hands through
the Blackjack or Bust wager; their main wager is one line, the certified figure less the unsplit
rounds' lines, so the lines still add up to the certified return, and their distribution comes from
:mod:`firmware.math.par.split_distribution`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from firmware.math.composition import initial_deals
from firmware.math.dealer.final_total import I22, IBJ, IBUST
from firmware.math.games.split_to_double.hand_values import (
    BOB_BJ_SHARES,
    BOB_LINES,
    bob_dealer_bust_odds,
)
from firmware.math.hands.hand_value import total_of
from firmware.math.paytable import PaytableLine
from firmware.math.ruleset import GameRules
from firmware.math.wagers import BUST_PAYTABLE, wager_key


@dataclass
class StdLines:
    lines: list[PaytableLine]
    no_split: dict[float, float]  # net of every required wager -> probability
    no_split_main: dict[float, float]
    no_split_side: dict[float, float]
    p_split: float
    split_starts: list[tuple[int, int, int, float]] = field(default_factory=list)


def std_lines(rules: GameRules, main_value: float, bob_value: float) -> StdLines:
    """The lines of ``rules`` (Split to Double, finite shoe); ``main_value`` and
    ``bob_value``: the certified expected nets of the two wagers."""
    from firmware.math.dealer.removed_cards import exact_joint_laws
    from firmware.math.strategy.basic import strategy_for
    from firmware.math.strategy.dense_tables import legal_for

    s = strategy_for(rules)
    full = np.array(rules.shoe.counts())
    odds, pay = bob_dealer_bust_odds(rules), dict(rules.bob_paytable or ())
    bob_key = wager_key(rules, BUST_PAYTABLE)  # the declared wager's name (its lines' key)
    acc: dict[tuple[str, str, float, float], float] = {}
    dist: dict[tuple[float, float], float] = {}
    split_starts: list[tuple[int, int, int, float]] = []
    hands: dict[int, list[tuple[float, np.ndarray, int, int]]] = {}
    p_split = p_bj = 0.0

    def line(wager: str, label: str, p: float, payout: float, stake: float) -> None:
        key = (wager, label, payout, stake)
        acc[key] = acc.get(key, 0.0) + p

    def outcome(p: float, main: float, side: float) -> None:
        dist[(main, side)] = dist.get((main, side), 0.0) + p

    for a, b, up, wf in initial_deals(rules.shoe):
        w = float(wf)
        c = full.copy()
        for v in (a, b, up):
            c[v - 1] -= 1
        hole = 10 if up == 1 else 1 if up == 10 else 0
        pbj = c[hole - 1] / c.sum() if hole else 0.0
        if {a, b} == {1, 10}:
            p_bj += w
            _blackjack(rules, bob_key, line, outcome, w, pbj, pay)
            continue
        line("blackjack", "Dealer Blackjack", w * pbj, -1.0, 1.0)
        line(bob_key, "Dealer Blackjack", w * pbj, -1.0, 1.0)
        outcome(w * pbj, -1.0, -1.0)
        can = rules.max_hands >= 2
        legal = legal_for(rules, (a, b), split_hand=False, split_ace=False, can_split=can,
                          first=True)
        d = s.decide(up, (a, b), legal, split_hand=False, bob_alive=True)
        live = w * (1 - pbj)
        if d.action == "split":
            p_split += live
            split_starts.append((a, b, up, w))
            continue
        if d.action == "surrender":
            refund = float(rules.surrender_refund)
            line("blackjack", "Surrender (Blackjack wager returned)", live, refund - 1, 1.0)
            line(bob_key, "Loss (surrender)", live, -1.0, 1.0)
            outcome(live, refund - 1, -1.0)
            continue
        k = d.times if d.action == "double" else 0
        hard, ace = a + b, 1 in (a, b)
        cards = [None] if k == 0 else [y for y in range(1, 11) if c[y - 1] > 0]
        for y in cards:
            removed = np.bincount([a - 1, b - 1], minlength=10).astype(np.int64)
            py, t = 1.0, total_of(hard, ace)
            if y is not None:
                py = c[y - 1] / c.sum()
                removed[y - 1] += 1
                t = total_of(hard + y, ace or y == 1)
            # the hole card comes before the double's card, but the cards are exchangeable:
            # P(card) times the joint law (no Blackjack, outcome) of what is left
            hands.setdefault(up, []).append((w * py, removed, t, k))
    for up, items in hands.items():
        c0 = full - np.eye(10, dtype=np.int64)[up - 1]
        laws = exact_joint_laws(rules.shoe.kind, c0, np.array([x[1] for x in items]), up,
                                rules.dealer_hits_soft_17)
        for (p, _, t, k), law in zip(items, laws, strict=True):
            _hand(line, outcome, bob_key, p, law, t, k, odds)
    out: list[PaytableLine] = [PaytableLine(*key[:2], p, *key[2:]) for key, p in acc.items()]
    known_main = sum(x.contribution for x in out if x.wager == "blackjack")
    out.append(PaytableLine("blackjack", "Rounds with a split (every hand; the round's "
                            "average net)", p_split,
                            (main_value - known_main) / p_split if p_split else 0.0, 0.0))
    _bob_lines(out, bob_key, rules, bob_value, p_bj, pay, odds)
    tot, mains, sides = _marginals(dist)
    return StdLines(out, tot, mains, sides, p_split, split_starts)


def _blackjack(rules: GameRules, bob_key: str, line: Any, outcome: Any, w: float, pbj: float,
               pay: dict[str, Any]) -> None:
    """A player Blackjack of probability ``w`` (``pbj``: the dealer's too): its lines and
    outcomes, the Blackjack or Bust wager's by the suits of the two cards."""
    line("blackjack", "Blackjack against a dealer Blackjack", w * pbj, 0.0, 1.0)
    line("blackjack", f"Blackjack ({_odds(rules.blackjack_pays)})", w * (1 - pbj),
         float(rules.blackjack_pays), 1.0)
    for name, share in zip(BOB_LINES, BOB_BJ_SHARES, strict=True):
        bj_pay = float(pay.get(name, 0))
        outcome(w * pbj * float(share), 0.0, bj_pay)
        outcome(w * (1 - pbj) * float(share), float(rules.blackjack_pays), bj_pay)


def _marginals(dist: dict[tuple[float, float], float]
               ) -> tuple[dict[float, float], dict[float, float], dict[float, float]]:
    """(round net, main wager's net, side wager's net) distributions of ``dist``."""
    tot: dict[float, float] = {}
    mains: dict[float, float] = {}
    sides: dict[float, float] = {}
    for (m, sd), p in dist.items():
        tot[m + sd] = tot.get(m + sd, 0.0) + p
        mains[m] = mains.get(m, 0.0) + p
        sides[sd] = sides.get(sd, 0.0) + p
    return tot, mains, sides


def _hand(line: Any, outcome: Any, bob_key: str, p: float, law: np.ndarray, t: int, k: int,
          odds: float) -> None:
    """One standing hand of total ``t`` (``k``-times doubled) against a joint law."""
    stake = 1.0 + k
    tag = f" (doubled {k}x)" if k else ""
    if t > 21:
        nb = 1.0 - law[IBJ]
        line("blackjack", "Bust" + tag, p * nb, -stake, stake)
        line(bob_key, "Loss (a hand busted)", p * nb, -1.0, 1.0)
        outcome(p * nb, -stake, -1.0)
        return
    bust = law[I22] + law[IBUST]
    win = bust + sum(law[i] for i, dt in enumerate(range(17, 22)) if t > dt)
    push = sum(law[i] for i, dt in enumerate(range(17, 22)) if t == dt)
    lose = 1.0 - law[IBJ] - win - push
    line("blackjack", "Win" + tag, p * win, stake, stake)
    line("blackjack", "Push" + tag, p * push, 0.0, stake)
    line("blackjack", "Loss" + tag, p * lose, -stake, stake)
    line(bob_key, f"Dealer busts ({_odds(odds)})", p * bust, odds, 1.0)
    line(bob_key, "Loss (dealer does not bust)", p * (1 - law[IBJ] - bust),
         -1.0, 1.0)
    for i, dt in enumerate(range(17, 22)):
        m = stake if t > dt else 0.0 if t == dt else -stake
        outcome(p * law[i], m, -1.0)
    outcome(p * bust, stake, odds)


def _bob_lines(out: list[PaytableLine], bob_key: str, rules: GameRules, bob_value: float,
               p_bj: float, pay: dict[str, Any], odds: float) -> None:
    """The Blackjack lines by suits; split rounds' dealer-bust line from the certified
    value (every other line of the wager is known)."""
    names = {"ace-spades-jack-clubs-or-spades": "Player Blackjack: ace of spades and jack "
             "of clubs or spades", "suited": "Player Blackjack, suited",
             "blackjack": "Player Blackjack"}
    for name, share in zip(BOB_LINES, BOB_BJ_SHARES, strict=True):
        out.append(PaytableLine(bob_key, f"{names[name]} "
                                f"({_odds(pay.get(name, 0))})", p_bj * float(share),
                                float(pay.get(name, 0)), 1.0))
    known = sum(x.contribution for x in out if x.wager == bob_key)
    # split rounds: the wager wins odds or loses 1; its value fixes the split
    p_split = next(x.probability for x in out if x.label.startswith("Rounds with a split"))
    rest = bob_value - known
    p_win = (rest + p_split) / (odds + 1.0) if p_split else 0.0
    out.append(PaytableLine(bob_key, f"Dealer busts, no split hand busted "
                            f"({_odds(odds)})", p_win, odds, 1.0))
    out.append(PaytableLine(bob_key, "Loss (a round with a split)",
                            p_split - p_win, -1.0, 1.0))


def _odds(x: Any) -> str:
    from fractions import Fraction

    f = Fraction(x)
    return f"{f.numerator}:{f.denominator}"


__all__ = ["PaytableLine", "StdLines", "std_lines"]
