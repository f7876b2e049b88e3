"""Does what a table reports make sense? Meters that fall or go negative, and clocks.

§ 605a.5's meters are cumulative: within one journal (the floor's record of a table from
its first message on) coin in, coin out, games, credits in and out only ever grow, and
nothing is negative — a seat's credit balance included. A meters message that breaks this
is stored as reported (it is evidence) and raises a ``meters`` alarm naming each figure.

A table's clock is judged from the time it says it sent a status (``sent``) against the
floor's receipt. Ahead by more than :data:`CLOCK_TOLERANCE_S` cannot be delivery delay, so
one message says so; behind can be (a message queued by the broker while the floor was
away), so the floor keeps the smallest lag of the last :data:`LAG_SAMPLES` statuses — a
delay only adds to it — and calls the clock behind when even that is too large. The clock
never orders anything: the pit orders a table's reports by its journal's sequence.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

from etgcore.money import dollars
from firmware.floor.pit_text import METER_NAMES, when

#: how far a table's clock may be from the floor's before the clock alarm
CLOCK_TOLERANCE_S = 120.0
LAG_SAMPLES = 3
#: the meters that only ever grow within one journal
COUNTERS = ("games_played", "games_voided", "wagered", "paid", "credits_in", "credits_out")
_COUNTS = ("games_played", "games_voided")


def _show(name: str, value: int) -> str:
    return f"{value:,}" if name in _COUNTS else dollars(value, exact=True)


def _rows(m: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Every group of figures in a meters message, by a name for a person."""
    rows: dict[str, Mapping[str, Any]] = {"table": m}
    for s in m.get("seats") or []:
        rows[f"seat {s.get('seat')}"] = s
    for kind, v in (m.get("by_wager") or {}).items():
        rows[f"{kind} wagers"] = v
    return rows


def meter_problems(before: Mapping[str, Any] | None, now: Mapping[str, Any]) -> list[str]:
    """What is wrong with ``now`` after ``before`` (None: the first the floor holds)."""
    problems = _whole(before, now)
    old = _rows(before) if before else {}
    for where, row in _rows(now).items():
        for name in (*COUNTERS, "credits"):
            if name not in row:
                continue
            v = int(row[name])
            said = METER_NAMES.get(name, name)
            if v < 0:
                problems.append(f"{where} {said} is negative ({_show(name, v)})")
            was = old.get(where, {}).get(name)
            if name in COUNTERS and was is not None and v < int(was):
                problems.append(f"{where} {said} went back from {_show(name, int(was))} to "
                                f"{_show(name, v)}")
    return problems


#: credits transferred onto a table (or paid out to it) between two of its meters records
#: beyond which the step is an alarm ($1,000,000: no attendant transfers that, and no
#: round pays that, between two rounds)
MAX_CREDIT_STEP = 100_000_000


def _whole(before: Mapping[str, Any] | None, now: Mapping[str, Any]) -> list[str]:
    """The table's own balance check, its totals against its seats, and a credit step no
    attendant could make."""
    out = []
    if now.get("balanced") is False:
        out.append("the table reports its meters unbalanced (credits on the seats are not "
                   "credits in − out − coin in + coin out)")
    seats = now.get("seats") or []
    for name in ("credits_in", "credits_out") if seats else ():
        by_seat = sum(int(s.get(name) or 0) for s in seats)
        if by_seat != int(now.get(name) or 0):
            out.append(f"the table's {METER_NAMES.get(name, name)} "
                       f"({_show(name, int(now.get(name) or 0))}) is not the sum of its "
                       f"seats' ({_show(name, by_seat)})")
    if all(k in now for k in ("credits", "credits_in", "credits_out", "wagered", "paid")):
        owed = (int(now["credits_in"]) - int(now["credits_out"]) - int(now["wagered"])
                + int(now["paid"]))
        if int(now["credits"]) != owed and now.get("balanced") is True:  # (its claim)
            out.append(f"the table's credits ({_show('credits', int(now['credits']))}) are "
                       f"not credits in − out − coin in + coin out ({_show('credits', owed)})"
                       " (the floor's own arithmetic, whatever the table says)")
    if before is not None:
        out += _steps(before, now)
    return out


def _steps(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """Steps between two meters no table could make: credits in or coin out by more than
    :data:`MAX_CREDIT_STEP`. (Coin in beyond the credits held shows as negative credits,
    or as credits that are not the meters' own arithmetic.)"""
    out = []
    for name in ("credits_in", "paid"):
        step = int(now.get(name) or 0) - int(before.get(name) or 0)
        if step > MAX_CREDIT_STEP:
            out.append(f"{METER_NAMES.get(name, name)} rose by {_show(name, step)} in one "
                       f"step (more than {_show(name, MAX_CREDIT_STEP)})")
    return out


class ClockWatch:
    """One table's clock against the floor's."""

    def __init__(self) -> None:
        self.lags: deque[float] = deque(maxlen=LAG_SAMPLES)

    def problem(self, sent: float, received: float) -> str | None:
        ahead = sent - received
        if ahead > CLOCK_TOLERANCE_S:
            return (f"the table's clock is {_span(ahead)} ahead of the floor's (a status "
                    f"sent at {when(sent)} by its clock arrived at {when(received)})")
        self.lags.append(received - sent)
        if len(self.lags) == LAG_SAMPLES and min(self.lags) > CLOCK_TOLERANCE_S:
            return (f"the table's clock is at least {_span(min(self.lags))} behind the "
                    f"floor's ({LAG_SAMPLES} statuses in a row)")
        return None


def record_ahead(ts_ns: int, received: float) -> str | None:
    """A record journaled 'in the future' by the floor's clock."""
    ahead = ts_ns / 1e9 - received
    if ahead > CLOCK_TOLERANCE_S:
        return f"the table journals records {_span(ahead)} ahead of the floor's clock"
    return None


def _span(seconds: float) -> str:
    s = int(seconds)
    if s < 120:
        return f"{s} s"
    if s < 7200:
        return f"{s // 60} min"
    if s < 172800:
        return f"{s // 3600} h"
    return f"{s // 86400} days"
