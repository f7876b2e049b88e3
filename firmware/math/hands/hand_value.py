"""Expected value of one hand: stand, hit, double (with rescue), for one composition.

A :class:`HandSolver` is built for one situation: the draw probabilities of the player's
next cards, the dealer's final-total law (conditioned on no dealer Blackjack: every game
here checks first, baseline §1.4), the up card and the wagers' payoffs. It values every
hand state by backward recursion; with a ``policy`` it plays the given decisions instead of
the best ones, and with a ``record`` it writes the best decisions down (that is how the
total-dependent strategy is made).

Values may be vectors: Bingo's payoff depends on the target and multiplier drawn before
the cards, so its hands are valued for all 60 (target, multiplier) pairs at once, one
numpy lane each. Every other game has one lane and runs on plain floats.

Hand state: hard total (aces as 1), whether it holds an ace, number of cards (capped where
more cards change nothing), and for Spanish 21 the partial 6-7-8 / 7-7-7 (``tag``).
Context: made by a split, wager is a Free Bet lammer, a split ace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from firmware.math.dealer.final_total import I22, IBUST
from firmware.math.ruleset import GameRules

# Decision codes (also the strategy table's).
STAND, HIT, DOUBLE, DOUBLE_MAX, SPLIT, SURRENDER = 0, 1, 2, 3, 4, 5
ACTION_NAMES = ("stand", "hit", "double", "double-max", "split", "surrender")
ACTION_LETTERS = ("S", "H", "D", "D4", "P", "R")

Value = Any  # float, or np.ndarray of shape (K,)


@dataclass(frozen=True)
class HandCtx:
    split: bool = False
    lammer: bool = False
    split_ace: bool = False


def total_of(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard <= 11 else hard


#: A two-card 7-7 whose suits the strategy knows (Spanish 21 against a 7 up while the
#: super bonus is live, § 635a.12(c)), and the 7-7-7 each can become.
SUITED_77: tuple[Any, ...] = (7, 7, "suited")
MIXED_77: tuple[Any, ...] = (7, 7, "mixed")
SUITED_777: tuple[Any, ...] = (7, 7, 7, "suited")
MIXED_777: tuple[Any, ...] = (7, 7, 7, "mixed")


def next_tag(tag: tuple[Any, ...] | None, v: int) -> tuple[Any, ...] | None:
    """Track a hand that may still become 6-7-8 or 7-7-7 (§ 635a.12(b)(1)-(4))."""
    if tag is SUITED_77 or tag == SUITED_77:
        return SUITED_777 if v == 7 else None
    if tag == MIXED_77:
        return MIXED_777 if v == 7 else None
    if tag is None or v not in (6, 7, 8) or len(tag) >= 3:
        return None
    new = tuple(sorted((*tag, v)))
    ok = all(new.count(x) <= 1 for x in (6, 8)) and (new.count(7) <= 1 or all(x == 7 for x in new))
    return new if ok else None


class HandSolver:
    """Values hand states for one composition and one dealer law."""

    def __init__(
        self,
        rules: GameRules,
        q: Sequence[float],
        dealer: Sequence[float],
        up: int,
        win_factor: Sequence[Value],
        *,
        suit_factors: tuple[float, float] = (1.0, 1.0),
        suited_777: tuple[float, float] = (1.0, 1.0),
        policy: Callable[[tuple[Any, ...]], Value] | None = None,
        record: dict[tuple[Any, ...], Value] | None = None,
        lanes: int = 1,
    ) -> None:
        self.r = rules
        self.q = tuple(q)
        self.up = up
        self.lanes = lanes
        self.vec = lanes > 1
        self.win_factor = win_factor  # main-wager win odds by final total (Bingo lanes)
        self.suit_factors = suit_factors  # expected (6-7-8, 7-7-7) bonus odds, Spanish
        #: expected 7-7-7 odds after a suited / a mixed 7-7 (super bonus included)
        self.suited_777 = suited_777
        self.policy = policy
        self.record = record
        self.memo: dict[tuple[Any, ...], Value] = {}
        self.spanish = rules.spanish_bonuses is not None
        self.nc_cap = 7 if self.spanish else 3
        d = dealer
        bust = d[I22] + d[IBUST]
        dealer_22_push = d[I22] if rules.dealer_22_pushes else 0.0
        bust_win = bust - dealer_22_push
        # P(win), P(push), P(lose) of a standing total 0..21.
        self.pw = [0.0] * 22
        self.pp = [0.0] * 22
        self.pl = [0.0] * 22
        for t in range(22):
            w = bust_win
            p = dealer_22_push
            for i, dt in enumerate(range(17, 22)):
                if t > dt or (t == 21 and dt == 21 and rules.player_21_wins):
                    w += d[i]
                elif t == dt:
                    p += d[i]
            self.pw[t], self.pp[t] = w, p
            self.pl[t] = max(0.0, 1.0 - w - p)

    # -- helpers ---------------------------------------------------------------------
    def _max(self, a: Value, b: Value) -> Value:
        return np.maximum(a, b) if self.vec else (a if a >= b else b)

    def _pick(self, options: list[tuple[int, Value]], key: tuple[Any, ...]) -> Value:
        """The chosen option's value: the policy's, or the best (recorded)."""
        if self.policy is not None:
            dec = self.policy(key)
            if dec is not None:
                if not self.vec:
                    for code, val in options:
                        if code == dec:
                            return val
                else:  # a lane whose decision is not offered here takes the first option
                    out = np.array(options[0][1], dtype=float)
                    for code, val in options[1:]:
                        out = np.where(dec == code, val, out)
                    return out
        if not self.vec:
            best_code, best = options[0]
            for code, val in options[1:]:
                if val > best + 1e-12:
                    best_code, best = code, val
            if self.record is not None:
                self.record[key] = best_code
            return best
        stack = np.stack([np.broadcast_to(v, (self.lanes,)) for _, v in options])
        idx = np.argmax(stack - 1e-12 * np.arange(len(options))[:, None], axis=0)
        if self.record is not None:
            self.record[key] = np.array([options[i][0] for i in idx])
        return stack[idx, np.arange(self.lanes)]

    def bonus_odds(self, nc: int, tag: tuple[int, ...] | None) -> float:
        """Odds paid on a winning, undoubled 21 of ``nc`` cards (1.0 when no bonus)."""
        b = self.r.spanish_bonuses
        if b is None:
            return 1.0
        if nc == 3 and tag == (6, 7, 8):
            return self.suit_factors[0]
        if nc == 3 and tag == (7, 7, 7):
            return self.suit_factors[1]
        if nc == 3 and tag == SUITED_777:
            return self.suited_777[0]
        if nc == 3 and tag == MIXED_777:
            return self.suited_777[1]
        if nc == 5:
            return float(b.five_card_21)
        if nc == 6:
            return float(b.six_card_21)
        if nc >= 7:
            return float(b.seven_card_21)
        return 1.0

    # -- values ----------------------------------------------------------------------
    def stand(
        self, hard: int, ace: bool, nc: int, tag: Any, ctx: HandCtx, k: int = 0, dlam: bool = False
    ) -> Value:
        """Value of standing (``k`` > 0: with a Double Down wager of k units)."""
        t = total_of(hard, ace)
        main_loss = 0.0 if ctx.lammer else 1.0
        dbl_loss = 0.0 if dlam else float(k)
        if t > 21:
            return -(main_loss + dbl_loss)
        win_main = self.win_factor[t]
        if t == 21 and k == 0 and self.spanish:
            win_main = win_main * self.bonus_odds(nc, tag)
        win_dbl = k * (self.win_factor[t] if self.r.multiplier_on_double else 1.0)
        return self.pw[t] * (win_main + win_dbl) - self.pl[t] * (main_loss + dbl_loss)

    def can_hit(self, ctx: HandCtx) -> bool:
        return self.r.hitting and not (ctx.split_ace and self.r.split_aces_one_card)

    def double_kinds(
        self, hard: int, ace: bool, nc: int, ctx: HandCtx
    ) -> list[tuple[int, int, bool]]:
        """Doubles open to this hand: (decision code, multiple, is a lammer)."""
        r = self.r
        if not r.double_times or (nc > 2 and r.double_cards != "any"):
            return []
        if ctx.split and not r.double_after_split:
            return []
        if ctx.split_ace and r.split_aces_one_card:
            return []
        t = total_of(hard, ace)
        if nc == 2 and not ace and hard in r.free_double_on:
            return [(DOUBLE, 1, True)]
        if r.double_on == "9-11" and t not in (9, 10, 11):
            return []
        if r.double_on == "10-11" and t not in (10, 11):
            return []
        lo, hi = min(r.double_times), max(r.double_times)
        out = [(DOUBLE, lo, False)]
        if hi != lo:
            out.append((DOUBLE_MAX, hi, False))
        return out

    def doubled(
        self, hard: int, ace: bool, nc: int, tag: Any, ctx: HandCtx, k: int, dlam: bool
    ) -> Value:
        """Value of doubling: one card, then stand (or rescue, § 635a.10(d))."""
        total: Value = 0.0
        nc2 = min(nc + 1, self.nc_cap)
        for v in range(1, 11):
            p = self.q[v - 1]
            if not p:
                continue
            h2, a2 = hard + v, ace or v == 1
            val = self.stand(h2, a2, nc2, None, ctx, k, dlam)
            if self.r.rescue and total_of(h2, a2) <= 21:
                key = ("rescue", self.up, h2, a2, ctx.lammer)
                val = self._pick([(STAND, val), (SURRENDER, -1.0 if not ctx.lammer else 0.0)], key)
            total = total + p * val
        return total

    def value(self, hard: int, ace: bool, nc: int, tag: Any, ctx: HandCtx) -> Value:
        """Best (or policy) value of a live hand, without split or surrender."""
        nc = min(nc, self.nc_cap)
        key = (hard, ace, nc, tag, ctx)
        got = self.memo.get(key)
        if got is not None:
            return got
        stand = self.stand(hard, ace, nc, tag, ctx)
        if total_of(hard, ace) >= 21:
            self.memo[key] = stand
            return stand
        options: list[tuple[int, Value]] = [(STAND, stand)]
        if self.can_hit(ctx):
            hit: Value = 0.0
            for v in range(1, 11):
                p = self.q[v - 1]
                if not p:
                    continue
                h2 = hard + v
                if h2 > 21:
                    hit = hit + p * self.stand(h2, False, nc + 1, None, ctx)
                else:
                    hit = hit + p * self.value(h2, ace or v == 1, nc + 1, next_tag(tag, v), ctx)
            options.append((HIT, hit))
        for code, k, dlam in self.double_kinds(hard, ace, nc, ctx):
            options.append((code, self.doubled(hard, ace, nc, tag, ctx, k, dlam)))
        res = self._pick(options, ("play", self.up, *key))
        self.memo[key] = res
        return res
