"""Dense lookup tables of the computed strategy, for the vectorised fast path.

Every table is filled by asking :meth:`Strategy.decide` with the legal actions the engine
would offer in that state (the same rules: double restrictions, double after split, split
aces, surrender only on the first two cards), so the fast path plays exactly the
automatic player's strategy. Codes: 0 stand, 1 hit, 2 double, 3 split, 4 surrender,
5 rescue; ``times`` tables give a double's multiple.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from firmware.math.games.hitting.round_value import lane_pairs, super_bonus_live
from firmware.math.hands.hand_value import total_of
from firmware.math.ruleset import GameRules
from firmware.math.strategy.basic import Decision, Strategy, strategy_for

CODES = {"stand": 0, "hit": 1, "double": 2, "split": 3, "surrender": 4, "rescue": 5}


@dataclass
class FastTables:
    lanes: int
    #: initial two-card hand [lane, up, a, b] (values 1..10, index 0 unused)
    init: np.ndarray
    init_times: np.ndarray
    #: two-card hand made by a split [lane, up, c, x, lammer, can_split, alive]
    split2: np.ndarray
    split2_times: np.ndarray
    #: three or more cards [lane, up, hard, ace, nc(3..7), lammer, split]
    more: np.ndarray
    #: after a double's card: rescue? [lane, up, hard, ace, lammer]
    rescue: np.ndarray
    #: Spanish 21, a suited initial 7-7 against a 7 (``init`` holds the mixed 7-7's):
    #: the super bonus makes its suits matter (§ 635a.12(c))
    suited_77: int = 0


def legal_for(rules: GameRules, cards: tuple[int, ...], *, split_hand: bool, split_ace: bool,
              can_split: bool, first: bool) -> list[str]:
    """The engine's legal decisions for a hand (``Game.legal_now``), from the rules."""
    one_card = split_ace and rules.split_aces_one_card
    n = len(cards)
    legal = []
    if rules.hitting and not one_card:
        legal.append("hit")
    legal.append("stand")
    t = total_of(sum(cards), 1 in cards)
    totals = {"any-two": None, "9-11": (9, 10, 11), "10-11": (10, 11)}[rules.double_on]
    free = n == 2 and 1 not in cards and sum(cards) in rules.free_double_on
    if (
        not one_card
        and (n == 2 or (rules.double_cards == "any" and n >= 2))
        and (rules.double_after_split or not split_hand)
        and (free or totals is None or (n == 2 and t in totals))
    ):
        legal.append("double")
    if can_split:
        legal.append("split")
    if rules.late_surrender and rules.dealer_check and n == 2 and first:
        legal.append("surrender")
    return legal


def build_tables(rules: GameRules) -> FastTables:
    s: Strategy = strategy_for(rules)
    nl = len(lane_pairs()) if rules.bingo else 1

    def dec(up: int, cards: tuple[int, ...], legal: list[str], **kw: Any) -> list[Decision]:
        """The decision of every lane (Bingo: all 60 valued at once)."""
        if rules.bingo:
            return s.decide_lanes(up, cards, legal, **kw)
        return [s.decide(up, cards, legal, **kw)]

    init = np.zeros((nl, 11, 11, 11), np.int8)
    init_t = np.ones((nl, 11, 11, 11), np.int8)
    split2 = np.zeros((nl, 11, 11, 11, 2, 2, 2), np.int8)
    split2_t = np.ones((nl, 11, 11, 11, 2, 2, 2), np.int8)
    more = np.zeros((nl, 11, 32, 2, 8, 2, 2), np.int8)
    rescue = np.zeros((nl, 11, 32, 2, 2), np.int8)
    lam_opts = (False, True) if rules.free_split else (False,)
    alive_opts = (True, False) if not rules.hitting else (True,)  # Split to Double reads it
    suited_77 = 0
    for up in range(1, 11):
        for a in range(1, 11):
            for b in range(a, 11):
                if {a, b} == {1, 10}:
                    continue
                can = rules.max_hands >= 2 and (a == b or (
                    rules.split_any_initial and not rules.hitting))
                legal = legal_for(rules, (a, b), split_hand=False, split_ace=False,
                                  can_split=can, first=True)
                sevens = a == b == 7 and super_bonus_live(rules, up)
                for li, d in enumerate(dec(up, (a, b), legal,
                                           **({"suited": False} if sevens else {}))):
                    init[li, up, a, b] = init[li, up, b, a] = CODES[d.action]
                    init_t[li, up, a, b] = init_t[li, up, b, a] = d.times
                if sevens:
                    suited_77 = CODES[s.decide(up, (a, b), legal, suited=True).action]
            for x in range(1, 11):
                for lam in lam_opts:
                    for cs in (False, True):
                        if cs and (x != a or (a == 1 and not rules.resplit_aces)):
                            continue
                        legal = legal_for(rules, (a, x), split_hand=True, split_ace=a == 1,
                                          can_split=cs, first=False)
                        for alive in alive_opts:
                            kw: dict[str, Any] = {"split_hand": True, "lammer": lam,
                                                  "split_ace": a == 1}
                            if not rules.hitting:
                                kw["bob_alive"] = alive
                            for li, d in enumerate(dec(up, (a, x), legal, **kw)):
                                at = (li, up, a, x, int(lam), int(cs))
                                # a hitting game ignores the flag: fill both
                                for al in ((int(alive),) if not rules.hitting else (0, 1)):
                                    split2[(*at, al)] = CODES[d.action]
                                    split2_t[(*at, al)] = d.times
        if not rules.hitting:
            continue
        _more(rules, dec, up, lam_opts, more, rescue)
    return FastTables(nl, init, init_t, split2, split2_t, more, rescue, suited_77)


def _more(rules: GameRules, dec: Any, up: int, lam_opts: tuple[bool, ...], more: np.ndarray,
          rescue: np.ndarray) -> None:
    """Hands of three or more cards, and the rescue after a double's card."""
    for hard in range(3, 22):
        for ace in (False, True):
            if total_of(hard, ace) >= 21:
                continue
            for nc in range(3, 8):
                cards = _cards(hard, ace, nc)
                if cards is None:
                    continue
                for lam in lam_opts:
                    for sp in (False, True):
                        legal = legal_for(rules, cards, split_hand=sp, split_ace=False,
                                          can_split=False, first=False)
                        for li, d in enumerate(dec(up, cards, legal, split_hand=sp, lammer=lam)):
                            more[li, up, hard, int(ace), nc, int(lam), int(sp)] = CODES[d.action]
    if not rules.rescue:
        return
    for hard in range(3, 22):
        for ace in (False, True):
            if total_of(hard, ace) > 21:
                continue
            for lam in lam_opts:
                cards = _cards(hard, ace, 3) or _cards(hard, ace, 2)
                if cards is None:
                    continue
                for li, d in enumerate(dec(up, cards, ["stand", "rescue"], lammer=lam,
                                           after_double=True)):
                    rescue[li, up, hard, int(ace), int(lam)] = CODES[d.action]


def _cards(hard: int, ace: bool, nc: int) -> tuple[int, ...] | None:
    """Some hand of ``nc`` cards with this hard total (holding an ace iff ``ace``)."""
    cards = [1] if ace else []
    k = nc - len(cards)
    lo = 1 if ace else 2
    rest = hard - sum(cards)
    if k < 0 or rest < lo * k or rest > 10 * k:
        return None
    out = [lo] * k
    extra = rest - lo * k
    for i in range(k):
        add = min(extra, 10 - lo)
        out[i] += add
        extra -= add
    return tuple(cards + out)
