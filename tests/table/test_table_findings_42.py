"""Issue 42's findings, each reproduced as the outside audit did it, through the journal's
and the table's public entry points. Each of these failed on bc5b817."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Any, cast

import pytest
from journal_rig import play, table_on
from table_helpers import FakeRng

from firmware.cli import main
from firmware.engine.inputs import Wager
from firmware.journal import EventCode, Journal, JournalError, open_existing
from firmware.journal.errors import JournalRefused
from firmware.journal.head import SLOT
from firmware.journal.opening import open_for_table
from firmware.journal.witness import WitnessRead
from firmware.table.controller import Controller
from firmware.table.meter_proof import start_proof
from firmware.table.service.floor_witness import await_witness


def _verify(path: Path, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, str]:
    capsys.readouterr()
    rc = main(["audit", "verify", "--journal", str(path), *more])
    return rc, capsys.readouterr().out


def test_finding_1_bingo_checkpoint_key_order(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A Bingo round's draws were filled in the RNG's order live and in sorted order by
    the replay of the journaled draw: the first checkpoint was called broken."""
    path = tmp_path / "j.sqlite"
    ctl = table_on(path, variant="bingo", checkpoint_rounds=2)
    ctl.rng = FakeRng()
    play(ctl, 5)
    assert ctl.finals >= 4
    ctl.journal.close()
    rc, out = _verify(path, capsys)
    assert rc == 0, out
    assert out.startswith("ok:")


def _cash_out_then_play(path: Path) -> None:
    """A cash-out T-1 of 700 cents on seat 1, then rounds past several checkpoints."""
    ctl = table_on(path, checkpoint_rounds=2)
    play(ctl, 2)
    ok, msg = ctl.request("credits-out", {"seat": 1, "cents": 700, "id": "T-1"})
    assert ok, msg
    play(ctl, 6, seed=2)
    ctl.journal.close()


def _sql(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    for st in statements:
        db.execute(st)
    db.close()


def test_finding_2_transfer_ids_read_only_when_proven(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """The 801 of T-1 deleted from before the last checkpoint: `credits status` said
    not-applied and `credits out --id T-1` paid it again. Now every reader passes one gate
    that proves the whole chain first: both refuse, and nothing is paid."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    _sql(path, "DELETE FROM records WHERE kind = 'event' AND code = 801 "
               "AND body LIKE '%\"T-1\"%'")
    before = sqlite3.connect(path).execute("SELECT COUNT(*) FROM records").fetchone()[0]
    capsys.readouterr()
    assert main(["credits", "status", "--id", "T-1", "--journal", str(path)]) == 1
    err = capsys.readouterr().err
    assert "BROKEN" in err and "not-applied" not in err
    rc = main(["--set", "table.mode=bench", "credits", "out", "--seat", "1",
               "--cents", "700", "--id", "T-1", "--journal", str(path)])
    assert rc != 0
    after = sqlite3.connect(path).execute("SELECT COUNT(*) FROM records").fetchone()[0]
    assert after == before  # nothing written, nothing paid
    for cmd in (["events"], ["recall", "--last", "1"], ["meters"]):
        assert main([*cmd, "--journal", str(path)]) == 1, cmd


def test_finding_2_the_gate_shuts_every_reader_before_the_proof(tmp_path: Path) -> None:
    """Structural: a gated connection yields no record before its proof, and a reader's
    none past the record its proof ended at."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    j = Journal(path, readonly=True, gated=True)
    with pytest.raises(JournalError, match="only once it is proven"):
        next(j.records())
    j.close()
    j = open_existing(path)
    last = j.last_seq
    j.mark_proven(last - 5, "")
    assert max(r.seq for r in j.records()) == last - 5
    j.close()


@pytest.mark.parametrize("live", [False, True], ids=["at-rest", "beside-a-writer"])
def test_finding_2_offline_read_is_the_proven_snapshot(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        live: bool) -> None:
    """The offline readers proved the journal, then read it in a second snapshot: the 801
    of T-1 rewritten to T-9 between the proof and the reading made `credits status` say
    T-1 was not applied (a second payment's licence) and `etg events` show T-9. Now the
    proof and the reading are one: what is read is what was proven (T-1 applied), whether
    the journal is at rest (read from a private copy) or a writer holds it open (its
    write-ahead log: the reader's held read transaction)."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    editor = sqlite3.connect(path, isolation_level=None)
    if live:  # a connection with frames in the write-ahead log, never checkpointed
        editor.execute("PRAGMA wal_autocheckpoint = 0")
        editor.executescript("BEGIN; UPDATE records SET ts_ns = ts_ns + 1 WHERE seq = 1;"
                             " UPDATE records SET ts_ns = ts_ns - 1 WHERE seq = 1; COMMIT;")
        assert path.with_name(path.name + "-wal").stat().st_size > 0
    edits: list[int] = []
    proven = Journal.mark_proven

    def edit_after_the_proof(self: Journal, *args: Any, **kw: Any) -> None:
        proven(self, *args, **kw)  # the check is done; the reading has not begun
        editor.execute("UPDATE records SET body = replace(body, '\"T-1\"', '\"T-9\"')"
                       " WHERE kind = 'event' AND code = 801")
        edits.append(editor.total_changes)  # the reader's own proof saw none of it

    monkeypatch.setattr(Journal, "mark_proven", edit_after_the_proof)
    try:
        for cmd, proven_state in ((["credits", "status", "--id", "T-1", "--json"],
                                   '"state": "applied"'),
                                  (["events", "--json"], '"T-1"')):
            capsys.readouterr()
            rc = main([*cmd, "--journal", str(path)])
            out = capsys.readouterr().out
            assert rc == 0 and proven_state in out and "T-9" not in out, (cmd, out)
            assert edits and editor.execute(  # the journal was edited: put it back
                "UPDATE records SET body = replace(body, '\"T-9\"', '\"T-1\"')"
                " WHERE kind = 'event' AND code = 801").rowcount == 1
            edits.clear()
        editor.execute("UPDATE records SET body = replace(body, '\"T-1\"', '\"T-9\"')"
                       " WHERE kind = 'event' AND code = 801")
    finally:
        editor.close()
    monkeypatch.undo()
    capsys.readouterr()  # the edit is there: a new reading finds the journal broken
    assert main(["credits", "status", "--id", "T-1", "--journal", str(path)]) == 1


def test_finding_2_offline_credits_out_reads_what_it_proved(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`etg credits out` on a stopped table proved the journal through one connection and
    read it through the writer's: the 801 of T-1 rewritten to T-9 between the two made
    T-1 look unpaid, and it was paid again. Now nobody can commit between its proof and
    its reading (it holds the journal's write lock from before the proof): the edit waits
    and fails, and T-1 is not paid twice."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    before = sqlite3.connect(path).execute(
        "SELECT COUNT(*) FROM records WHERE code = 801").fetchone()[0]
    proven = Journal.mark_proven
    edited: list[str] = []

    def edit_after_the_proof(self: Journal, *args: Any, **kw: Any) -> None:
        editor = sqlite3.connect(path, isolation_level=None, timeout=0.2)
        try:
            editor.execute("UPDATE records SET body = replace(body, '\"T-1\"', '\"T-9\"')"
                           " WHERE kind = 'event' AND code = 801")
            edited.append("edited")
        except sqlite3.OperationalError as exc:
            edited.append(str(exc))
        finally:
            editor.close()
        proven(self, *args, **kw)

    monkeypatch.setattr(Journal, "mark_proven", edit_after_the_proof)
    capsys.readouterr()
    main(["--set", "table.mode=bench", "credits", "out", "--seat", "1", "--cents", "700",
          "--id", "T-1", "--journal", str(path)])
    monkeypatch.undo()
    after = sqlite3.connect(path).execute(
        "SELECT COUNT(*) FROM records WHERE code = 801").fetchone()[0]
    assert edited == ["database is locked"] and after == before, (edited,
                                                                   capsys.readouterr())


def test_finding_2_a_reader_beside_a_committing_table_keeps_its_snapshot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table commits after the reader's snapshot began, before its head file is read:
    the head is ahead of the snapshot, checked on a second connection (the records
    after it chain on), and the reader reads the snapshot it proved, nothing after."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    table = Journal(path)
    held = Journal.hold_snapshot

    def commit_beside(self: Journal) -> None:
        held(self)
        table.append_one("event", {"note": "committed after the snapshot"})

    monkeypatch.setattr(Journal, "hold_snapshot", commit_beside)
    try:
        j = open_existing(path)
        try:
            assert j.last_seq == table.last_seq - 1
            assert max(r.seq for r in j.records()) == j.last_seq
        finally:
            j.close()
    finally:
        table.close()


def test_finding_5_archived_journal_put_back_is_refused(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """`etg journal init --archive` left the old journal with the same secret; moved back
    it verified ok and the table started on it. Now the register beside the secret names
    it: the start and the audit refuse it as live memory."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    assert main(["--set", "table.mode=bench", "journal", "init", "--reason",
                 "new card, ticket 1", "--archive", "--journal", str(path)]) == 0
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("j.sqlite.2")
            and not p.name.endswith((".head", "-wal", "-shm"))]
    assert len(kept) == 1
    for suffix in ("", ".head"):
        shutil.copy2(kept[0].with_name(kept[0].name + suffix),
                     path.with_name(path.name + suffix))
    with contextlib.suppress(FileNotFoundError):
        path.with_name(path.name + "-wal").unlink()
    rc, out = _verify(path, capsys)
    assert rc == 1 and "archived" in out, out
    with pytest.raises(JournalRefused, match="archived"):
        open_for_table(path, "", bench=True, prove=start_proof)


def test_finding_7_a_foreign_row_numbered_0_is_not_intact(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    _sql(path, "INSERT INTO records(seq, ts_ns, kind, code, round_no, body, prev, hash, "
               "txn_last) VALUES (0, 1, 'event', 101, NULL, '{}', 'x', 'y', 0)")
    rc, out = _verify(path, capsys)
    assert rc == 1 and "numbered 0" in out, out
    with pytest.raises(JournalRefused, match="numbered 0"):
        open_for_table(path, "", bench=True, prove=start_proof)


def test_finding_3_head_rewritten_in_place_during_the_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """H1 (older) and H2 (after a cash-out) kept; the journal cut back to before the
    cash-out; a loop rewrites the head file in place, H1 and H2 in turn, while the table
    starts. The start read the head twice and called a moving head "a table writing
    beside": within a few tries it passed. Now the head is read once, inside the read
    transaction, under the lock, and that reading is held to the one-transaction rule."""
    path = tmp_path / "j.sqlite"
    head = path.with_name(path.name + ".head")
    ctl = table_on(path, checkpoint_rounds=2)
    play(ctl, 2)
    ctl.journal.close()
    h1 = head.read_bytes()
    ctl = table_on(path, checkpoint_rounds=2)
    play(ctl, 1, seed=3)
    ctl.journal.close()
    cut = tmp_path / "cut"
    cut.mkdir()
    for f in tmp_path.glob("j.sqlite*"):
        if f.is_file():
            shutil.copy2(f, cut / f.name)
    ctl = table_on(path, checkpoint_rounds=2)
    ok, msg = ctl.request("credits-out", {"seat": 1, "cents": 700, "id": "T-1"})
    assert ok, msg
    ctl.journal.close()
    h2 = head.read_bytes()
    assert h1 != h2
    for f in tmp_path.glob("j.sqlite*"):
        if f.is_file():
            f.unlink()
    for f in cut.iterdir():
        shutil.copy2(f, tmp_path / f.name)
    head.write_bytes(h2)
    with pytest.raises(JournalRefused):  # H2 put back over the cut journal: refused
        open_for_table(path, "", bench=True, prove=start_proof)

    stop = threading.Event()

    def rewrite() -> None:
        with head.open("r+b", buffering=0) as f:
            while not stop.is_set():
                for h in (h1, h2):
                    f.seek(0)
                    f.write(h)

    loop = threading.Thread(target=rewrite, daemon=True)
    loop.start()
    try:
        for _ in range(25):
            with pytest.raises(JournalRefused):
                open_for_table(path, "", bench=True, prove=start_proof).close()
            capsys.readouterr()
            assert main(["audit", "verify", "--journal", str(path)]) == 1
            assert "BROKEN" in capsys.readouterr().out
    finally:
        stop.set()
        loop.join()


class _Link:
    on_witness: Any = None


def _held_table(path: Path) -> Controller:
    ctl = table_on(path, checkpoint_rounds=2)
    play(ctl, 1)
    await_witness(ctl, cast(Any, link := _Link()), WitnessRead(None, "no broker"), True)
    assert link.on_witness is not None
    ctl.link = link  # type: ignore[attr-defined]
    return ctl


def test_finding_4_a_required_witness_holds_play_until_it_agrees(tmp_path: Path) -> None:
    """A production table with a floor, started while the floor is unreachable: it
    played (event 711) on whatever journal was put back. Now it deals no new round until
    the floor link brings the floor's acknowledgement and it agrees."""
    ctl = _held_table(tmp_path / "j.sqlite")
    assert ctl.floor_gate.held and "witness" in ctl.floor_gate.held
    assert not ctl.take(Wager(1, 500), "bench")  # no new round
    ok, _ = ctl.request("credits-in", {"seat": 1, "cents": 100})
    assert ok  # the attendant still works
    last = ctl.journal.record(ctl.journal.last_seq)
    assert last is not None
    ctl.link.on_witness({"n": 0, "seq": last.seq, "hash": last.hash})
    _drain(ctl)
    assert not ctl.floor_gate.holds
    assert ctl.take(Wager(1, 500), "bench")
    codes = [r.code for r in ctl.journal.records(kinds=["event"])]
    assert codes[-1] == EventCode.JOURNAL_WITNESSED


def test_finding_4_a_contradicting_witness_stops_the_held_table(tmp_path: Path) -> None:
    ctl = _held_table(tmp_path / "j.sqlite")
    before = ctl.journal.last_seq
    ctl.link.on_witness({"n": 0, "seq": before + 50, "hash": "a" * 64})  # ahead: rolled back
    _drain(ctl)
    assert ctl.failure and "witness" in ctl.failure
    assert ctl.journal.refused
    ctl.event(EventCode.POWER_DOWN, None, reason="stop")
    assert ctl.journal.last_seq == before  # nothing more written into it


def _drain(ctl: Controller) -> None:
    while not ctl.inbox.empty():
        ctl.handle(ctl.inbox.get())


def test_finding_7_a_clock_set_back_is_an_event_and_since_uses_record_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    now = [2_000_000_000 * 10**9]
    j = Journal(path, clock_ns=lambda: now[0])
    j.append_one("event", {"n": 1}, code=101)
    now[0] -= 3600 * 10**9  # the clock set back an hour
    j.append_one("event", {"n": 2}, code=101)
    j.append_one("event", {"n": 3}, code=101)
    j.close()
    db = sqlite3.connect(path)
    steps = db.execute("SELECT body FROM records WHERE code = ?",
                       (int(EventCode.CLOCK_BACKWARDS),)).fetchall()
    db.close()
    assert len(steps) == 1 and '"back_s":3600' in steps[0][0]
    capsys.readouterr()
    since = dt.datetime.fromtimestamp(2_000_000_000 - 10, dt.UTC).isoformat()
    assert main(["events", "--json", "--since", since, "--journal", str(path)]) == 0
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e.get("n") for e in got if e["code"] == 101] == [1, 2, 3]  # none missed


def test_finding_7_a_bad_bench_force_draw_value_is_one_line(tmp_path: Path) -> None:
    ctl = table_on(tmp_path / "j.sqlite", variant="bingo")
    before = ctl.journal.last_seq
    for values in ({"bingo_target": "x"}, {"bingo_target": 2.5}, "21", {}):
        ok, msg = ctl.requests.run("force-draw", {"values": values})
        assert not ok and "force-draw: values must be" in msg and "\n" not in msg
    assert ctl.journal.last_seq == before and ctl.game.tilt is None  # no internal error


def test_finding_7_a_journal_file_cut_short_is_broken_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    size = path.stat().st_size
    for cut in (size // 2, size - 4096):
        shutil.copy2(path, tmp_path / "c.sqlite")
        for side in (".head", ".key"):
            shutil.copy2(path.with_name(path.name + side), tmp_path / f"c.sqlite{side}")
        os.truncate(tmp_path / "c.sqlite", cut)
        rc, out = _verify(tmp_path / "c.sqlite", capsys)
        assert rc == 1 and out.startswith("BROKEN"), (cut, out)


@pytest.mark.parametrize("how", ["blank-newer", "older-only", "older-twice"])
def test_redteam_f4_the_head_files_older_slot_is_no_fallback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str) -> None:
    """Red team F4: the head file's second slot held an older head; blanking the newer
    slot (or keeping only the older one) and cutting the last transaction passed, and a
    $7,000 cash-out was paid again. Now a head whose other slot is blank, damaged or a
    copy must have the journal ahead of it (a torn write follows a commit that is there),
    and a new process writes its first head into the older slot, never over the newest."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    cut = tmp_path / "cut"
    cut.mkdir()
    for f in tmp_path.glob("j.sqlite*"):
        if f.is_file():
            shutil.copy2(f, cut / f.name)
    ctl = table_on(path, checkpoint_rounds=2)  # a new process: etg credits out
    ok, msg = ctl.request("credits-out", {"seat": 2, "cents": 700, "id": "CASH7"})
    assert ok, msg
    ctl.journal.close()
    head = path.with_name(path.name + ".head").read_bytes()
    slots = [head[:SLOT], head[SLOT:]]
    seqs = [int(s.split()[1]) for s in slots]
    newer, older = (0, 1) if seqs[0] > seqs[1] else (1, 0)
    for f in tmp_path.glob("j.sqlite*"):  # the cash-out's transaction cut away
        if f.is_file() and not f.name.endswith(".head"):
            f.unlink()
    for f in cut.iterdir():
        if not f.name.endswith(".head"):
            shutil.copy2(f, tmp_path / f.name)
    forged = {"blank-newer": [b"\0" * SLOT if i == newer else slots[i] for i in (0, 1)],
              "older-only": [slots[older]],
              "older-twice": [slots[older], slots[older]]}[how]
    path.with_name(path.name + ".head").write_bytes(b"".join(forged))
    rc, out = _verify(path, capsys)
    assert rc == 1 and "BROKEN" in out, out
    with pytest.raises(JournalRefused):
        open_for_table(path, "", bench=True, prove=start_proof)
    assert main(["credits", "status", "--id", "CASH7", "--journal", str(path)]) == 1


def test_redteam_f7_an_acknowledgement_that_contradicts_the_journal_stops_play(
        tmp_path: Path) -> None:
    """Red team F7: a best-effort table started without its witness; the link then got
    an acknowledgement for more messages than this journal ever wrote (a rolled-back
    journal), logged it, and dealt 30 rounds. Now every acknowledgement is held against
    the journal, and one that contradicts it stops the table."""
    ctl = table_on(tmp_path / "j.sqlite", checkpoint_rounds=2)
    play(ctl, 1)
    link = _Link()
    await_witness(ctl, cast(Any, link), WitnessRead(None, "no broker"), False)
    assert not ctl.floor_gate.holds  # best-effort: plays
    last = ctl.journal.record(ctl.journal.last_seq)
    assert last is not None
    link.on_witness({"n": 0, "seq": last.seq, "hash": last.hash})  # agrees: nothing
    _drain(ctl)
    assert not ctl.failure
    link.on_witness({"n": ctl.journal.outbox_last_n() + 470})  # the floor holds more
    _drain(ctl)
    assert ctl.failure and "witness" in ctl.failure
    assert not ctl.take(Wager(1, 500), "bench")


def test_redteam_f2_a_journal_relabelled_older_is_tampered_not_archived(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Red team F2: `info.schema` set to 3 made a bench table move its whole valid journal
    aside as "older firmware" and begin anew (grants paid again, transfers forgotten)."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    _sql(path, "UPDATE info SET value = '3' WHERE key = 'schema'")
    with pytest.raises(JournalRefused, match="info row was edited"):
        open_for_table(path, "", bench=True, prove=start_proof)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("j.sqlite.2")) == []
    rc, out = _verify(path, capsys)
    assert rc == 1 and "BROKEN" in out and "info row was edited" in out, out


def test_redteam_f3_a_facts_failure_is_not_called_meters(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    _sql(path, "UPDATE info SET value = 'sha256' WHERE key = 'chain'")
    rc, out = _verify(path, capsys)
    assert rc == 1 and out.startswith("BROKEN: the journal says its chain is"), out


def test_redteam_f6_an_init_that_cannot_name_the_archive_changes_nothing(
        tmp_path: Path) -> None:
    """Red team F6(b): `journal init --archive` moved the journal aside, THEN failed to
    write the register: the unnamed archive could be moved back as live memory. Now the
    register is checked first (and a failed write moves the journal back)."""
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    (tmp_path / "j.sqlite.key.superseded").mkdir()  # cannot be appended to
    before = sorted(p.name for p in tmp_path.iterdir())
    rc = main(["--set", "table.mode=bench", "journal", "init", "--reason", "t",
               "--archive", "--journal", str(path)])
    assert rc == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing moved


def test_redteam_f8_a_forged_outbox_row_is_never_reported_and_refuses_the_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Red team F8: outbox rows were unkeyed and sent as they were: a waiting row edited
    into a $99,999 cash-out reached the floor, and the audit said ok."""
    from firmware.journal.outbox import Outbox

    path = tmp_path / "j.sqlite"
    j = Journal(path)
    box = Outbox(j)
    j.append_one("event", {"phase": "voided"}, code=201)
    j.append_one("event", {"seat": 1, "cents": 500}, code=800, meters={
        ("credits_in", 1, ""): 500, ("credits", 1, ""): 500,
        ("credits_in", 0, ""): 500, ("credits", 0, ""): 500})
    sent = box.pending(0)
    assert [m.kind for m in sent] == ["event", "event", "meters"]
    assert all('"mac"' not in m.wire() for m in sent)
    assert j.verify().ok
    box.close()
    j.close()
    _sql(path, "UPDATE floor_outbox SET payload = replace(payload, '\"phase\":\"voided\"', "
               "'\"cents\":9999900,\"seat\":1') WHERE n = 1")
    res = Journal(path, readonly=True).verify()
    assert not res.ok and "floor outbox message 1" in res.problem
    with pytest.raises(JournalRefused, match="floor outbox message 1"):
        open_for_table(path, "", bench=True, prove=None)
    j = Journal(path)
    box = Outbox(j)
    assert box.pending(0) == [] and box.forged == 1  # nothing from it on is sent
    box.close()
    j.close()


def test_redteam_f12_a_foreign_meter_row_at_zero_is_not_this_journals(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    _sql(path, "INSERT INTO meters VALUES ('paid', 5, '', 0)")
    rc, out = _verify(path, capsys)
    assert rc == 1 and "a row no record made" in out, out
    assert main(["meters", "--journal", str(path)]) == 1


def test_redteam_f11_a_proof_until_a_checkpoint_never_says_full(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    db = sqlite3.connect(path)
    cps = [s for s, b in db.execute("SELECT seq, body FROM records WHERE kind = 'meta'")
           if '"checkpoint"' in b]
    db.close()
    rc, out = _verify(path, capsys, "--until", str(cps[1]), "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["verified"] == "until" and "the head file" in doc["unchecked"]
    rc, out = _verify(path, capsys, "--until", str(cps[1]))
    assert rc == 0 and "NOT checked" in out


def test_redteam_f10_a_forced_draw_outside_the_rounds_domain_is_not_taken() -> None:
    from firmware.table.rng_draw import forced_refusal

    domain = {"bingo_target": (4, 5, 21), "bingo_multiplier": (2, 10)}
    assert forced_refusal({"bingo_target": 21, "bingo_multiplier": 10}, domain) is None
    for bad in ({"bingo_target": -1, "bingo_multiplier": 10},
                {"bingo_target": 21, "bingo_multiplier": 0},
                {"bingo_target": 21},
                {"bingo_target": 21, "bingo_multiplier": 10, "evil": 1}):
        assert forced_refusal(bad, domain) is not None, bad


@pytest.mark.parametrize("side", ["-shm", "-wal", ".head"])
def test_redteam_f9_nothing_is_written_through_a_link_beside_the_journal(
        tmp_path: Path, side: str) -> None:
    path = tmp_path / "j.sqlite"
    _cash_out_then_play(path)
    target = tmp_path / "target"
    target.write_bytes(path.with_name(path.name + ".head").read_bytes()
                       if side == ".head" else b"t3")
    target.chmod(0o644)
    link = path.with_name(path.name + side)
    link.unlink(missing_ok=True)
    link.symlink_to(target)
    rc = main(["--set", "table.mode=bench", "credits", "add", "--seat", "1", "--cents",
               "100", "--id", "S3", "--journal", str(path)])
    assert rc != 0
    assert target.stat().st_mode & 0o777 == 0o644  # never narrowed through the link
