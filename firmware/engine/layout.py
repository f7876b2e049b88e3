"""Layout data for the UI, derived from the rules in force (baseline §6).

The regulated inscriptions and paytables are computed from the Rules Submission values
(``blackjack_pays`` gives "Blackjack pays 3 to 2", ``dealer_hits_soft_17`` picks the
dealer-rule wording of the file's ``[layout]`` section), so a value is written once, in
the Rules Submission, and the layout can never disagree with what the engine pays.
"""

from __future__ import annotations

from typing import Any

from firmware.engine.rules import Rules
from firmware.engine.settings import odds_text

#: the base game's betting areas and their printed names; every other area is a wager a
#: mechanism declares (:class:`~firmware.engine.mechanism.WagerSpec`)
BASE_AREAS = {"blackjack": "BLACKJACK", "insurance": "INSURANCE"}


def dealer_rule(rules: Rules) -> str:
    key = "dealer_hits_soft_17" if rules.dealer_hits_soft_17 else "dealer_stands_soft_17"
    return str(rules.layout[key])


def layout_for(rules: Rules) -> dict[str, Any]:
    """``{"title", "inscriptions", "paytables", "betting_areas", "wagers", "draw_panel",
    "max_seats"}``: ``wagers`` declares each betting area (name, printed label, optional)
    from the mechanisms' declarations, so the UI draws a spot for every wager the rules
    offer without a list of its own; ``draw_panel``: the round waits for an RNG draw."""
    inscriptions = [
        f"Blackjack pays {odds_text(rules.blackjack_pays)}",
        f"Insurance pays {odds_text(rules.insurance_pays)}",
        dealer_rule(rules),
        *[str(s) for s in rules.layout["inscriptions"]],
    ]
    areas = list(BASE_AREAS)
    wagers = [{"name": n, "label": label, "optional": False} for n, label in BASE_AREAS.items()]
    paytables: list[dict[str, Any]] = [
        {
            "title": "Blackjack wager",
            "rows": [
                ["Blackjack", odds_text(rules.blackjack_pays)],
                ["Winning hand", "1 to 1"],
                ["Insurance", odds_text(rules.insurance_pays)],
            ],
        }
    ]
    for m in rules.mechanisms:
        inscriptions.extend(m.inscriptions(rules))
        paytables.extend(m.paytables(rules))
        for w in m.wagers_in_force():
            if w.name not in areas:
                areas.append(w.name)
                wagers.append({"name": w.name, "label": w.label, "optional": w.optional})
    limit = rules.max_payout_per_round
    if limit is not None and not rules.payout_limit_exempt:
        paytables[0]["rows"].append(
            ["Most paid to one player in a round", f"${limit // 100:,}.{limit % 100:02d}"]
        )
    return {
        "title": rules.title,
        "inscriptions": inscriptions,
        "paytables": paytables,
        "betting_areas": areas,
        "wagers": wagers,
        "draw_panel": bool(rules.hooks.draw_request),
        "max_seats": rules.max_seats,
    }
