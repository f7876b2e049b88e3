"""The chart of a strategy solved with card removal
(:mod:`firmware.math.strategy.card_removal_solver`).

The hard rows are the *rows* of the total-dependent strategy (the action worth most over
the two-card hands of that total, each by its deal probability), not the play of one
composition; the composition-dependent exceptions are a table of their own, each with
what it adds to the return. Soft hands and pairs are one composition each. Hands of
three or more cards have their own hit/stand table (their decisions are by total).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from firmware.math.hands.backward_pass import NEG
from firmware.math.hands.hand_value import DOUBLE, DOUBLE_MAX, HIT, SPLIT, STAND, SURRENDER
from firmware.math.ruleset import GameRules
from firmware.math.strategy.chart_table import UPS, ChartTable, card_label

LETTER = {STAND: "S", HIT: "H", DOUBLE: "D", DOUBLE_MAX: "D4", SPLIT: "P", SURRENDER: "R"}


def letters(rank: np.ndarray, lane: int, options: set[int]) -> str:
    """A chart cell from an action ranking: the best of ``options`` and, after a double,
    a split or a surrender, what to do when it is not allowed (lower case)."""
    vals = {a: float(rank[a, lane]) + (1e-12 if a == STAND else 0.0) for a in options
            if rank[a, lane] > NEG / 2}
    if not vals:
        return "S"
    first = max(vals, key=lambda a: vals[a])
    cell = LETTER[first]
    if first in (DOUBLE, DOUBLE_MAX, SPLIT, SURRENDER):
        rest = {a: v for a, v in vals.items() if a in (STAND, HIT) or (
            first == SURRENDER and a == SPLIT)}
        if (rest and HIT in vals) or (rest and first != SPLIT):
            second = max(rest, key=lambda a: rest[a])
            cell += LETTER[second].lower()
    return cell


def removal_tables(rules: GameRules, s: Any, lane: int) -> tuple[list[Any], list[str]]:
    """The chart's tables (title, rows) and notes for the strategy ``s``, one lane."""
    full = {STAND, HIT, DOUBLE, DOUBLE_MAX, SURRENDER} - (
        set() if rules.late_surrender else {SURRENDER})

    def rank_of(up: int, key: Any, table: str) -> np.ndarray | None:
        st = s.ups.get(up)
        return None if st is None else getattr(st, table).get(key)

    def row(ranks: list[np.ndarray | None], opts: set[int]) -> tuple[str, ...]:
        return tuple("-" if r is None else letters(r, lane, opts) for r in ranks)

    hard = []
    for total in range(5, 21):
        ranks = [rank_of(u, (total, False), "rows") for u in UPS]
        if all(r is None for r in ranks):
            half = total // 2
            ranks = [rank_of(u, (half, half), "init") for u in UPS] if total % 2 == 0 \
                else ranks
        hard.append((str(total), row(ranks, full)))
    soft = [(f"A,{x}", row([rank_of(u, (1, x), "init") for u in UPS], full))
            for x in range(2, 10)]
    pairs = [(f"{card_label(x)},{card_label(x)}", row([rank_of(u, (x, x), "init") for u in UPS],
                                          full | {SPLIT})) for x in range(1, 11)]
    tables = [ChartTable("Hard totals (two cards)", tuple(hard)),
              ChartTable("Soft totals (two cards)", tuple(soft)),
              ChartTable("Pairs", tuple(pairs))]
    more = []
    ns = (3, 4, 5, 6, 7) if rules.spanish_bonuses is not None else (3,)
    for n in ns:
        for total in range(12, 19):
            for soft_hand in (False, True):
                if soft_hand and total < 17:
                    continue
                hard_sum = total - 10 if soft_hand else total
                ranks = [rank_of(u, (hard_sum, soft_hand, n, False), "more") for u in UPS]
                if all(r is None for r in ranks):
                    continue
                opts = {STAND, HIT} | ({DOUBLE} if rules.double_cards == "any" else set())
                label = ("soft " if soft_hand else "") + str(total)
                if len(ns) > 1:
                    label += f"/{n}c" if n < 7 else "/7c+"
                more.append((label, row(ranks, opts)))
    title = ("Hands of three or more cards (by total" + (" and card count" if len(ns) > 1
                                                          else "") + ")")
    tables.append(ChartTable(title, tuple(more)))
    if rules.free_split:
        lam = [(str(t), row([rank_of(u, (t, False), "lammer2") for u in UPS],
                            {STAND, HIT, DOUBLE})) for t in range(12, 21)]
        tables.append(ChartTable("Hands whose wager is a Free Bet lammer (two cards)",
                                 tuple(lam)))
    return tables, _notes(rules, s, lane)


def _notes(rules: GameRules, s: Any, lane: int) -> list[str]:
    """The exceptions and (Spanish 21) the rescue decisions, as notes."""
    notes = []
    exc = list(s.exceptions)
    if exc:
        names = {STAND: "stand", HIT: "hit", DOUBLE: "double", DOUBLE_MAX: "double 4x",
                 SPLIT: "split", SURRENDER: "surrender"}
        items = "; ".join(
            f"{card_label(e.cards[0])},{card_label(e.cards[1])} against "
            f"{'A' if e.up == 1 else e.up}: {names[e.action]} (the row says "
            f"{names[e.row_action]}; adds {e.gain:.2e} of the wager per round)" for e in exc)
        notes.append("Composition-dependent exceptions (a two-card hand played against its "
                     "row where that adds at least 1e-5 of the wager per round): " + items
                     + ".")
    else:
        notes.append("Composition-dependent exceptions: none adds 1e-5 of the wager per "
                     "round at this deck count, so every two-card hand follows its row.")
    if rules.rescue:
        res = []
        for up in UPS:
            st = s.ups.get(up)
            if st is None:
                continue
            cut = sorted(h for (h, a, lm), v in st.rescue.items()
                         if not a and not lm and bool(np.atleast_1d(v)[lane]))
            if cut:
                res.append(f"{'A' if up == 1 else up}: hard {_span(cut)}")
        notes.append("Rescue after a double's card (§ 635a.10(d)), by the doubled hand's "
                     "total against each up card: " + ("; ".join(res) if res else "never")
                     + ". A doubled 21 is never rescued: it cannot lose.")
    return notes


def _span(values: list[int]) -> str:
    return f"{values[0]}" if len(values) == 1 else f"{values[0]}-{values[-1]}" \
        if values == list(range(values[0], values[-1] + 1)) else ", ".join(map(str, values))
