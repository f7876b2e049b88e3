"""The journal is evidence (issue 18, points 1 and 2): every tamper of the SQLite file is
detected by ``audit verify`` and at the next start, and a refused start writes nothing.

The tampers are what a person with write access to the journal file can do with the
``sqlite3`` shell: edit a record, edit it and recompute the chain (without the table's
secret), delete trailing records together with the stored head, swap two records, and
lose the write-ahead log (a rollback of committed records).
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from firmware.journal import Entry, EventCode, Journal
from firmware.journal.opening import JournalRefused, open_for_table

REPO = Path(__file__).resolve().parents[2]


def build(path: Path, n: int = 12) -> None:
    j = Journal(path)
    for i in range(n):
        j.append_one("input", {"input": {"type": "card", "card": "AS"}, "n": i}, round_no=1)
    j.close()


def rows(path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT * FROM records ORDER BY seq").fetchall()
    finally:
        db.close()


def edit(db: sqlite3.Connection) -> None:
    db.execute("UPDATE records SET body = replace(body, '\"n\":3', '\"n\":4') WHERE seq = 4")


def rechain(db: sqlite3.Connection) -> None:
    """Edit, then recompute every later hash as a plain SHA-256 chain would be (the
    attacker does not have the table's secret)."""
    edit(db)
    prev = "0" * 64
    for seq, ts, kind, code, rnd, body in db.execute(
            "SELECT seq, ts_ns, kind, code, round_no, body FROM records ORDER BY seq").fetchall():
        h = hashlib.sha256(bytes.fromhex(prev))
        h.update(f"{seq}|{ts}|{kind}|{'' if code is None else code}|"
                 f"{'' if rnd is None else rnd}|".encode())
        h.update(body.encode())
        db.execute("UPDATE records SET prev = ?, hash = ? WHERE seq = ?", (prev, h.hexdigest(),
                                                                          seq))
        prev = h.hexdigest()


def cut_tail(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM records WHERE seq > 8")
    db.execute("DELETE FROM info WHERE key = 'head'")


def swap(db: sqlite3.Connection) -> None:
    a = db.execute("SELECT ts_ns, kind, code, round_no, body, prev, hash FROM records "
                   "WHERE seq = 5").fetchone()
    b = db.execute("SELECT ts_ns, kind, code, round_no, body, prev, hash FROM records "
                   "WHERE seq = 6").fetchone()
    sql = ("UPDATE records SET ts_ns=?, kind=?, code=?, round_no=?, body=?, prev=?, hash=? "
           "WHERE seq=?")
    db.execute(sql, (*b, 5))
    db.execute(sql, (*a, 6))


TAMPERS: dict[str, Callable[[sqlite3.Connection], None]] = {
    "edit": edit, "rechain": rechain, "trailing-deletion-with-head-row": cut_tail,
    "row-swap": swap,
}


def tampered(tmp_path: Path, how: str) -> Path:
    path = tmp_path / "j.sqlite"
    build(path)
    if how == "lost-wal":
        # committed records that only the write-ahead log holds, then the log is lost
        j = Journal(path)
        for i in range(5):
            j.append_one("event", {"i": i}, code=int(EventCode.SHOE_FAULT))
        copy = tmp_path / "copy"
        copy.mkdir()
        for name in ("j.sqlite", "j.sqlite.head", "j.sqlite.key"):
            shutil.copy2(tmp_path / name, copy / name)  # not j.sqlite-wal
        j.close()
        return copy / "j.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    TAMPERS[how](db)
    db.close()
    return path


ALL = [*TAMPERS, "lost-wal"]


@pytest.mark.parametrize("how", ALL)
def test_point2_every_tamper_is_detected_by_verify(tmp_path: Path, how: str) -> None:
    """Point 2: edit, rechain, trailing deletion with the head row, row swap, lost WAL."""
    path = tampered(tmp_path, how)
    j = Journal(path, readonly=True)
    res = j.verify()
    j.close()
    assert not res.ok, how
    assert res.problem


@pytest.mark.parametrize("how", ALL)
def test_point1_a_tampered_journal_is_refused_and_never_written(tmp_path: Path,
                                                                 how: str) -> None:
    """Point 1: the integrity check runs before the first write; a refused start leaves
    the journal (records and head file) exactly as it found it."""
    path = tampered(tmp_path, how)
    before = rows(path)
    head = path.with_name(path.name + ".head").read_bytes()
    for bench in (True, False):
        with pytest.raises(JournalRefused, match="integrity check failed"):
            open_for_table(path, "", bench=bench)
    assert rows(path) == before
    assert path.with_name(path.name + ".head").read_bytes() == head


def test_point1_etg_run_refuses_a_cut_journal_in_one_line_and_writes_nothing(
        tmp_path: Path) -> None:
    """Point 1 end to end: `etg run` on a journal whose tail and stored head were deleted
    (the next start used to re-head it and verify said ok)."""
    path = tampered(tmp_path, "trailing-deletion-with-head-row")
    before = rows(path)
    out = subprocess.run(
        [sys.executable, "-m", "firmware", "run", "--headless", "--rounds", "1", "--journal",
         str(path)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "records removed from the end" in lines[0]
    assert rows(path) == before
    audit = subprocess.run(
        [sys.executable, "-m", "firmware", "audit", "verify", "--journal", str(path)],
        capture_output=True, text=True, timeout=60, cwd=REPO)
    assert audit.returncode == 1 and "BROKEN" in audit.stdout


def test_point2_the_chain_is_keyed_and_the_secret_never_in_the_journal(tmp_path: Path) -> None:
    """Point 2: without the secret the chain does not verify; the secret file is private
    and neither it nor its hex appear in the journal or the head file."""
    path = tmp_path / "j.sqlite"
    build(path)
    key_file = tmp_path / "j.sqlite.key"
    assert key_file.stat().st_mode & 0o077 == 0
    secret = key_file.read_text().strip()
    for f in (path, path.with_name("j.sqlite.head")):
        assert secret.encode() not in f.read_bytes()
    other = Journal(path, b"\x01" * 32, readonly=True)
    assert not other.verify().ok
    other.close()


def test_point2_a_power_cut_between_commit_and_head_is_not_tamper(tmp_path: Path) -> None:
    """The head file may lag the database by one transaction (a power cut after COMMIT):
    those records are authentic (keyed) and the journal verifies; the next commit
    rewrites the head."""
    path = tmp_path / "j.sqlite"
    build(path)
    head = path.with_name("j.sqlite.head")
    lagging = head.read_bytes()
    j = Journal(path)
    j.append_one("event", {"after": "head"}, code=int(EventCode.READY))
    j.close()
    head.write_bytes(lagging)
    assert Journal(path, readonly=True).verify().ok
    j = open_for_table(path, "", bench=False)
    j.append_one("event", {"x": 1}, code=int(EventCode.READY))
    j.close()
    assert Journal(path, readonly=True).verify().ok


def test_point2_a_deleted_head_file_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    build(path)
    path.with_name("j.sqlite.head").unlink()
    res = Journal(path, readonly=True).verify()
    assert not res.ok and "head file" in res.problem


def _named(path: Path) -> int:
    from firmware.journal.head import head_path, read_head

    j = Journal(path, readonly=True)
    head = read_head(head_path(path), j.key)
    j.close()
    assert head is not None
    return head.seq


def test_a_deferred_head_is_at_most_one_transaction_behind(tmp_path: Path) -> None:
    """The table's deferred head (written after the view is shown): the head file names
    the previous commit until ``sync_head``, and never lags by more than one transaction,
    because the next commit writes it first; a truncation after that is still caught."""
    path = tmp_path / "j.sqlite"
    build(path, 3)
    j = Journal(path)
    j.defer_head = True
    j.append_one("event", {"i": 4}, code=int(EventCode.READY))
    assert _named(path) == 3 and j.verify().ok  # one behind: the power-cut state
    j.append([Entry("event", {"i": 5}, None, int(EventCode.READY)),
              Entry("event", {"i": 6}, None, int(EventCode.READY))])
    assert _named(path) == 4  # written before this commit, not after it
    j.sync_head()
    assert _named(path) == 6
    j.append_one("event", {"i": 7}, code=int(EventCode.READY))
    j.close()  # closing writes what waits
    assert _named(path) == 7
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DELETE FROM records WHERE seq = 7")
    db.close()
    res = Journal(path, readonly=True).verify()
    assert not res.ok and "head file names record 7" in res.problem


def test_a_failing_deferred_head_write_fails_the_next_commit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``sync_head`` never raises (the card is already on the screen); the head it could
    not write stays due, and the next commit, which must write it first, fails."""
    import firmware.journal.head as journal_head
    from firmware.journal import JournalError

    path = tmp_path / "j.sqlite"
    build(path, 2)
    j = Journal(path)
    j.defer_head = True
    j.append_one("event", {"i": 3}, code=int(EventCode.READY))

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(journal_head.os, "fdatasync", broken)
    j.sync_head()
    with pytest.raises(JournalError, match="Input/output error"):
        j.append_one("event", {"i": 4}, code=int(EventCode.READY))
    monkeypatch.undo()
    j.sync_head()
    assert _named(path) == 3 and j.last_seq == 3
    j.close()


def test_a_kill_9_before_the_deferred_head_is_written_is_not_tamper(tmp_path: Path) -> None:
    """kill -9 between the commit and the deferred head write: the journal verifies (one
    transaction ahead of its head) and the next commit rewrites the head."""
    path = tmp_path / "j.sqlite"
    build(path, 2)
    code = ("import os, sys; from firmware.journal.store import Journal; "
            "j = Journal(sys.argv[1]); j.defer_head = True; "
            "j.append_one('event', {'killed': 1}, code=int(sys.argv[2])); "
            "os.kill(os.getpid(), 9)")
    proc = subprocess.run([sys.executable, "-c", code, str(path), str(int(EventCode.READY))],
                          cwd=REPO, timeout=60)
    assert proc.returncode == -9
    assert _named(path) == 2 and Journal(path, readonly=True).verify().ok
    j = open_for_table(path, "", bench=False)
    assert j.last_seq == 3
    j.append_one("event", {"x": 1}, code=int(EventCode.READY))
    j.close()
    assert _named(path) == 4 and Journal(path, readonly=True).verify().ok
