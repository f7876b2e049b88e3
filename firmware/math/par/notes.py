"""What each PAR figure approximates, with the size measured or bounded (the sheet's
"Method" section). A figure not named here is exact in real arithmetic and computed in
float64."""

from __future__ import annotations

from typing import Any

from firmware.math.ruleset import GameRules

#: Split to Double's frozen-card approximation against the all-cards calculation,
#: measured at each deck count the Rules Submission allows with this release's strategy
#: (docs/math.md, notes for the lab; rerun:
#: python -m firmware.math.games.split_to_double.all_cards_by_up_card --decks N):
#: (sum over up cards of shipped minus all cards, units of the wager; CPU minutes)
STD_RESIDUAL: dict[int, tuple[float, str]] = {
    6: (-4.12e-05, "6.6 minutes of CPU"),
    7: (-3.55e-05, "5.4 minutes of CPU"),
    8: (-3.12e-05, "5.5 minutes of CPU"),
}


def approximations(rules: GameRules, sheet: list[tuple[Any, Any]]) -> list[str]:
    """The sheet's approximation statements (the rules of its first configuration)."""
    out = ["Floating point: float64 throughout; a dealer law is within 1e-13 of the exact "
           "rational one (tests/math)."]
    if rules.hitting:
        from firmware.math.hands.up_card import J_CAP

        out.append("Card removal: none approximated. Every card the player draws comes from "
                   "the shoe less every card seen in the round, and each hand's dealer law "
                   "is the exact law of the shoe as that hand leaves it (one law per hand "
                   "composition). Split hands are exact with resplits: a later hand's "
                   "value does not depend on the earlier hands' drawn cards but through "
                   "the pair cards, and the dealer's law for a hand does not depend on the "
                   "later hands' cards (optional stopping; docs/math.md, section 3).")
        if rules.max_hands > 2 + J_CAP // 2:
            out.append(f"Resplits beyond {2 + J_CAP // 2} hands (max_hands "
                       f"{rules.max_hands}): compositions with more than {J_CAP} further "
                       "pair cards out reuse the one with "
                       f"{J_CAP} (their weight in the split value is below 1e-4 of the "
                       "split).")
        out.append("The paytable lines, the house edge, the element of risk and the "
                   "distribution of rounds without a split are exact. The distribution of "
                   "a round with a split (its probability exact) comes from a simulation "
                   "of split rounds, stated with each configuration: the standard "
                   "deviations, hit frequency, win/push/loss probabilities, ranges and "
                   "rounds for the house to be ahead carry that part.")
    else:
        out += _std(rules)
    if rules.spanish_bonuses is not None:
        out.append("Suits: bonus odds by exact suit counts; the strategy reads suits only "
                   "for an initial 7-7 against a 7 while the super bonus is live (split "
                   "hands 7-7 are played suit-blind).")
    return out


def _std(rules: GameRules) -> list[str]:
    from firmware.math.games.split_to_double.all_cards_return import DEPTH

    measured = "; ".join(f"{d} decks: {v:+.2e} of the wager ({how})" for d, (v, how)
                         in sorted(STD_RESIDUAL.items())) or "not measured"
    return [
        f"Card removal: the player's first {DEPTH} further cards of a round are removed "
        "exactly; later ones (resplits, a second hand's double) are drawn from the "
        "composition left then and removed for the dealer to first order. Against the "
        "calculation that tracks every card and computes every dealer law exactly, the "
        "whole figure (seat value, units of the wager), shipped minus all cards: "
        + measured + "; a negative difference is a certified house edge that much above "
        "the exact one (docs/math.md, notes for the lab).",
        "Dealer laws: a Newton series at the shoe less the up card, exact to the third "
        "differences (exact for up to three cards removed); measured against exact laws "
        "for the same paths at 6 decks: below 2e-9 of the wager for each up card measured.",
        "Lines: the rounds without a split are enumerated exactly; a round with a split is "
        "one line of each wager (its total from the certified figure), and its "
        "distribution comes from a simulation of split rounds (stated).",
    ]


__all__ = ["STD_RESIDUAL", "approximations"]
