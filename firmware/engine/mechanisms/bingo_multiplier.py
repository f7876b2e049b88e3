"""The Bingo target and multiplier (§ 633b.28(e), (f), (g); baseline §3).

After betting closes and before the first card the table asks for an RNG draw of the
target hand total and the multiplier (independent draws; the RNG weighs them with the
Rules Submission's ``target_weights`` and ``multiplier_weights``). A hand whose final total
equals the target and whose Blackjack wager wins is paid its odds times the multiplier:
1 to 1 becomes m to 1 and a Blackjack on target 21 becomes 3m to 2. Split hands count; a
Double Down wager is paid 1 to 1 unless ``multiplier_on_double``. A target-matching push
stays a push (the activator is lost by its own mechanism).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from etgcore.errors import ConfigError
from firmware.engine.mechanism import DrawRequest, Mechanism, register_mechanism
from firmware.engine.settings import odds_text

if TYPE_CHECKING:
    from etgcore.view import MechanismFields
    from firmware.engine.hand import Hand, Seat
    from firmware.engine.ledger import Ledger
    from firmware.engine.mechanism import RoundView, RulesInForce

TARGET = "bingo_target"
MULTIPLIER = "bingo_multiplier"
WINS = ("win", "blackjack")


@register_mechanism
class BingoMultiplier(Mechanism):
    name = "bingo-multiplier"
    game_keys: ClassVar[dict[str, Any]] = {
        "bingo_targets": list(range(12, 22)),          # § 633b.28(e)(1)
        "bingo_multipliers": [2, 5, 10, 25, 50, 100],  # § 633b.28(e)(2)
    }

    def __init__(self, rules: RulesInForce) -> None:
        super().__init__(rules)
        src = rules.file.source
        for key in ("bingo_targets", "bingo_multipliers"):
            v = rules.game[key]
            if not isinstance(v, list) or not v or not all(
                isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v
            ):
                raise ConfigError(src, f"game.{key}", "must be a list of positive integers")
        self.targets = tuple(int(x) for x in rules.game["bingo_targets"])
        self.multipliers = tuple(int(x) for x in rules.game["bingo_multipliers"])
        self.on_double = bool(rules.settings.get("multiplier_on_double", False))
        self.request = DrawRequest(
            {TARGET: self.targets, MULTIPLIER: self.multipliers},
            why="RNG draw: the Bingo target and the Bingo multiplier",
        )

    def check_rules(self, rules: RulesInForce, source: str) -> None:
        for key, values in (("target_weights", self.targets),
                            ("multiplier_weights", self.multipliers)):
            w = rules.settings.get(key)
            if not isinstance(w, dict) or set(w) != {str(v) for v in values}:
                raise ConfigError(source, f"rules.{key}",
                                  f"needs an integer weight for each of {list(values)}")

    def paytables(self, rules: RulesInForce) -> list[dict[str, Any]]:
        bj = rules.blackjack_pays
        rows = []
        for m in self.multipliers:
            rows.append([f"Winning hand on the Bingo target, {m}x", odds_text(Fraction(m))])
            rows.append([f"Blackjack on Bingo target 21, {m}x", odds_text(bj * m)])
        dbl = "its odds x the multiplier" if self.on_double else "1 to 1"
        rows.append(["Double Down wager on the Bingo target", dbl])
        targets = ", ".join(str(t) for t in self.targets)
        rows.append(["Bingo targets", targets])
        return [{"title": "Bingo target and multiplier", "rows": rows}]

    # -- the round -------------------------------------------------------------------
    def new_round(self, view: RoundView) -> dict[str, Any]:
        return {"bingo": {"target": None, "multiplier": None}}

    def draw_request(self, view: RoundView) -> DrawRequest | None:
        return self.request

    def apply_draw(self, view: RoundView, values: dict[str, int]) -> dict[str, Any]:
        return {"bingo": {"target": values[TARGET], "multiplier": values[MULTIPLIER]}}

    def _drawn(self, view: RoundView) -> tuple[int, int] | None:
        b = view.notes.get("bingo")
        if not b or b["target"] is None:
            return None
        return b["target"], b["multiplier"]

    def hand_odds(
        self, view: RoundView, seat: Seat, hand: Hand, part: str, odds: Fraction
    ) -> Fraction:
        drawn = self._drawn(view)
        if drawn is None or hand.total != drawn[0]:
            return odds
        if part == "wager" or self.on_double:
            return odds * drawn[1]
        return odds

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        drawn = self._drawn(view)
        if drawn is None:
            return
        for h in seat.hands:
            if h.result in WINS and h.total == drawn[0]:
                h.extra = {**(h.extra or {}), "bingo_hit": True}

    def public_fields(self, view: RoundView) -> MechanismFields:
        b = view.notes.get("bingo") or {"target": None, "multiplier": None}
        return {"bingo": {"target": b["target"], "multiplier": b["multiplier"]}}
