"""Issue 42, finding 2's last gap: what a start reads is what its proof saw.

A start proves the journal on a read-only connection, then reads it through its writer
(transfer ids, grants, the floor gate). Someone with file access who does not respect
our lock (a plain SQLite client, or a raw write of the file's bytes) edits an earlier
record between the proof and those readings, keeping the count, the head and the
meters: the start must refuse, never read what it did not prove. Each edit here lands
exactly at the seam (in-process); test_table_start_reads_proven_process.py does it with
a real ``etg run`` and an editor loop. On 2a21193 each of these read the edit (T-1 paid
again, seat 1 granted twice, a closed table opened)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from journal_rig import play, table_on

from firmware.engine import load_rules
from firmware.journal import EventCode, Journal, JournalError
from firmware.journal import opening as opening_mod
from firmware.journal.opening import open_for_table
from firmware.journal.start_guard import note_path
from firmware.table.controller import Controller
from firmware.table.floor_gate import FloorGate
from firmware.table.meter_proof import start_proof
from firmware.table.recovery import open_table
from firmware.table.service.run import _grant_demo_credits

T1_TO_T9 = ("UPDATE records SET body = replace(body, '\"T-1\"', '\"T-9\"')"
            " WHERE kind = 'event' AND code = 801")


def _cash_out_then_play(path: Path) -> None:
    """A cash-out T-1 of 700 cents on seat 1, then rounds past several checkpoints."""
    ctl = table_on(path, checkpoint_rounds=2)
    play(ctl, 2)
    ok, msg = ctl.request("credits-out", {"seat": 1, "cents": 700, "id": "T-1"})
    assert ok, msg
    play(ctl, 6, seed=2)
    ctl.journal.close()


def _sql(path: Path, statement: str, timeout: float = 5.0) -> None:
    db = sqlite3.connect(path, isolation_level=None, timeout=timeout)
    try:
        assert db.execute(statement).rowcount >= 1
    finally:
        db.close()


def _controller(journal: Journal) -> Controller:
    rec = open_table(journal, load_rules("blackjack", {}), 2, True)
    return Controller(rec.game, journal, finals_recorded=rec.finals_recorded,
                      round_first_seq=rec.round_first_seq, epoch_seq=rec.epoch_seq,
                      checkpoint_rounds=2)


def _start() -> Callable[[Path], Journal]:
    return lambda path: open_for_table(path, "", bench=True, prove=start_proof)


def _paid_again_or_refused(path: Path, journal: Journal) -> None:
    """The start goes on to its readings: it must refuse, never pay T-1 a second time."""
    try:
        with pytest.raises(JournalError, match="changed during the start"):
            ctl = _controller(journal)
            ok, msg = ctl.request("credits-out", {"seat": 1, "cents": 700, "id": "T-1"})
            pytest.fail(f"the start read on in a journal changed since its proof: T-1 {ok=} {msg}")
    finally:
        journal.close()
    assert note_path(path).exists()  # for the next proven start's event


def test_finding_2_an_edit_between_the_proof_and_the_reading_is_refused(
        tmp_path: Path) -> None:
    """The 801 of T-1 relabelled T-9 right after the proof, before the transfer ids are
    read (count, head and meters kept): the start refuses and pays nothing."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    journal = _start()(path)
    _sql(path, T1_TO_T9)
    _paid_again_or_refused(path, journal)


def test_finding_2_an_edit_during_the_proof_lands_after_it_and_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor starts while the proof runs (a client that waits for the lock): the
    write lock keeps it out until the writer's baseline is taken, and its commit then is
    seen by the start's first reading."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    real = opening_mod._verify_before_writing
    editor: list[threading.Thread] = []

    def proof_then_edit(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        editor.append(threading.Thread(target=_sql, args=(path, T1_TO_T9, 30.0)))
        editor[0].start()
        editor[0].join(0.5)  # on 2a21193 nothing held it back: it committed here
        return out

    monkeypatch.setattr(opening_mod, "_verify_before_writing", proof_then_edit)
    journal = _start()(path)
    editor[0].join(30)
    assert not editor[0].is_alive()
    _paid_again_or_refused(path, journal)


def test_finding_2_a_raw_byte_edit_between_the_proof_and_the_reading_is_refused(
        tmp_path: Path) -> None:
    """Not through SQLite at all: the bytes of T-1's record in the database file
    overwritten in place (same length, the page still valid) after the proof."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    journal = _start()(path)
    data = path.read_bytes()
    assert data.count(b'"T-1"') >= 1
    with path.open("r+b") as fh:
        fh.seek(data.index(b'"T-1"'))
        fh.write(b'"T-9"')
    _paid_again_or_refused(path, journal)


def test_finding_2_a_raw_byte_edit_during_the_proof_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A raw write ignores SQLite's write lock: T-1's bytes in the database file changed
    while the proof runs (after it read them). The writer must not take that file as its
    baseline: the start is refused before it reads anything."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    real = opening_mod._verify_before_writing

    def proof_then_raw_edit(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        data = path.read_bytes()
        with path.open("r+b") as fh:
            fh.seek(data.index(b'"T-1"'))
            fh.write(b'"T-9"')
        return out

    monkeypatch.setattr(opening_mod, "_verify_before_writing", proof_then_raw_edit)
    try:
        journal = _start()(path)
    except JournalError as exc:
        assert "written outside SQLite during the proof" in str(exc), exc
        return
    _paid_again_or_refused(path, journal)  # 2a21193: read on, and paid T-1 again
    pytest.fail("the start took a file written during its proof as proven")


def test_finding_2_a_raw_byte_edit_of_the_write_ahead_log_is_refused(tmp_path: Path) -> None:
    """T-1's record still in the write-ahead log (another connection kept the journal
    open, so nothing was checkpointed), its bytes there overwritten after the proof: a
    record the start reads that way does not verify (refused); else the start reads the
    frames it proved (SQLite's page cache) and T-1 is already applied."""
    path = tmp_path / "j.sqlite"
    ctl = table_on(path, checkpoint_rounds=2)
    play(ctl, 2)
    ok, msg = ctl.request("credits-out", {"seat": 1, "cents": 700, "id": "T-1"})
    assert ok, msg
    keeper = sqlite3.connect(path)  # the table's close is then not the last: no checkpoint
    try:
        keeper.execute("SELECT COUNT(*) FROM records").fetchone()
        ctl.journal.close()
        wal = path.with_name(path.name + "-wal")
        journal = _start()(path)
        data = wal.read_bytes()
        assert data.count(b'"T-1"') >= 1
        wal.write_bytes(data.replace(b'"T-1"', b'"T-9"'))
        try:  # refused (a record it reads does not verify), or it read what was proven
            ctl = _controller(journal)
            ok, msg = ctl.request("credits-out", {"seat": 1, "cents": 700, "id": "T-1"})
            assert "already applied" in msg, f"T-1 paid again: {ok=} {msg}"
        except JournalError as exc:
            assert "changed during the start" in str(exc), exc
        finally:
            journal.close()
    finally:
        keeper.close()


def test_finding_2_a_grant_edited_between_the_proof_and_the_reading_is_refused(
        tmp_path: Path) -> None:
    """The auto-play grant ledger: seat 1's grant relabelled seat 9 after the proof,
    before the grants are read: the start refuses instead of granting seat 1 again."""
    path = tmp_path / "j.sqlite"
    ctl = table_on(path)
    _grant_demo_credits(ctl, ctl.journal, 2)
    ctl.journal.close()
    journal = _start()(path)
    _sql(path, "UPDATE records SET body = replace(body, '\"seat\":1', '\"seat\":9')"
               " WHERE kind = 'event' AND code = 800")
    try:
        with pytest.raises(JournalError, match="changed during the start"):
            _grant_demo_credits(_controller(journal), journal, 2)
    finally:
        journal.close()
    db = sqlite3.connect(path)
    grants = db.execute("SELECT COUNT(*) FROM records WHERE code = 800").fetchone()[0]
    db.close()
    assert grants == 2  # nothing granted again


def test_finding_2_the_floor_gate_edited_during_the_readings_is_refused(
        tmp_path: Path) -> None:
    """The floor closed the table; between two of the start's readings (the transfer
    ids read, the floor gate not yet) its TABLE_CLOSED becomes TABLE_OPENED: refused,
    never a closed table dealing."""
    path = tmp_path / "j.sqlite"
    ctl = table_on(path)
    play(ctl, 2)
    ctl.journal.append_one("event", {"by": "floor"}, code=int(EventCode.TABLE_CLOSED))
    ctl.journal.close()
    journal = _start()(path)
    try:
        _controller(journal)  # the transfer ids and the recovery read, proven
        _sql(path, f"UPDATE records SET code = {int(EventCode.TABLE_OPENED)}"
                   f" WHERE code = {int(EventCode.TABLE_CLOSED)}")
        with pytest.raises(JournalError, match="changed during the start"):
            gate = FloorGate.from_journal(journal)
            pytest.fail(f"the floor gate read an unproven edit: closed={gate.closed}")
    finally:
        journal.close()


def test_finding_2_a_refused_start_is_an_event_of_the_next_proven_start(
        tmp_path: Path) -> None:
    """The refusal never goes into the journal it distrusts; once the journal proves
    again (the edit undone), the next start journals it (event START_REFUSED)."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    journal = _start()(path)
    _sql(path, T1_TO_T9)
    _paid_again_or_refused(path, journal)
    _sql(path, T1_TO_T9.replace("T-1", "T-X").replace("T-9", "T-1").replace("T-X", "T-9"))
    journal = _start()(path)
    try:
        refused = [r for r in journal.records(kinds=["event"])
                   if r.code == int(EventCode.START_REFUSED)]
        assert len(refused) == 1
        assert "changed during the start's proof" in str(refused[0].body["refused"])
    finally:
        journal.close()
    assert not note_path(path).exists()


def test_finding_2_a_finished_start_reads_the_file_again(tmp_path: Path) -> None:
    """The baseline is the start's: once the table is ready (start_done) the table's
    checkpoints are back on; a reading still picks its records by the proof's walk, so a
    past record edited later is refused when read, never read as edited."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    journal = _start()(path)
    try:
        _controller(journal)
        journal.start_done()
        assert journal._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
        _sql(path, T1_TO_T9)
        with pytest.raises(JournalError, match="changed after its proof"):
            list(journal.records(kinds=["event"]))
    finally:
        journal.close()
