"""What an RNG draw asks of the certified RNG: the values a draw request names, with the
weights of the Rules Submission.

Separate from the controller so the weighting has one place and one test surface; the
controller only asks when the engine expects a draw (its result is itself an input).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from firmware.table.ports import RngPort


def draw_values(
    rng: RngPort, rules: Any, round_no: int, domain: Mapping[str, tuple[int, ...]]
) -> tuple[dict[str, int], dict[str, Any]]:
    """Ask the RNG for the values a draw request names, from the Rules Submission's weights.

    A value ``NAME`` (e.g. ``bingo_target``) is drawn from the setting ``NAME_weights``
    minus any ``bingo_`` prefix (``target_weights``); the Bingo pair goes through the RNG's
    Bingo draw so its record is the one the lab certifies.
    """
    weights: dict[str, dict[int, int]] = {}
    for name, allowed in domain.items():
        key = name.removeprefix("bingo_") + "_weights"
        w = rules.settings.get(key) if hasattr(rules, "settings") else None
        table = {int(k): int(v) for k, v in dict(w).items()} if w else {v: 1 for v in allowed}
        weights[name] = {k: v for k, v in table.items() if k in allowed}
    if set(domain) == {"bingo_target", "bingo_multiplier"}:
        d = rng.draw_bingo(round_no, weights["bingo_target"], weights["bingo_multiplier"])
        return {"bingo_target": d.target, "bingo_multiplier": d.multiplier}, d.to_json()
    values = {name: rng.weighted_choice(w) for name, w in weights.items()}
    return values, {"kind": "draw", "round": round_no, "values": values}


def forced_refusal(values: Mapping[str, int], domain: Mapping[str, tuple[int, ...]]
                   ) -> str | None:
    """Why a bench's forced draw cannot be the draw the round asks for (names and values
    from the round's own domain), or None (red team F10: an out-of-range value was
    journaled and the round stalled silently)."""
    if set(values) != set(domain):
        return (f"it names {sorted(values)}, the round draws {sorted(domain)}")
    for name, v in values.items():
        if v not in domain[name]:
            return f"{name} {v} is not one of the round's values"
    return None
