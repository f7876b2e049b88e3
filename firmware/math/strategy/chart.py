"""The strategy as a chart of tables: printed by ``etg strategy`` (text or ``--json``)
and drawn as real tables in the PAR sheet. One :class:`Chart` feeds every form, so the
text, the JSON and the HTML cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from etgcore.errors import UserError
from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS, GameRules
from firmware.math.strategy.basic import strategy_for
from firmware.math.strategy.chart_table import UPS, ChartTable, card_label

KEY = (
    "S stand  H hit  Dh double, else hit  Ds double, else stand  D4 double 4x  "
    "P split  Ph/Ps split, else hit/stand  Rh/Rs/Rp surrender, else hit/stand/split"
)


@dataclass(frozen=True)
class Chart:
    title: str
    tables: tuple[ChartTable, ...]
    notes: tuple[str, ...] = ()
    key: str = KEY
    facts: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "key": self.key, **self.facts,
                "tables": [t.to_json() for t in self.tables], "notes": list(self.notes)}

    def text(self) -> str:
        lines = [self.title, self.key]
        for t in self.tables:
            lines += ["", t.title, _row("hand", list(t.head))]
            lines += [_row(label, list(cells)) for label, cells in t.rows]
        for note in self.notes:
            lines += ["", note]
        return "\n".join(lines)


def _row(label: str, cells: list[str]) -> str:
    return f"{label:<6} " + " ".join(f"{c:>3}" for c in cells)


def _bingo_of(rules: GameRules, bingo: tuple[int, int] | None) -> tuple[int, int] | None:
    if not rules.bingo:
        return None
    if bingo is None:
        bingo = (BINGO_TARGETS[-1], BINGO_MULTIPLIERS[0])
    if bingo[0] not in BINGO_TARGETS or bingo[1] not in BINGO_MULTIPLIERS:
        raise UserError(f"--bingo {bingo[0]}:{bingo[1]}: target must be 12-21 and "
                        f"multiplier one of {', '.join(map(str, BINGO_MULTIPLIERS))}")
    return bingo


def chart(rules: GameRules, bingo: tuple[int, int] | None = None) -> Chart:
    """The basic strategy of ``rules`` (for a Bingo game: for one drawn target and
    multiplier, by default the highest target at the lowest multiplier)."""
    s = strategy_for(rules)
    bingo = _bingo_of(rules, bingo)
    kw = {"bingo": bingo} if bingo else {}
    title = (f"Basic strategy: {rules.variant}, {rules.shoe.label()}, "
             f"dealer {'hits' if rules.dealer_hits_soft_17 else 'stands on'} soft 17"
             + (f", Bingo target {bingo[0]} x{bingo[1]}" if bingo else "")
             + f" (rules SHA-256 {rules.rules_sha256})")
    facts: dict[str, Any] = {"variant": rules.variant, "rules_hash": rules.rules_hash,
                             "rules_sha256": rules.rules_sha256,
                             "bingo": list(bingo) if bingo else None}

    def rows(hands: list[tuple[str, tuple[int, int]]], **more: Any
             ) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple((label, tuple(s.cell(u, cards, **kw, **more) for u in UPS))
                     for label, cards in hands)

    if hasattr(s, "ups"):  # solved with card removal: rows by total, exceptions listed
        from firmware.math.strategy.card_removal_chart import removal_tables

        lane = 0
        if bingo:
            from firmware.math.games.hitting.round_value import lane_pairs

            lane = lane_pairs().index(bingo)
        tables_r, notes_r = removal_tables(rules, s, lane)
        return Chart(title, tuple(tables_r), tuple(notes_r + _notes(rules, s)), facts=facts)
    if not rules.hitting:
        starts = [(f"{card_label(a) if a == 1 else a},{card_label(b)}", (a, b))
                  for a in range(1, 11) for b in range(a, 11) if {a, b} != {1, 10}]
        return Chart(title, (ChartTable("Two-card starts (split applies to any two cards)",
                                        rows(starts)),), facts=facts)
    hard = []
    for total in range(5, 21):
        a = 2 if total - 2 != 2 else 3
        b = total - a
        if b > 10:
            a, b = total - 10, 10
        hard.append((str(total), (a, b)))
    tables = [ChartTable("Hard totals", rows(hard)),
              ChartTable("Soft totals", rows([(f"A,{x}", (1, x)) for x in range(2, 10)])),
              ChartTable("Pairs", rows([(f"{card_label(x)},{card_label(x)}", (x, x))
                                        for x in range(1, 11)]))]
    if rules.free_split:
        tables.append(ChartTable(
            "Hands whose wager is a Free Bet lammer (after a free split)",
            rows([(str(t), (t - 10, 10)) for t in range(12, 21)], split_hand=True,
                 lammer=True)))
    if rules.spanish_bonuses is not None:
        many = tuple((f"{t}/{n}c", tuple(
            s.decide(u, _cards_for(t, n), ["hit", "stand"]).action[0].upper() for u in UPS))
            for n in (3, 4, 5) for t in range(12, 19))
        tables.append(ChartTable("Hard totals of 3, 4 and 5+ cards (hit H / stand S)", many))
    return Chart(title, tuple(tables), tuple(_notes(rules, s)), facts=facts)


def _notes(rules: GameRules, s: Any) -> list[str]:
    from firmware.math.games.hitting.round_value import super_bonus_live

    notes = []
    if super_bonus_live(rules, 7):
        legal = ["hit", "stand", "double", "split", "surrender"]
        suited = s.decide(7, (7, 7), legal, suited=True).action
        mixed = s.decide(7, (7, 7), legal, suited=False).action
        notes.append(f"Initial 7-7 against a 7 while the super bonus is live "
                     f"(§ 635a.12(c)): suited {suited}, mixed {mixed} (the row above is the "
                     "suit-blind average).")
    if rules.rescue and not hasattr(s, "ups"):
        notes.append("Rescue after a double: the double's card leaves a total where the "
                     "doubled hand is worth less than -1 (printed by `etg par`).")
    notes.append(f"Insurance: {'take' if s.insurance() else 'never'}.")
    return notes


def render(rules: GameRules, bingo: tuple[int, int] | None = None) -> str:
    """The chart as the text ``etg strategy`` prints."""
    return chart(rules, bingo).text()


def _cards_for(total: int, n: int) -> tuple[int, ...]:
    """A hard hand of ``n`` cards totalling ``total`` without ace or 6-7-8 pattern."""
    cards = [2] * (n - 1)
    last = total - sum(cards)
    while last > 10:
        i = cards.index(min(cards))
        cards[i] += 1
        last -= 1
    cards.append(last)
    return tuple(cards)
