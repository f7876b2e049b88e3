"""Automatic players and an automatic dealer that act through the simulated panel.

For demos and soak runs: each auto-player watches the public view (what a player at the
table would see: never the hole card) and presses switches on the simulated key matrix,
so its presses go through the real scanner, debouncer and controller like a person's.
Decisions come from the computed basic strategy the composition root hands in (the
command line passes ``firmware.math``'s, imported only when an auto-player is asked for),
falling back to a plain rule where there is none or it cannot be computed for these
rules; the dealer closes betting when every auto seat has wagered, loads a new shoe when
one is needed, and resolves tilts (resume when the fault has cleared, void when it stays
active).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from etgcore.view import PublicView
from firmware.engine.cards import VALUE, parse_card

log = logging.getLogger("etg.autoplay")

#: The computed basic strategy for a rule set: an object whose ``decide(up, values, legal,
#: **situation)`` answers an action (or a decision with ``action`` and ``times``).
StrategyFor = Callable[[Any], Any]

ACTION_BUTTON = {
    "hit": "HIT", "stand": "STAND", "double": "DOUBLE", "split": "SPLIT",
    "surrender": "SURRENDER", "rescue": "SURRENDER", "insurance": "INSURANCE",
    "no-insurance": "STAND",
}
#: how long a finger stays on a switch (debounce needs 2 scans and 20 ms)
HOLD_S = 0.045
#: re-press when the table has not moved on after this long (a press lost to bounce)
RETRY_S = 1.0
#: a tilt whose fault stays active this long is voided by the auto-dealer
VOID_AFTER_S = 3.0


class Policy:
    """Which action to take: the one strategy of every auto-player (the panel's
    :class:`AutoPlay` and the engine's ``firmware.bench.engine_player.EnginePlayer``): the
    computed basic strategy ``strategy_for`` gives for these rules, falling back to a plain
    rule (hit below 17) where there is none or it cannot be computed (no numpy, a rule set
    it does not cover)."""

    def __init__(self, rules: Any, strategy_for: StrategyFor | None = None) -> None:
        self._strategy: Any = None
        if strategy_for is None:
            return
        try:
            self._strategy = strategy_for(rules)
        except Exception as exc:  # the auto-player must play on with a plain rule
            log.warning("computed strategy unavailable (%s); auto-players use a plain rule", exc)

    def decide_times(
        self, view: PublicView, seat: int, hand: int, legal: Sequence[str]
    ) -> tuple[str, int]:
        """``(action, times)`` from the public view: times is the double's multiple
        (Split to Double: 1..4)."""
        if "no-insurance" in legal:
            return "no-insurance", 1
        s = next(x for x in view["seats"] if x["seat"] == seat)
        h = s["hands"][hand - 1]  # hands count from 1
        bingo = view.get("bingo")
        target, multiplier = (bingo["target"], bingo["multiplier"]) if bingo else (None, None)
        pair = (target, multiplier) if target and multiplier else None
        split_hand = len(s["hands"]) > 1
        codes = [parse_card(c) for c in h["cards"]]
        return self.decide_hand(
            parse_card(view["dealer"]["cards"][0]), codes, legal, split_hand=split_hand,
            lammer=bool(h.get("lammer")), bingo=pair,
            # every hand of a split begins with a card of the pair
            split_ace=split_hand and bool(codes) and int(VALUE[codes[0]]) == 1,
            bob_alive=not any(x.get("status") == "bust" for x in s["hands"]),
        )

    def decide_hand(
        self, up: int, cards: Sequence[int], legal: Sequence[str], *,
        split_hand: bool = False, lammer: bool = False, split_ace: bool = False,
        bob_alive: bool = True, bingo: tuple[int, int] | None = None,
    ) -> tuple[str, int]:
        """``(action, times)`` for a hand of engine card codes against the dealer's up
        card (an engine card code), always one of ``legal``."""
        if "no-insurance" in legal:
            return "no-insurance", 1
        values = [int(VALUE[c]) for c in cards]
        if self._strategy is not None:
            try:
                d = self._strategy.decide(
                    int(VALUE[up]), values, legal, split_hand=split_hand, lammer=lammer,
                    after_double="rescue" in legal, bingo=bingo, split_ace=split_ace,
                    bob_alive=bob_alive,
                    # suits matter to one decision (Spanish 21's super bonus)
                    suited=len(cards) == 2 and cards[0] % 4 == cards[1] % 4,
                )
                action = getattr(d, "action", d)
                if action in legal:
                    return str(action), int(getattr(d, "times", 1) or 1)
            except Exception as exc:
                log.debug("strategy failed (%s); plain rule", exc)
        total = sum(values)
        if 1 in values and total + 10 <= 21:
            total += 10
        if total < 17 and "hit" in legal:
            return "hit", 1
        return ("stand" if "stand" in legal else legal[0]), 1


class AutoPlay:
    """A thread pressing simulated switches for ``seats`` and the console."""

    def __init__(
        self,
        sim: Any,
        rules: Any,
        seats: Sequence[int],
        *,
        wager_presses: int = 1,
        dealer: bool = True,
        strategy_for: StrategyFor | None = None,
    ) -> None:
        self.sim = sim
        self.seats = tuple(seats)
        self.policy = Policy(rules, strategy_for)
        self.wager_presses = wager_presses
        self.dealer = dealer
        self._view: PublicView | None = None
        self._changed = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="autoplay", daemon=True)
        self._last_key: Any = None
        self._last_at = 0.0
        self._tilt_since: float | None = None
        #: the double size the strategy chose, per (round, seat, hand), while it is pressed
        self._double_times: dict[tuple[Any, int, int], int] = {}

    def offer(self, view: PublicView) -> None:
        """Called with every public snapshot (never blocks)."""
        self._view = view
        self._changed.set()

    def start(self) -> AutoPlay:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._changed.set()
        self._thread.join(2.0)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._changed.wait(0.2)
            self._changed.clear()
            view = self._view
            if view is not None:
                try:
                    self._act(view)
                except Exception:  # never let a demo player take the table down
                    log.exception("auto-play step failed")

    def _press(self, seat: int | None, button: str) -> None:
        if seat is None:
            self.sim.press_console(button)
            time.sleep(HOLD_S)
            self.sim.release_console(button)
        else:
            self.sim.press(seat, button)
            time.sleep(HOLD_S)
            self.sim.release(seat, button)
        time.sleep(HOLD_S)

    def _once(self, key: Any, seat: int | None, button: str) -> None:
        """Press once per state; again only if the table has not moved on for a while."""
        now = time.monotonic()
        if key == self._last_key and now - self._last_at < RETRY_S:
            return
        self._last_key, self._last_at = key, now
        self._press(seat, button)

    def _act(self, view: PublicView) -> None:
        ctl = view.get("controller")
        if ctl and ctl["failure"]:
            return
        exp = view["expecting"]
        kind = exp["kind"]
        rnd = view["round"]
        if kind != "console":
            self._tilt_since = None
        pd = ctl["pending_double"] if ctl else None
        if pd is not None:
            if pd["seat"] in self.seats:
                want = self._double_times.get((rnd, pd["seat"], pd["hand"]), pd["times"])
                # each further DOUBLE press raises the pending double one step; STAND places it
                button = "DOUBLE" if pd["times"] < want else "STAND"
                self._once(("double", rnd, pd["seat"], pd["hand"], pd["times"], button),
                           pd["seat"], button)
            return
        if kind == "wagers":
            waiting = []
            closed = set(ctl["closed_seats"]) if ctl else set()  # disabled by the slot system
            least = view["limits"]["min_wager"]
            for s in view["seats"]:
                placed = view["phase"] == "betting" and s["wagers"].get("blackjack")
                # a seat that cannot bet (closed, or short of the minimum) is dealt around
                can_bet = s["seat"] not in closed and s["credits"] >= least
                if s["seat"] in self.seats and not placed and can_bet:
                    waiting.append(s["seat"])
            for seat in waiting:
                self._once(("bet", rnd, seat, view["phase"]), seat, "BET")
            if not waiting and self.dealer:
                self._once(("deal", rnd, view["phase"]), None, "DEAL")
        elif kind == "new-shoe" and self.dealer:
            self._once(("shuffle", rnd, view["shoe"]["cards_dealt"]), None, "SHUFFLE")
        elif kind == "console" and self.dealer:
            tilt: Mapping[str, Any] = view.get("tilt") or {}
            now = time.monotonic()
            if self._tilt_since is None:
                self._tilt_since = now
            # DEAL where the engine would resume the round; a fault still active, a new
            # shoe due or the same fault repeated: the supervisor voids it after a while
            if ctl and ctl["deal_resumes"]:
                self._once(("resume", rnd, tilt.get("cause")), None, "DEAL")
            elif now - self._tilt_since > VOID_AFTER_S:
                self._once(("void", rnd, tilt.get("cause")), None, "VOID")
        elif kind == "decision" and exp["seat"] in self.seats:
            seat, hand, legal = exp["seat"], exp["hand"] or 1, exp["legal"]
            action, times = self.policy.decide_times(view, seat, hand, legal)
            key = ("decide", rnd, seat, hand, tuple(legal), _cards_seen(view, seat))
            if action == "double":
                self._double_times = {(rnd, seat, hand): times}
            self._once(key, seat, ACTION_BUTTON[action])


def _cards_seen(view: PublicView, seat: int) -> int:
    s = next(x for x in view["seats"] if x["seat"] == seat)
    return sum(len(h["cards"]) for h in s["hands"])

