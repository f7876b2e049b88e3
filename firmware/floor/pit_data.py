"""What the pit view shows, read from the floor database: tiles, alarms, a table's page.

Read-only: nothing here writes. A tile is a table at a glance (game, phase, round, tilt,
closed, online and since when, last seen, the gaming day's drop, win and hold, open
alarms, quarantine); the table page adds its meters, last rounds, event feed, the floor
commands sent to it and its software checks. Every time is written here
(:mod:`firmware.floor.pit_text`), so the page and its live updates agree.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from firmware.floor import gaming_day, pit_text
from firmware.floor.db import Database
from firmware.journal.messages import hold_percent


def _in(ids: list[str] | None, column: str = "table_id") -> tuple[str, tuple[Any, ...]]:
    if ids is None:
        return "", ()
    return f" WHERE {column} IN ({','.join('?' * len(ids))})", tuple(ids)


def open_alarms(db: Database, ids: list[str] | None) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    where, args = _in(ids)
    where = (where + " AND" if where else " WHERE") + " ack_at IS NULL"
    for aid, tid, kind, detail, at in db.all(
            "SELECT id, table_id, kind, detail, at FROM floor_alarms" + where + " ORDER BY id",
            args):
        out.setdefault(tid, []).append({"id": aid, "kind": kind, "detail": detail, "at": at})
    return out


def tiles(db: Database, ids: Iterable[str] | None = None,
          day_start_minutes: int = 360) -> list[dict[str, Any]]:
    wanted = None if ids is None else sorted(set(ids))
    if wanted == []:
        return []
    where, args = _in(wanted)
    alarms = open_alarms(db, wanted)
    today, _slot = gaming_day.day_and_slot(time.time(), day_start_minutes)
    out = []
    for (tid, status, online, meters, last_n, last_seq, last_seen, changed, quarantined,
         day, day_open) in db.all(
            "SELECT table_id, status, online, meters, last_n, last_seq, last_seen,"
            " online_changed, quarantined, day, day_open FROM floor_tables" + where
            + " ORDER BY table_id", args):
        st = json.loads(status) if status else {}
        m = json.loads(meters) if meters else {}
        opening = json.loads(day_open) if day_open and day == today else m
        out.append({
            "table": tid, "variant": st.get("variant"), "phase": st.get("phase"),
            "round": st.get("round"), "tilt": st.get("tilt"), "closed": bool(st.get("closed")),
            "failure": st.get("failure"), "online": bool(online), "holding": st.get("holding"),
            "since": pit_text.when(changed) if changed else None,
            "last_seen": pit_text.when(last_seen) if last_seen else None,
            "hold": hold_percent(m), "games": m.get("games_played"),
            "day": gaming_day.figures(m, opening),
            "alarms": alarms.get(tid, []), "quarantined": quarantined,
            # meters the plausibility check alarmed on (unbalanced, totals not the seats',
            # a jump no attendant makes): its drop and win are left out of the floor's
            # summary until a supervisor has looked (acknowledged the alarm)
            "meters_unverified": any(a["kind"] == "meters" for a in alarms.get(tid, [])),
            # a load test's table, by its own word: never hidden (nor left out of the
            # summary) while it has a tilt, a failure or an alarm to see
            "simulated": bool(st.get("simulated")) and not st.get("tilt")
            and not st.get("failure") and not alarms.get(tid),
            "software": st.get("software"),
            "last_n": last_n, "last_seq": last_seq,
        })
    return out


#: alarms one page of the list shows
ALARMS_PER_PAGE = 50
ALARM_STATES = ("open", "acknowledged", "all")


def alarm_list(db: Database, page: int = 1, per_page: int = ALARMS_PER_PAGE,
               table: str = "", kind: str = "", state: str = "all") -> dict[str, Any]:
    """Alarms newest first, filtered (table, kind, open or acknowledged), one page of
    them, with the total that matched and how many of all are open: a floor with a
    thousand open alarms still shows the newest (a real rollback) on top."""
    where, args = ["1 = 1"], []
    if table:
        where.append("table_id = ?")
        args.append(table)
    if kind:
        where.append("kind = ?")
        args.append(kind)
    if state == "open":
        where.append("ack_at IS NULL")
    elif state == "acknowledged":
        where.append("ack_at IS NOT NULL")
    cond = " AND ".join(where)
    total = db.one(f"SELECT COUNT(*) FROM floor_alarms WHERE {cond}", tuple(args))
    opened = db.one("SELECT COUNT(*) FROM floor_alarms WHERE ack_at IS NULL")
    page = max(1, page)
    rows = db.all(f"SELECT id, table_id, at, kind, detail, ack_by, ack_at FROM floor_alarms"
                  f" WHERE {cond} ORDER BY id DESC LIMIT ? OFFSET ?",
                  (*args, per_page, (page - 1) * per_page))
    items = []
    for aid, tid, at, k, detail, ack_by, ack_at in rows:
        a = {"id": aid, "table": tid, "at": at, "kind": k, "detail": detail,
             "ack_by": ack_by, "ack_at": ack_at}
        items.append({**a, "line": pit_text.alarm_line(a)})
    n = int(total[0]) if total else 0
    return {"items": items, "total": n, "open": int(opened[0]) if opened else 0,
            "page": page, "pages": max(1, -(-n // per_page)), "per_page": per_page,
            "table": table, "kind": kind, "state": state}


def table_page(db: Database, tid: str, rounds: int = 20, events: int = 50,
               day_start_minutes: int = 360) -> dict[str, Any] | None:
    found = tiles(db, [tid], day_start_minutes)
    if not found:
        return None
    row = db.one("SELECT meters FROM floor_tables WHERE table_id = ?", (tid,))
    meters = json.loads(row[0]) if row and row[0] else {}
    last_rounds = [
        pit_text.round_line({"seq": s, "round": r, "ts_ns": t, "record": rec})
        for s, r, t, rec in db.all(
            "SELECT seq, round_no, ts_ns, record FROM floor_rounds WHERE table_id = ?"
            " ORDER BY seq DESC LIMIT ?", (tid, rounds))
    ]
    feed = [
        pit_text.event_line({"seq": s, "code": c, "round": r, "ts_ns": t, "body": b})
        for s, c, r, t, b in db.all(
            "SELECT seq, code, round_no, ts_ns, body FROM floor_events WHERE table_id = ?"
            " ORDER BY seq DESC LIMIT ?", (tid, events))
    ]
    commands = [
        pit_text.command_line({"id": i, "action": a, "by": b, "at": at, "reason": why})
        for i, a, b, at, why in db.all(
            "SELECT id, action, by_name, at, reason FROM floor_commands WHERE table_id = ?"
            " ORDER BY at DESC LIMIT 20", (tid,))
    ]
    checks = [
        pit_text.check_line({"asked": a, "by": b, "seed": s, "answered": t, "result": r,
                             "detail": d, "claimed": c})
        for a, b, s, t, r, d, c in db.all(
            "SELECT asked, by_name, seed, answered, result, detail, claimed"
            " FROM floor_software_checks"
            " WHERE table_id = ? ORDER BY asked DESC LIMIT 10", (tid,))
    ]
    evidence = db.one("SELECT COUNT(*) FROM floor_evidence WHERE table_id = ?", (tid,))
    return {"tile": found[0], "meters": meters, "rounds": last_rounds, "events": feed,
            "commands": commands, "checks": checks,
            "evidence": int(evidence[0]) if evidence else 0}


def chart_points(db: Database, tid: str, day_start_minutes: int) -> tuple[str, list[tuple[
        int, int, int]]]:
    """Today's (slot, win, drop) of a table, for its chart."""
    today, _slot = gaming_day.day_and_slot(time.time(), day_start_minutes)
    rows = db.all("SELECT slot, win_cents, drop_cents FROM floor_meter_points"
                  " WHERE table_id = ? AND day = ? ORDER BY slot", (tid, today))
    return today, [(int(s), int(w), int(d)) for s, w, d in rows]
