"""How the pit view writes things: times, money, meter names, feed lines.

One spelling for each, used both when a page is rendered and for every live update (the
server writes a feed line once, and sends it as text), so a line that arrived live looks
exactly like the same line after a reload. Times are the floor's local time, always
``YYYY-MM-DD HH:MM:SS``; the page names the zone once.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Mapping
from typing import Any

import msgspec

from etgcore.money import dollars
from firmware.floor.schema import DealerView, RoundView
from firmware.journal import EventCode

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
#: the meters that count games, not money (every other meter is integer cents)
COUNT_METERS = ("games_played", "games_voided")
#: meter names as a floor supervisor reads them (§ 605a.5's coin in and coin out)
METER_NAMES = {
    "games_played": "games played",
    "games_voided": "games voided",
    "wagered": "coin in (wagered)",
    "paid": "coin out (paid)",
    "credits_in": "credits in (transfers)",
    "credits_out": "credits out (transfers)",
    "credits": "credits on the seats",
}


def when(ts: Any) -> str:
    """A Unix time as the pit writes every time; any other value as what it is (a page
    never fails on a time a table wrote: a year 10,000 is shown, not raised)."""
    if ts is None:
        return "–"
    try:
        return dt.datetime.fromtimestamp(float(ts)).strftime(TIME_FORMAT)
    except (ValueError, OverflowError, OSError, TypeError):
        return f"(time {str(ts)[:40]})"


def zone() -> str:
    """The floor's time zone, as the page names it once."""
    offset = -time.altzone if time.localtime().tm_isdst > 0 else -time.timezone
    sign = "+" if offset >= 0 else "-"
    h, m = divmod(abs(offset) // 60, 60)
    return f"{time.strftime('%Z')} (UTC{sign}{h:02d}:{m:02d})"


def meter(kind: str, value: Any) -> str:
    """A meter as a person reads it: games as a count, money in dollars and cents."""
    v = int(value or 0)
    return f"{v:,}" if kind in COUNT_METERS else dollars(v, exact=True)


def event_label(code: int | None) -> str:
    try:
        return EventCode(code).label if code is not None else "-"
    except ValueError:
        return str(code)


def _value(key: str, v: Any) -> str:
    if isinstance(v, int) and not isinstance(v, bool) and "cents" in key:
        return dollars(v, exact=True)
    if isinstance(v, int | float) and not isinstance(v, bool) and key in ("issued", "at"):
        return when(v)
    if isinstance(v, dict | list):
        return json.dumps(v, sort_keys=True)
    return str(v)


def _body(body: Any) -> dict[str, Any]:
    if isinstance(body, str):
        try:
            body = json.loads(body) if body else {}
        except ValueError:
            return {}
    return body if isinstance(body, dict) else {}


def event_line(e: Mapping[str, Any]) -> str:
    """``when · #seq · label · what``: amounts in dollars, keys as written."""
    body = _body(e.get("body"))
    what = ", ".join(f"{k.replace('cents', 'amount').replace('_', ' ')} {_value(k, v)}"
                     for k, v in sorted(body.items()) if v is not None and k != "sig")
    parts = [when(int(e["ts_ns"]) / 1e9), f"#{e['seq']}", event_label(e.get("code"))]
    return " · ".join(parts + ([what] if what else []))


def round_line(r: Mapping[str, Any]) -> str:
    """The schema's view of a round record (:class:`~firmware.floor.schema.RoundView`):
    what the edge checked is what is read here, so a record it took is always a line."""
    try:
        rec = msgspec.convert(_body(r.get("record")), RoundView, strict=True)
    except msgspec.ValidationError:
        rec = RoundView()
    d = rec.dealer or DealerView()
    total = f" ({d.total})" if d.total is not None else ""
    seats = ", ".join(f"seat {s.seat} {dollars(s.net, sign=True)}"
                      for s in rec.seats or [] if s.net is not None)
    number = rec.round if rec.round is not None else r.get("round")
    parts = [when(int(r["ts_ns"]) / 1e9), f"round {number}", str(rec.state or ""),
             f"dealer {' '.join(d.cards or [])}{total}"]
    return " · ".join(parts + ([seats] if seats else []))


def command_line(c: Mapping[str, Any]) -> str:
    reason = f": {c['reason']}" if c.get("reason") else ""
    return f"{when(c['at'])} · {c['action']} by {c['by']}{reason}"


def check_line(c: Mapping[str, Any]) -> str:
    if c.get("answered") is None:
        return (f"{when(c['asked'])} · asked by {c['by']} · seed {str(c['seed'])[:16]}… · "
                "waiting for the table's answer")
    claimed = f" · the table says: {c['claimed']}" if c.get("claimed") else ""
    return (f"{when(c['asked'])} · asked by {c['by']} · seed {str(c['seed'])[:16]}… · "
            f"{str(c['result']).upper()}: {c['detail']}{claimed}")


def alarm_line(a: Mapping[str, Any]) -> str:
    ack = (f" · acknowledged by {a['ack_by']} {when(a['ack_at'])}" if a.get("ack_at")
           else "")
    return f"{when(a['at'])} · {a['table']} · {a['kind']}: {a['detail']}{ack}"
