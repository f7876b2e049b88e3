"""Issue 42, this stop's red team of the start guard (findings F1, F4-F7): one byte of
the ``records_kind`` index (a structure outside the keyed chain) hid a record from every
filtered reading: an applied cash-out read as not applied and paid again, a grant given
twice, events and a round missing from ``etg events`` / ``etg recall``, while the proof
(which walks the table's rows, not the index) said ok. A reading now picks its records
by the proof's own walk (firmware/journal/proven_index.py) and fetches rows by number,
never through an index: the edit no longer hides anything.

The edits here are raw byte writes to the database file, as the attacker made them: the
index cell (kind, seq) of the record, its kind's last letter changed, so that it sorts
elsewhere in the index and a lookup by kind misses it. On main 7c96827 each test below
paid T-1 twice / lost the record."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.cli import main


def _serial(v: int) -> tuple[int, bytes]:
    """SQLite's record format: an integer's serial type and big-endian bytes."""
    for t, n in ((1, 1), (2, 2), (3, 3), (4, 4)):
        if v < 1 << (8 * n - 1):
            return t, v.to_bytes(n, "big")
    raise ValueError(v)


def hide_in_index(path: Path, kind: str, seq: int) -> None:
    """Change the kind of record ``seq``'s cell in the (kind, seq) index: one byte."""
    t, e = _serial(seq)
    kb = kind.encode()
    cell = bytes([4, 13 + 2 * len(kb), t, t]) + kb + e + e  # header, kind, seq, rowid
    data = bytearray(path.read_bytes())
    at = data.find(cell)
    assert at > 0 and data.count(cell) == 1, "the index cell is found once"
    data[at + 4 + len(kb) - 1] = ord("z")
    path.write_bytes(bytes(data))


def _etg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "firmware", *args], capture_output=True,
                          text=True, timeout=300)


def _status(path: Path, tid: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    main(["credits", "status", "--id", tid, "--journal", str(path), "--json"])
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def cashed_out(tmp_path: Path) -> tuple[Path, int]:
    """A bench journal with four rounds and cash-out T-1 applied (the table stopped, the
    write-ahead log folded into the file)."""
    path = tmp_path / "j.sqlite"
    run = _etg("run", "--headless", "--auto-play", "--quiet", "--rounds", "4",
               "--pace", "0.01", "--journal", str(path))
    assert run.returncode == 0, run.stderr
    out = _etg("credits", "out", "--seat", "1", "--cents", "700", "--id", "T-1",
               "--journal", str(path))
    assert out.returncode == 0, out.stderr
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    return path, 0


def test_rt_f1_an_index_byte_does_not_hide_an_applied_cash_out(
        cashed_out: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = cashed_out
    before = _status(path, "T-1", capsys)
    assert before["state"] == "applied"
    hide_in_index(path, "event", int(before["seq"]))  # type: ignore[arg-type]
    assert _status(path, "T-1", capsys)["state"] == "applied"  # was: not-applied
    main(["credits", "out", "--seat", "1", "--cents", "700", "--id", "T-1",
          "--journal", str(path)])
    # the money moved once: one 801 of T-1 in the file (read without the index)
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        n = db.execute("SELECT count(*) FROM records NOT INDEXED WHERE code = 801 AND "
                       "body LIKE '%\"T-1\"%'").fetchone()[0]
    finally:
        db.close()
    assert n == 1, "T-1 paid twice"


def test_rt_f1_a_start_after_the_index_edit_pays_nothing_twice(
        cashed_out: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    """The same edit, then a table start: its ledger of transfer ids has T-1."""
    path, _ = cashed_out
    seq = int(_status(path, "T-1", capsys)["seq"])  # type: ignore[arg-type]
    hide_in_index(path, "event", seq)
    from firmware.journal.opening import open_for_table
    from firmware.table.meter_proof import start_proof

    journal = open_for_table(path, str(path) + ".key", bench=True, prove=start_proof)
    try:
        t1 = [r for r in journal.records(kinds=["event"]) if r.code == 801]
        assert [r.seq for r in t1] == [seq]  # was: [] (hidden by the index)
    finally:
        journal.close()


def test_rt_f5_an_index_byte_does_not_hide_later_events(
        cashed_out: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    """One 'evenz' cell ended the index scan: every later event was missing from
    ``etg events``."""
    path, _ = cashed_out
    capsys.readouterr()
    main(["events", "--journal", str(path), "--json"])
    before = capsys.readouterr().out
    seq = int(_status(path, "T-1", capsys)["seq"])  # type: ignore[arg-type]
    hide_in_index(path, "event", seq)
    capsys.readouterr()
    main(["events", "--journal", str(path), "--json"])
    assert capsys.readouterr().out == before
