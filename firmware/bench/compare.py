"""What a round came to, read from the public view, and how it differs from `expect`.

Both runners observe through the public view (the same snapshot the UI gets), so the
comparison is one piece of code for engine and hardware-in-the-loop depth.
"""

from __future__ import annotations

from dataclasses import dataclass

from etgcore.view import PublicView, SeatView
from firmware.bench.scenario import Round

STATE_OF_PHASE = {"settled": "settled", "voided": "voided", "tilt": "tilted"}
#: engine hand results outside the format's five, as the main wager's result: a rescued
#: hand forfeits its original wager (§ 635a.10(d)), so that wager lost
RESULT_OF_HAND = {"rescue": "lose"}


@dataclass(frozen=True)
class Observed:
    state: str                       # settled | voided | tilted | <phase> when none of them
    nets: dict[int, int]             # seat -> credits after minus before (stakes on the table
                                     # of an unsettled round count as the seat's)
    results: dict[int, str | None]   # seat -> first hand's result
    dealer: int | str | None         # total, "blackjack" or "bust" (None: hole not shown)
    tilt: str | None = None          # the table's own reason when it tilted


def _stake_on_table(seat: SeatView) -> int:
    wagers = seat["wagers"]
    hands = seat["hands"]
    if not hands:
        return sum(wagers.values())
    stake = sum(v for k, v in wagers.items() if k != "blackjack")
    for h in hands:
        stake += 0 if h["lammer"] else h["wager"]
        stake += 0 if h["double_lammer"] else h["double"]
    return stake


def observe(view: PublicView, credits_before: dict[int, int]) -> Observed:
    """The round's outcome from a public view and each seat's credits before the round."""
    state = STATE_OF_PHASE.get(view["phase"], view["phase"])
    nets: dict[int, int] = {}
    results: dict[int, str | None] = {}
    for s in view["seats"]:
        n = s["seat"]
        if n not in credits_before:
            continue
        after = s["credits"]
        if s["net"] is None:  # not settled: what is still on the table is the seat's
            after += _stake_on_table(s)
        nets[n] = after - credits_before[n]
        first = s["hands"][0]["result"] if s["hands"] else None
        results[n] = RESULT_OF_HAND.get(first, first) if first is not None else None
    d = view["dealer"]
    dealer: int | str | None
    if not d["hole_revealed"]:
        dealer = None
    elif d["blackjack"]:
        dealer = "blackjack"
    elif d["bust"]:
        dealer = "bust"
    else:
        dealer = d["total"]
    tilt = view.get("tilt")
    return Observed(state, nets, results, dealer, tilt["cause"] if tilt else None)


def differences(rnd: Round, seen: Observed) -> list[str]:
    """Every way the observed round differs from the round's expectations."""
    out: list[str] = []
    if seen.state != rnd.state:
        why = f" ({seen.tilt})" if seen.tilt else ""  # the table says why it tilted
        out.append(f"outcome state {seen.state}, expected {rnd.state}{why}")
    for e in rnd.expects:
        if e.seat not in seen.nets:
            out.append(f"seat {e.seat} did not play")
            continue
        if e.net is not None and seen.nets[e.seat] != e.net:
            out.append(f"seat {e.seat} net {seen.nets[e.seat]}, expected {e.net}")
        if e.result is not None and seen.results[e.seat] != e.result:
            out.append(f"seat {e.seat} result {seen.results[e.seat]}, expected {e.result}")
    if rnd.dealer is not None and seen.dealer != rnd.dealer:
        out.append(f"dealer {seen.dealer}, expected {rnd.dealer}")
    return [f"round {rnd.number}: {d}" for d in out]
