"""What the pit view shows, read from the floor database: tiles and a table's page.

Read-only: nothing here writes. A tile is a table at a glance (game, phase, round, tilt,
closed, online, hold percentage, alarms); the table page adds its meters, last rounds,
event feed and the floor commands sent to it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from firmware.floor.db import Database
from firmware.journal.messages import hold_percent


def _alarms(db: Database, ids: list[str] | None) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    sql = "SELECT table_id, kind, detail, at FROM floor_alarms"
    args: tuple[Any, ...] = ()
    if ids is not None:
        sql += f" WHERE table_id IN ({','.join('?' * len(ids))})"
        args = tuple(ids)
    for tid, kind, detail, at in db.all(sql + " ORDER BY id", args):
        out.setdefault(tid, []).append({"kind": kind, "detail": detail, "at": at})
    return out


def tiles(db: Database, ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
    wanted = None if ids is None else sorted(set(ids))
    if wanted == []:
        return []
    sql = "SELECT table_id, status, online, meters, last_n, last_seq FROM floor_tables"
    args: tuple[Any, ...] = ()
    if wanted is not None:
        sql += f" WHERE table_id IN ({','.join('?' * len(wanted))})"
        args = tuple(wanted)
    alarms = _alarms(db, wanted)
    out = []
    for tid, status, online, meters, last_n, last_seq in db.all(sql + " ORDER BY table_id",
                                                                 args):
        st = json.loads(status) if status else {}
        m = json.loads(meters) if meters else {}
        out.append({
            "table": tid, "variant": st.get("variant"), "phase": st.get("phase"),
            "round": st.get("round"), "tilt": st.get("tilt"), "closed": bool(st.get("closed")),
            "failure": st.get("failure"), "online": bool(online), "hold": hold_percent(m),
            "games": m.get("games_played"), "alarms": alarms.get(tid, []),
            "software": st.get("software"), "last_n": last_n, "last_seq": last_seq,
        })
    return out


def table_page(db: Database, tid: str, rounds: int = 20, events: int = 50) -> dict[str, Any] | None:
    found = tiles(db, [tid])
    if not found:
        return None
    row = db.one("SELECT meters FROM floor_tables WHERE table_id = ?", (tid,))
    meters = json.loads(row[0]) if row and row[0] else {}
    last_rounds = [
        {"seq": s, "round": r, "ts_ns": t, "record": json.loads(rec)}
        for s, r, t, rec in db.all(
            "SELECT seq, round_no, ts_ns, record FROM floor_rounds WHERE table_id = ?"
            " ORDER BY seq DESC LIMIT ?", (tid, rounds))
    ]
    feed = [
        {"seq": s, "code": c, "round": r, "ts_ns": t, "body": json.loads(b)}
        for s, c, r, t, b in db.all(
            "SELECT seq, code, round_no, ts_ns, body FROM floor_events WHERE table_id = ?"
            " ORDER BY seq DESC LIMIT ?", (tid, events))
    ]
    commands = [
        {"id": i, "action": a, "by": b, "at": at}
        for i, a, b, at in db.all(
            "SELECT id, action, by_name, at FROM floor_commands WHERE table_id = ?"
            " ORDER BY at DESC LIMIT 20", (tid,))
    ]
    return {"tile": found[0], "meters": meters, "rounds": last_rounds, "events": feed,
            "commands": commands}
