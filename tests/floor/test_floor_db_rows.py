"""A batch's rows of one statement go to PostgreSQL as one statement over arrays
(:mod:`firmware.floor.db_bulk`), with the same rows, in the same order, and the same
conflict rules as one statement a row."""

from __future__ import annotations

import uuid

from firmware.floor.db import ADDED_COLUMNS, SCHEMA, Database
from firmware.floor.db_bulk import Bulk, column_types

MESSAGE = "INSERT INTO floor_messages(table_id, n, seq, kind, hash) VALUES (?, ?, ?, ?, ?)"
ROUND = ("INSERT INTO floor_rounds(table_id, seq, round_no, ts_ns, record)"
         " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
POINT = ("INSERT INTO floor_meter_points(table_id, day, slot, win_cents, drop_cents)"
         " VALUES (?, ?, ?, ?, ?) ON CONFLICT(table_id, day, slot) DO UPDATE SET"
         " win_cents = excluded.win_cents, drop_cents = excluded.drop_cents")
SEEN = "UPDATE floor_tables SET last_seen = ?, status = ? WHERE table_id = ?"
ALARM = "INSERT INTO floor_alarms(table_id, at, kind, detail) VALUES (?, ?, ?, ?)"


def _bulk() -> Bulk:
    return Bulk(column_types(SCHEMA, ADDED_COLUMNS))


def test_the_schema_gives_every_column_its_type() -> None:
    types = column_types(SCHEMA, ADDED_COLUMNS)
    assert types[("floor_messages", "n")] == "int8"
    assert types[("floor_events", "code")] == "int4"
    assert types[("floor_tables", "last_seen")] == "float8"
    assert types[("floor_staff", "role")] == "text"
    assert ("floor_alarms", "id") not in types  # the auto-numbered key is never written


def test_only_statements_whose_rows_commute_become_array_statements() -> None:
    b = _bulk()
    sql, args = b.rewrite(MESSAGE, [("A", 1, 2, "round", "h1"), ("A", 2, 3, "meters", "h2")])
    assert "unnest(" in sql and "VALUES" not in sql
    assert args == [["A", "A"], [1, 2], [2, 3], ["round", "meters"], ["h1", "h2"]]
    assert b.rewrite(ROUND, [("A", 1, 1, 1, "r")])[0].endswith("ON CONFLICT DO NOTHING")
    assert b.rewrite(POINT, [("A", "d", 1, 2, 3)]) is not None
    assert b.rewrite(SEEN, [(1.0, "s", "A")]) is not None
    for other in (
            # an update that leaves a column: the first row's value would stay
            "INSERT INTO floor_meter_points(table_id, day, slot, win_cents, drop_cents)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT(table_id, day, slot) DO UPDATE SET"
            " win_cents = excluded.win_cents",
            # an update computed from the row
            "INSERT INTO floor_meter_points(table_id, day, slot, win_cents, drop_cents)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT(table_id, day, slot) DO UPDATE SET"
            " win_cents = floor_meter_points.win_cents + 1, drop_cents = excluded.drop_cents",
            "UPDATE floor_alarms SET detail = ? WHERE table_id = ? AND kind = 'flood'",
            "UPDATE floor_tables SET last_n = last_n + ? WHERE table_id = ?",
            "UPDATE floor_tables SET table_id = ? WHERE table_id = ?",
            "INSERT INTO floor_nowhere(a) VALUES (?)",
            "DELETE FROM floor_sessions WHERE name = ?"):
        assert b.rewrite(other, [(1, "A", 2, 3, 4)[:other.count("?")]]) is None, other


def _contents(d: Database, tid: str) -> dict[str, list[tuple[object, ...]]]:
    return {
        "rounds": d.all("SELECT seq, round_no, ts_ns, record FROM floor_rounds"
                        " WHERE table_id = ? ORDER BY seq", (tid,)),
        "points": d.all("SELECT day, slot, win_cents, drop_cents FROM floor_meter_points"
                        " WHERE table_id LIKE ? ORDER BY table_id, day, slot", (tid + "%",)),
        "tables": d.all("SELECT table_id, last_seen, status FROM floor_tables"
                        " WHERE table_id LIKE ? ORDER BY table_id", (tid + "%",)),
        "alarms": d.all("SELECT at, kind, detail FROM floor_alarms WHERE table_id = ?"
                        " ORDER BY id", (tid,)),
    }


def _batch(tid: str) -> list[tuple[str, tuple[object, ...]]]:
    work: list[tuple[str, tuple[object, ...]]] = []
    for k in range(3):
        work.append(("INSERT INTO floor_tables(table_id, updated) VALUES (?, ?)"
                     " ON CONFLICT(table_id) DO NOTHING", (f"{tid}{k}", 1)))
    for s in range(1, 1201):
        work.append((ROUND, (tid, s, s, 1000 + s, f"r{s}")))
    work.append((ROUND, (tid, 5, 99, 1, "other")))  # a key twice: the first one stays
    for s in range(40):  # the same slot again and again: the last figures stay
        work.append((POINT, (f"{tid}{s % 3}", "2026-12-07", s % 2, s, -s)))
    for s in range(30):  # each table's row set ten times: the last one stays
        work.append((SEEN, (1.5 + s, None if s % 4 else f"st{s}", f"{tid}{s % 3}")))
    work.append((SEEN, (7, "int among floats", f"{tid}0")))
    for s in range(25):  # an auto-numbered key: in the order given
        work.append((ALARM, (tid, float(25 - s), f"k{s}", f"detail {s}\u2028\u00e9")))
    return work


def _one_a_row(d: Database, work: list[tuple[str, tuple[object, ...]]]) -> None:
    d.run([(sql, args) for sql, args in work])


def test_postgresql_stores_a_batch_as_one_statement_a_row_would(postgres_url: str) -> None:
    d = Database(postgres_url)
    a, b = uuid.uuid4().hex[:8], uuid.uuid4().hex[:8]
    try:
        d.run_grouped(_batch(a))
        _one_a_row(d, _batch(b))
        got, want = _contents(d, a), _contents(d, b)
        assert got["rounds"] == want["rounds"]
        assert got["rounds"][4] == (5, 5, 1005, "r5")
        assert got["points"] == want["points"] and len(got["points"]) == 6
        assert [r[1:] for r in got["tables"]] == [r[1:] for r in want["tables"]]
        assert got["tables"][0][1:] == (7.0, "int among floats")
        assert got["alarms"] == want["alarms"]
        assert [k for _at, k, _d in got["alarms"]] == [f"k{s}" for s in range(25)]
    finally:
        d.close()


def test_a_key_twice_in_a_plain_insert_is_refused_as_before(postgres_url: str) -> None:
    import psycopg
    import pytest

    d = Database(postgres_url)
    tid = uuid.uuid4().hex[:8]
    try:
        with pytest.raises(psycopg.errors.UniqueViolation):
            d.run_grouped([(MESSAGE, (tid, 1, 1, "round", "h")),
                           (MESSAGE, (tid, 1, 2, "round", "other"))])
        assert d.all("SELECT n FROM floor_messages WHERE table_id = ?", (tid,)) == []
    finally:
        d.close()


def test_sqlite_stores_the_same_batch_the_same(tmp_path: object) -> None:
    from pathlib import Path

    d = Database(str(Path(str(tmp_path)) / "f.sqlite"))
    try:
        d.run_grouped(_batch("A"))
        _one_a_row(d, _batch("B"))
        got, want = _contents(d, "A"), _contents(d, "B")
        assert got["rounds"] == want["rounds"] and got["alarms"] == want["alarms"]
        assert got["points"] == want["points"]
        assert [r[1:] for r in got["tables"]] == [r[1:] for r in want["tables"]]
    finally:
        d.close()
