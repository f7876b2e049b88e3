"""The journal: durability settings, hash chain, tamper detection, meters in one transaction."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.table.events import EventCode
from firmware.table.journal import GENESIS, Entry, Journal, JournalError


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


def test_meters_change_only_with_their_record(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    j.append([Entry("round", {"round": 1}, 1)], {("wagered", 1, "blackjack"): 500})
    j.append([Entry("round", {"round": 2}, 2)], {("wagered", 1, "blackjack"): 300})
    assert j.meters()[("wagered", 1, "blackjack")] == 800
    with pytest.raises(ValueError):
        j.append([Entry("round", {"round": 3}, 3), Entry("bogus", {})], {("paid", 1, ""): 5})
    assert ("paid", 1, "") not in j.meters()
    assert j.last_seq == 2 and j.verify().ok


def test_unwritable_journal_is_a_journal_error(tmp_path: Path) -> None:
    bad = tmp_path / "dir.sqlite"
    bad.mkdir()
    with pytest.raises(JournalError):
        Journal(bad)


def test_killed_writer_leaves_whole_records(tmp_path: Path) -> None:
    """kill -9 during a stream of appends: the chain verifies and no record is partial."""
    path = tmp_path / "j.sqlite"
    code = (
        "import sys\n"
        "from firmware.table.journal import Journal\n"
        f"j = Journal({str(path)!r})\n"
        "i = 0\n"
        "print('go', flush=True)\n"
        "while True:\n"
        "    i += 1\n"
        "    j.append_one('input', {'n': i, 'pad': 'x' * 200}, meters={('n', 0, ''): 1})\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "go"
    import time

    time.sleep(0.5)
    proc.kill()
    proc.wait()
    j = Journal(path)
    v = j.verify()
    assert v.ok and v.records > 0
    assert j.meters()[("n", 0, "")] == v.records
