"""The strategy as printed tables (``etg strategy``, the PAR sheet)."""

from __future__ import annotations

from etgcore.errors import UserError
from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS, GameRules
from firmware.math.strategy import strategy_for

UPS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
KEY = (
    "S stand  H hit  Dh double, else hit  Ds double, else stand  D4 double 4x  "
    "P split  Ph/Ps split, else hit/stand  Rh/Rs/Rp surrender, else hit/stand/split"
)


def _head() -> str:
    return "hand   " + " ".join(f"{('A' if u == 1 else str(u)):>3}" for u in UPS)


def _row(label: str, cells: list[str]) -> str:
    return f"{label:<6} " + " ".join(f"{c:>3}" for c in cells)


def render(rules: GameRules, bingo: tuple[int, int] | None = None) -> str:
    s = strategy_for(rules)
    if rules.bingo:
        if bingo is None:
            bingo = (BINGO_TARGETS[-1], BINGO_MULTIPLIERS[0])
        if bingo[0] not in BINGO_TARGETS or bingo[1] not in BINGO_MULTIPLIERS:
            raise UserError(f"--bingo {bingo[0]}:{bingo[1]}: target must be 12-21 and "
                            f"multiplier one of {', '.join(map(str, BINGO_MULTIPLIERS))}")
    kw = {"bingo": bingo} if rules.bingo else {}
    lines = [f"Basic strategy: {rules.variant}, {rules.shoe.label()}, "
             f"dealer {'hits' if rules.dealer_hits_soft_17 else 'stands on'} soft 17"
             + (f", Bingo target {bingo[0]} x{bingo[1]}" if bingo else "")
             + f" (rules {rules.rules_hash})", KEY, ""]
    if not rules.hitting:
        lines.append("Two-card starts (split applies to any two cards)")
        lines.append(_head())
        for a in range(1, 11):
            for b in range(a, 11):
                if {a, b} == {1, 10}:
                    continue
                label = f"{'A' if a == 1 else a},{'A' if b == 1 else 'T' if b == 10 else b}"
                lines.append(_row(label, [s.cell(u, (a, b)) for u in UPS]))
        return "\n".join(lines)
    lines.append("Hard totals")
    lines.append(_head())
    for total in range(5, 21):
        a = 2 if total - 2 != 2 else 3
        b = total - a
        if b > 10:
            a, b = total - 10, 10
        lines.append(_row(str(total), [s.cell(u, (a, b), **kw) for u in UPS]))
    lines += ["", "Soft totals", _head()]
    for x in range(2, 10):
        lines.append(_row(f"A,{x}", [s.cell(u, (1, x), **kw) for u in UPS]))
    lines += ["", "Pairs", _head()]
    for x in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10):
        lab = "A,A" if x == 1 else "T,T" if x == 10 else f"{x},{x}"
        lines.append(_row(lab, [s.cell(u, (x, x), **kw) for u in UPS]))
    if rules.free_split:
        lines += ["", "Hands whose wager is a Free Bet lammer (after a free split)", _head()]
        for total in range(12, 21):
            lines.append(_row(str(total), [
                s.cell(u, (total - 10, 10), split_hand=True, lammer=True, **kw) for u in UPS]))
    if rules.spanish_bonuses is not None:
        lines += ["", "Hard totals of 3, 4 and 5+ cards (hit H / stand S)", _head()]
        for n in (3, 4, 5):
            for total in range(12, 19):
                cards = _cards_for(total, n)
                cells = [s.decide(u, cards, ["hit", "stand"]).action[0].upper() for u in UPS]
                lines.append(_row(f"{total}/{n}c", cells))
    from firmware.math.gamecalc import super_bonus_live

    if super_bonus_live(rules, 7):
        legal = ["hit", "stand", "double", "split", "surrender"]
        suited = s.decide(7, (7, 7), legal, suited=True).action
        mixed = s.decide(7, (7, 7), legal, suited=False).action
        lines += ["", f"Initial 7-7 against a 7 while the super bonus is live "
                  f"(§ 635a.12(c)): suited {suited}, mixed {mixed} (the row above is the "
                  "suit-blind average)."]
    if rules.rescue:
        lines += ["", "Rescue after a double: the double's card leaves a total where the "
                  "doubled hand is worth less than -1 (printed by `etg par`)."]
    lines += ["", f"Insurance: {'take' if s.insurance() else 'never'}."]
    return "\n".join(lines)


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
