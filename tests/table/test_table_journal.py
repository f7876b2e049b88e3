"""The journal: durability settings, hash chain, tamper detection, meters in one transaction."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import DEADLINE_S, stopped_at_exit, wait_for

from firmware.journal import GENESIS, Entry, EventCode, Journal, JournalError
from firmware.journal.meters import round_deltas


def test_wal_and_synchronous_full(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    assert j._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_chain_and_verify(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    assert j.created
    r1 = j.append_one("event", {"what": "power up"}, code=EventCode.POWER_UP)
    r2 = j.append_one("input", {"type": "card", "card": "AS"}, round_no=1)
    assert r1.prev == GENESIS and r2.prev == r1.hash and r2.seq == 2
    assert j.verify().ok and j.verify().records == 2
    j.close()
    again = Journal(tmp_path / "j.sqlite")
    assert not again.created and again.last_seq == 2
    r3 = again.append_one("input", {"type": "card", "card": "TD"}, round_no=1)
    assert r3.prev == r2.hash
    assert [r.body.get("card") for r in again.records(kinds=["input"])] == ["AS", "TD"]


@pytest.mark.parametrize(
    "tamper",
    [
        "UPDATE records SET body = '{\"card\":\"KS\",\"type\":\"card\"}' WHERE seq = 2",
        "DELETE FROM records WHERE seq = 2",
        "UPDATE records SET ts_ns = ts_ns + 1 WHERE seq = 1",
        "UPDATE records SET round_no = 9 WHERE seq = 3",
    ],
)
def test_tamper_is_detected(tmp_path: Path, tamper: str) -> None:
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    for card in ("AS", "TD", "7C"):
        j.append_one("input", {"type": "card", "card": card}, round_no=1)
    j.close()
    db = sqlite3.connect(path)
    db.execute(tamper)
    db.commit()
    db.close()
    result = Journal(path).verify()
    assert not result.ok and result.first_bad is not None and result.problem


def _round(n: int, staked: int) -> tuple[Entry, dict[tuple[str, int, str], int]]:
    stakes = {1: {"blackjack": staked}}
    body = {"round": n, "state": "settled", "stakes": {"1": stakes[1]}, "returns": {"1": {}}}
    return Entry("round", body, n), round_deltas(stakes, {}, voided=False)


def test_meters_change_only_with_their_record(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    for n, staked in ((1, 500), (2, 300)):
        entry, deltas = _round(n, staked)
        j.append([entry], deltas)
    assert j.meters()[("wagered", 1, "blackjack")] == 800
    with pytest.raises(ValueError):
        j.append([Entry("round", {"round": 3}, 3), Entry("bogus", {})], {("paid", 1, ""): 5})
    assert ("paid", 1, "") not in j.meters()
    assert j.last_seq == 2 and j.verify().ok


@pytest.mark.parametrize(
    ("tamper", "problem"),
    [
        ("UPDATE meters SET value = value + 100 WHERE name = 'credits' AND seat = 1",
         "meter credits (seat 1)"),
        ("DELETE FROM meters WHERE name = 'wagered' AND seat = 0 AND wager = ''",
         "meter wagered (table)"),
        ("DELETE FROM records WHERE seq = 2", "records removed from the end"),
    ],
)
def test_audit_catches_meters_and_a_cut_tail(tmp_path: Path, tamper: str, problem: str) -> None:
    """The meters table is not chained: the audit recomputes it from the chained round
    records; and a journal cut short at its end no longer passes (its head is kept)."""
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    for n, staked in ((1, 500), (2, 300)):
        entry, deltas = _round(n, staked)
        j.append([entry], deltas)
    assert j.verify().ok
    j.close()
    db = sqlite3.connect(path)
    db.execute(tamper)
    db.commit()
    db.close()
    result = Journal(path).verify()
    assert not result.ok and problem in result.problem


def test_a_schema_1_journal_is_refused_not_replayed(tmp_path: Path) -> None:
    """Schema 1 journals counted a seat's hands from 0 in their decision inputs; replayed
    now (hands from 1) they would give another round, so the journal is refused with the
    reason (the journal is evidence: never reinterpreted silently)."""
    Journal(tmp_path / "j.sqlite").close()
    db = sqlite3.connect(str(tmp_path / "j.sqlite"))
    db.execute("UPDATE info SET value = '1' WHERE key = 'schema'")
    db.execute("ALTER TABLE records DROP COLUMN txn_last")  # as format 1 was (issue 42:
    db.commit()  # a relabel alone is tampering, test_table_findings_42.py, red team F2)
    db.close()
    with pytest.raises(JournalError, match="a journal of format 1"):
        Journal(tmp_path / "j.sqlite")


def test_unwritable_journal_is_a_journal_error(tmp_path: Path) -> None:
    bad = tmp_path / "dir.sqlite"
    bad.mkdir()
    with pytest.raises(JournalError):
        Journal(bad)


def _committed(path: Path) -> int:
    """Records another process has committed to the journal at ``path`` so far."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=DEADLINE_S)
    try:
        return int(db.execute("SELECT COUNT(*) FROM records").fetchone()[0])
    except sqlite3.OperationalError:  # the writer has not made its tables yet
        return 0
    finally:
        db.close()


def test_killed_writer_leaves_whole_records(tmp_path: Path) -> None:
    """kill -9 during a stream of appends: the chain verifies and no record is partial."""
    path = tmp_path / "j.sqlite"
    code = (
        "import sys\n"
        "from firmware.journal.store import Journal\n"
        f"j = Journal({str(path)!r})\n"
        "i = 0\n"
        "print('go', flush=True)\n"
        "while True:\n"
        "    i += 1\n"
        "    j.append_one('event', {'seat': 1, 'cents': 1, 'pad': 'x' * 200}, code=800,\n"
        "                 meters={('credits_in', 1, ''): 1, ('credits_in', 0, ''): 1,\n"
        "                         ('credits', 1, ''): 1, ('credits', 0, ''): 1})\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    with stopped_at_exit(proc, signal.SIGKILL):
        assert proc.stdout is not None and proc.stdout.readline().strip() == "go"
        # killed in the middle of the stream: after it committed a few hundred records
        wait_for("300 committed records", lambda: _committed(path) >= 300, every=0.005)
    j = Journal(path)
    v = j.verify()
    assert v.ok and v.records >= 300
    assert j.meters()[("credits_in", 1, "")] == v.records  # meters in the same commit
