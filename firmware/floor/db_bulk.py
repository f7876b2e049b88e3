"""A batch's rows of one statement as one PostgreSQL statement over arrays.

The ledger writes a batch as one-row statements in the SQL both databases speak
(``INSERT ... VALUES (?, ...)``, ``UPDATE t SET a = ?, ... WHERE k = ?``), and
:meth:`Database.run_grouped <firmware.floor.db.Database.run_grouped>` runs each distinct
statement once with all its rows. On PostgreSQL a statement a row is what made the floor
slow at 1,000 tables: the driver's work per statement (and the server's) and, for the
multi-row ``VALUES`` lists this module replaces, psycopg parsing a new statement text of
thousands of placeholders at every batch (texts that long are not cached). Here each
column's values go as one array parameter, binary, and ``unnest`` turns them back into
rows, so a batch of any size is one short statement text: cached by the driver, prepared
once by the server, one round trip (``python -m benchmarks floor-store``, docs/floor.md).

What makes it the same as one statement a row, in order:

- ``INSERT``: ``unnest`` yields the rows in order (an auto-numbered key is given in that
  order); a key twice is refused as before, or under ``ON CONFLICT DO NOTHING`` the first
  is kept, as before. ``ON CONFLICT (...) DO UPDATE SET c = excluded.c`` — only that
  form — keeps the last row of each key (PostgreSQL refuses to update a row twice in one
  statement; one statement a row would have left the last), when it sets every column
  but the key's.
- ``UPDATE t SET c = ?, ... WHERE k = ?`` — only plain placeholders, one key column —
  keeps the last row of each key: each row sets the same columns, so the last one
  executed is what one statement a row leaves.

Anything else is not rewritten (None) and runs a statement a row.
"""

from __future__ import annotations

import re
from typing import Any

#: SQL column types -> the PostgreSQL array element type a column's values are sent as
_PG_TYPES = {"TEXT": "text", "BIGINT": "int8", "INTEGER": "int4",
             "DOUBLE PRECISION": "float8"}
_COLUMN = re.compile(r"^\s*(\w+)\s+(TEXT|BIGINT|INTEGER|DOUBLE PRECISION)\b", re.M)
_TABLE = re.compile(r"CREATE TABLE IF NOT EXISTS (\w+) \((.*?)\n\);", re.S)
_INSERT = re.compile(
    r"^INSERT INTO (\w+)\(([\w, ]+)\) VALUES \((?:\?, )*\?\)"
    r"( ON CONFLICT(?:\s*\(([\w, ]+)\))? DO (?:NOTHING|UPDATE SET ((?:\w+ = excluded\.\w+"
    r"(?:, )?)+)))?$", re.S)
_UPDATE = re.compile(r"^UPDATE (\w+) SET ((?:\w+ = \?, )*\w+ = \?) WHERE (\w+) = \?$")
_SET_ONE = re.compile(r"(\w+) = excluded\.(\w+)")


def column_types(schema: str, added: tuple[tuple[str, str, str], ...]) -> dict[
        tuple[str, str], str]:
    """(table, column) -> array element type, read from the floor's own DDL (so a column
    added to the schema needs nothing here)."""
    out: dict[tuple[str, str], str] = {}
    for table, body in _TABLE.findall(schema):
        for line in body.split(","):
            m = _COLUMN.match(line)
            if m:
                out[(table, m.group(1))] = _PG_TYPES[m.group(2)]
    for table, column, kind in added:
        out[(table, column)] = _PG_TYPES[kind]
    return out


class Bulk:
    """Rewrites one-row statements into array statements for one database's schema;
    statement shapes are parsed once and remembered."""

    def __init__(self, types: dict[tuple[str, str], str]) -> None:
        self.types = types
        self._shapes: dict[str, tuple[str, list[str], tuple[int, ...] | None] | None] = {}

    def shape(self, sql: str) -> tuple[str, list[str], tuple[int, ...] | None] | None:
        """(the array statement, each parameter's element type, the parameter positions
        of the key whose last row wins — None: every row kept), or None."""
        if sql not in self._shapes:
            self._shapes[sql] = self._parse(sql)
        return self._shapes[sql]

    def _parse(self, sql: str) -> tuple[str, list[str], tuple[int, ...] | None] | None:
        if (m := _INSERT.match(sql)) is not None:
            return self._insert(m)
        if (m := _UPDATE.match(sql)) is not None:
            return self._update(m)
        return None

    def _kinds(self, table: str, cols: list[str]) -> list[str] | None:
        kinds = [self.types.get((table, c)) for c in cols]
        return None if None in kinds else [k for k in kinds if k is not None]

    def _insert(self, m: re.Match[str]) -> tuple[str, list[str], tuple[int, ...] | None] | None:
        table, cols_text, tail, target, sets = m.groups()
        cols = [c.strip() for c in cols_text.split(",")]
        kinds = self._kinds(table, cols)
        if kinds is None:
            return None
        key: tuple[int, ...] | None = None
        if sets is not None:  # DO UPDATE: only "c = excluded.c", on a named key
            pairs = _SET_ONE.findall(sets)
            if target is None or any(a != b for a, b in pairs):
                return None
            names = [c.strip() for c in target.split(",")]
            if any(c not in cols for c in names) or \
                    {a for a, _ in pairs} != set(cols) - set(names):
                return None  # a column the update leaves would keep the first row's
            key = tuple(cols.index(c) for c in names)
        arrays = ", ".join(f"%b::{k}[]" for k in kinds)
        return (f"INSERT INTO {table}({', '.join(cols)}) SELECT * FROM unnest({arrays})"
                f"{tail or ''}", kinds, key)

    def _update(self, m: re.Match[str]) -> tuple[str, list[str], tuple[int, ...] | None] | None:
        table, sets, key_col = m.groups()
        cols = [s.split("=")[0].strip() for s in sets.split(",")]
        if key_col in cols:
            return None
        kinds = self._kinds(table, [*cols, key_col])
        if kinds is None:
            return None
        arrays = ", ".join(f"%b::{k}[]" for k in kinds)
        names = ", ".join([*cols, key_col])
        assign = ", ".join(f"{c} = v.{c}" for c in cols)
        return (f"UPDATE {table} AS t SET {assign} FROM unnest({arrays}) AS v({names})"
                f" WHERE t.{key_col} = v.{key_col}", kinds, (len(cols),))

    def rewrite(self, sql: str, rows: list[tuple[Any, ...]]) -> tuple[str, list[list[Any]]] | None:
        """One statement and its array parameters for all ``rows``, or None."""
        shape = self.shape(sql)
        if shape is None:
            return None
        text, kinds, key = shape
        if key is not None:
            rows = last_of_each(rows, key)
        columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in kinds]
        return text, [_typed(c, k) for c, k in zip(columns, kinds, strict=True)]


def last_of_each(rows: list[tuple[Any, ...]], key: tuple[int, ...]) -> list[tuple[Any, ...]]:
    """The last row of each key, in the order each key first appears."""
    if len(key) == 1:
        (i,) = key
        last = {r[i]: r for r in rows}
    else:
        last = {tuple(r[j] for j in key): r for r in rows}
    if len(last) == len(rows):
        return rows
    return list(last.values())


def _typed(values: list[Any], kind: str) -> list[Any]:
    """One column's values as the array's element type (psycopg types an array by its
    elements: a bool among integers, an int among floats would not be the column's)."""
    if kind == "float8":
        return [None if v is None else float(v) for v in values]
    if kind in ("int8", "int4"):
        return [None if v is None else int(v) for v in values]
    return values
