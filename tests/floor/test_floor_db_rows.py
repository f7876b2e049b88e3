"""Many rows of one INSERT go to PostgreSQL as a few multi-row statements, with the
same rows, in the same order, and the same conflict rule as one statement a row."""

from __future__ import annotations

import uuid

from firmware.floor import db as floor_db
from firmware.floor.db import Database, multi_row

MESSAGE = "INSERT INTO floor_messages(table_id, n, seq, kind, hash) VALUES (?, ?, ?, ?, ?)"
ROUND = ("INSERT INTO floor_rounds(table_id, seq, round_no, ts_ns, record)"
         " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")


def test_only_plain_inserts_become_multi_row_statements() -> None:
    rows = [("A", 1, 2, "round", "h1"), ("A", 2, 3, "meters", "h2")]
    ((sql, args),) = multi_row(MESSAGE, rows)
    assert sql.endswith("VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)")
    assert args == ("A", 1, 2, "round", "h1", "A", 2, 3, "meters", "h2")
    ((sql, _),) = multi_row(ROUND, rows)
    assert sql.endswith("(?, ?, ?, ?, ?), (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
    assert multi_row("INSERT INTO t(a) VALUES (?) ON CONFLICT(a) DO UPDATE SET a = 1",
                     [(1,), (2,)]) == []
    assert multi_row("UPDATE floor_tables SET last_seen = ? WHERE table_id = ?",
                     [(1, "A"), (2, "B")]) == []


def test_a_long_batch_is_cut_into_statements_of_at_most_multi_rows() -> None:
    rows = [("A", n, n, "event", "h") for n in range(floor_db.MULTI_ROWS * 2 + 1)]
    got = multi_row(MESSAGE, rows)
    assert [len(args) // 5 for _sql, args in got] == [floor_db.MULTI_ROWS] * 2 + [1]
    assert tuple(a for _sql, args in got for a in args) == tuple(a for r in rows for a in r)


def test_postgresql_stores_the_rows_of_a_batch_as_executemany_would(
        postgres_url: str) -> None:
    d = Database(postgres_url)
    tid = uuid.uuid4().hex[:8]
    try:
        rounds = [(tid, s, s, 1000 + s, f"r{s}") for s in range(1, 1201)]
        again = [(tid, 5, 99, 1, "other")]  # an existing (table, seq): nothing changes
        d.run_grouped([(ROUND, r) for r in rounds + again])
        got = d.all("SELECT seq, round_no, record FROM floor_rounds WHERE table_id = ?"
                    " ORDER BY seq", (tid,))
        assert got == [(s, s, f"r{s}") for s in range(1, 1201)]
    finally:
        d.close()


def test_a_statement_stays_within_postgresqls_parameter_limit() -> None:
    # the floor's widest INSERT has under 16 columns
    assert floor_db.MULTI_ROWS * 16 < 65_535
