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


def _apply_again(path: Path, seq: int) -> int:
    """What a table fooled once into reading record ``seq`` (an 800/801) as absent
    writes: the same transfer applied again, as the table's own keyed transaction (the
    input, the event, the meters). Returns the new event's record number."""
    from firmware.engine.inputs import CreditsIn, CreditsOut
    from firmware.journal import Entry
    from firmware.journal.meters import credit_deltas
    from firmware.journal.opening import open_for_table
    from firmware.table.meter_proof import start_proof

    journal = open_for_table(path, str(path) + ".key", bench=True, prove=start_proof)
    try:
        first = journal.record(seq)
        assert first is not None and first.code in (800, 801)
        seat, cents = int(first.body["seat"]), int(first.body["cents"])
        inp = CreditsIn(seat, cents) if first.code == 800 else CreditsOut(seat, cents)
        signed = cents if first.code == 800 else -cents
        written = journal.append([
            Entry("input", {"input": inp.to_json(), "source": "attendant"}, first.round_no),
            Entry("event", dict(first.body), first.round_no, first.code)],
            credit_deltas(seat, signed))
        return written[-1].seq
    finally:
        journal.close()


def _reindex(path: Path) -> None:
    """The laundering: plain SQLite rebuilds every index (content unchanged)."""
    db = sqlite3.connect(path)
    try:
        db.execute("REINDEX")
        db.commit()
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()


def test_finding_8_a_transfer_applied_twice_is_a_broken_journal(
        cashed_out: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    """Red team s42 F8: T-1 paid twice by a fooled reading, then ``REINDEX``: every
    record verifies, the index is whole, and on f3816ac ``audit verify`` said ok and every
    start was clean. The proof holds the chain to "one transfer id, one application"."""
    path, _ = cashed_out
    first = int(_status(path, "T-1", capsys)["seq"])  # type: ignore[arg-type]
    again = _apply_again(path, first)
    _reindex(path)
    named = f"transfer T-1 applied twice: records {first} and {again}"
    audit = _etg("audit", "verify", "--journal", str(path))
    assert audit.returncode == 1 and named in audit.stdout + audit.stderr, audit
    status = _etg("credits", "status", "--id", "T-1", "--journal", str(path))
    assert status.returncode == 1 and named in status.stderr, status
    before = path.read_bytes()
    run = _etg("run", "--headless", "--auto-play", "--quiet", "--rounds", "1",
               "--pace", "0.01", "--journal", str(path))
    assert run.returncode == 2 and named in run.stderr, run
    assert path.read_bytes() == before, "a refused start writes nothing"


def test_finding_8_a_seat_granted_twice_is_a_broken_journal(tmp_path: Path) -> None:
    """F7's double grant (seat 3 credited again at the next start), laundered: the grant
    carries its seat's id, and the proof refuses a second one."""
    path = tmp_path / "j.sqlite"
    run = _etg("run", "--headless", "--auto-play", "--quiet", "--rounds", "1",
               "--pace", "0.01", "--journal", str(path))
    assert run.returncode == 0, run.stderr
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        grants = db.execute("SELECT seq, body FROM records NOT INDEXED WHERE code = 800"
                            " ORDER BY seq").fetchall()
    finally:
        db.close()
    seat3 = next(s for s, b in grants if json.loads(b)["seat"] == 3)
    assert json.loads(dict(grants)[seat3]).get("transfer") == "auto-play:3"
    again = _apply_again(path, seat3)
    _reindex(path)
    audit = _etg("audit", "verify", "--journal", str(path))
    assert audit.returncode == 1, audit
    assert f"transfer auto-play:3 applied twice: records {seat3} and {again}" in audit.stdout
    run = _etg("run", "--headless", "--auto-play", "--quiet", "--rounds", "1",
               "--pace", "0.01", "--journal", str(path))
    assert run.returncode == 2 and "applied twice" in run.stderr, run


def test_finding_8_the_grant_rule_and_the_id_rule(tmp_path: Path) -> None:
    """The rules themselves: an id once; a grant only into a seat never credited, and
    only as a credit into the seat its id names; a client may not take a grant's id."""
    from firmware.journal.once import OnceRules
    from firmware.table.requests.transfers import CreditLimits, TransferRefused, parse_transfer

    rules = OnceRules()
    assert rules.take(5, 800, {"seat": 1, "cents": 5, "transfer": "A"}) is None
    assert rules.take(6, 801, {"seat": 2, "cents": 5, "transfer": "B"}) is None
    assert rules.take(7, 801, {"seat": 1, "cents": 5}) is None  # no id: nothing to hold
    assert rules.take(8, 801, {"seat": 2, "cents": 5, "transfer": "A"}) == \
        "transfer A applied twice: records 5 and 8"
    assert rules.take(9, 800, {"seat": 2, "cents": 5, "transfer": "auto-play:2"}) is None
    assert "already credited" in (rules.take(
        10, 800, {"seat": 1, "cents": 5, "transfer": "auto-play:1"}) or "")
    assert "not a credit into the seat it names" in (rules.take(
        11, 800, {"seat": 3, "cents": 5, "transfer": "auto-play:4"}) or "")
    assert "not a credit" in (rules.take(
        12, 801, {"seat": 5, "cents": 5, "transfer": "auto-play:5"}) or "")
    with pytest.raises(TransferRefused, match="table's own"):
        parse_transfer("credits-in", {"seat": 1, "cents": 5, "id": "auto-play:1"}, 3,
                       CreditLimits())


def _events(path: Path, code: int) -> list[tuple[int, dict[str, object]]]:
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return [(s, json.loads(b)) for s, b in db.execute(
            "SELECT seq, body FROM records NOT INDEXED WHERE kind = 'event' AND code = ?"
            " ORDER BY seq", (code,))]
    finally:
        db.close()


def _proven_start(path: Path) -> None:
    """A start's journal part (the proof, then the notes and the last start judged)."""
    from firmware.journal.opening import open_for_table
    from firmware.table.meter_proof import start_proof

    open_for_table(path, "", bench=True, prove=start_proof).close()


def test_finding_2_a_forged_refusal_note_is_not_a_genuine_715(tmp_path: Path) -> None:
    """Red team s42 F2: any text in ``<journal>.refused`` became a keyed 715 with the
    writer's words. The refusing start MACs its note with the table's secret; a line
    that does not verify is journaled as an unverified note (717) with its bytes
    (bounded), a genuine one as 715, a genuine one put back after it was journaled as
    717 again."""
    from journal_rig import played_journal

    from firmware.journal import key as journal_key
    from firmware.journal.refusal import EVIDENCE_MAX, note_path, note_refusal

    path = played_journal(tmp_path, rounds=2)
    note = note_path(path)
    forged = '{"ts_ns": 1, "refused": "FORGED: attendant Bob tampered at 03:00"}'
    long_line = "x" * 5000
    genuine_key = journal_key.load(journal_key.key_path_for(path, ""))
    note.write_text(forged + "\n" + long_line + "\n")
    note_refusal(path, "the journal changed during the start's proof: test", b"k" * 32)
    end = _events(path, 801)[-1][0]  # a record of this journal, and its hash
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    digest = db.execute("SELECT hash FROM records WHERE seq = ?", (end,)).fetchone()[0]
    db.close()
    note_refusal(path, "another journal's refusal", genuine_key, (end, "0" * 64))
    note_refusal(path, "the journal changed during the start's proof: genuine",
                 genuine_key, (end, digest))
    kept = note.read_text().splitlines()[-1]
    _proven_start(path)
    refused = _events(path, 715)
    assert [b["refused"] for _s, b in refused] == [
        "the journal changed during the start's proof: genuine"]
    assert refused[0][1]["at"] == [end, digest]
    unverified = _events(path, 717)
    assert len(unverified) == 4
    assert [b["note"] for _s, b in unverified[:2]] == [forged, long_line[:EVIDENCE_MAX]]
    assert unverified[1][1]["bytes"] == 5000
    assert "MAC does not verify" in str(unverified[2][1]["why"])
    assert "another journal" in str(unverified[3][1]["why"])
    assert not note.exists()
    # the genuine line left or put back after its 715 was committed (a start killed
    # between the commit and the note's removal leaves exactly this: red team r42 F7):
    # no second refusal, and no tamper alarm either
    note.write_text(kept + "\n")
    _proven_start(path)
    assert len(_events(path, 715)) == 1 and len(_events(path, 717)) == 4
    assert not note.exists()


def test_finding_r42_2_a_note_larger_than_what_is_read_says_so(tmp_path: Path) -> None:
    """Red team r42 F2: a 2 GiB note was journaled as bytes=64000, with nothing saying
    that most of it was never read; the 717 now states the file's size and the bytes
    read."""
    from journal_rig import played_journal

    from firmware.journal.refusal import READ_MAX, note_path

    path = played_journal(tmp_path, rounds=2)
    with open(note_path(path), "wb") as f:
        f.write(b"junk\n" * 10)
        f.truncate(3 * READ_MAX)  # a sparse tail: large, cheap
    _proven_start(path)
    first = _events(path, 717)[0][1]
    assert first["note_file_bytes"] == 3 * READ_MAX
    assert first["note_bytes_read"] == READ_MAX


def test_finding_3_a_refused_start_whose_note_was_removed_is_named(
        tmp_path: Path) -> None:
    """Red team s42 F3: the editor undid the edit and deleted the note: the next start
    was clean and nothing named the refused start. Its power-up (a keyed record) is in
    the journal with no READY after it: the next start names it (716), a fact rather
    than a tamper alarm, since a kill -9 during a start leaves the same."""
    from journal_rig import played_journal

    from firmware.journal.opening import open_for_table
    from firmware.journal.refusal import note_path
    from firmware.table.meter_proof import start_proof

    path = played_journal(tmp_path, rounds=2)
    journal = open_for_table(path, "", bench=True, prove=start_proof)
    up = journal.append_one("event", {"mode": "bench", "pid": 4242}, code=100).seq
    with open(path, "r+b") as fh:  # a raw write of the file (its bytes as they were)
        first = fh.read(4096)
        fh.seek(0)
        fh.write(first)
    with pytest.raises(Exception, match="changed during the start"):
        list(journal.records(kinds=["event"]))
    journal.close()
    assert note_path(path).exists()
    note_path(path).unlink()  # the refusal's note suppressed
    _proven_start(path)
    assert _events(path, 715) == []
    named = _events(path, 716)
    assert [(b["power_up"], b["pid"], b["notes"]) for _s, b in named] == [(up, 4242, [])]
    _proven_start(path)  # named once, not at every start after
    assert len(_events(path, 716)) == 1


def test_finding_3_a_start_that_finished_is_not_named(tmp_path: Path) -> None:
    """No false alarm: a start that reached READY (then was killed in play or stopped)
    leaves nothing to name; one killed before READY is named once, as unfinished."""
    path = tmp_path / "j.sqlite"
    run = _etg("run", "--headless", "--auto-play", "--quiet", "--rounds", "1",
               "--pace", "0.01", "--journal", str(path))
    assert run.returncode == 0, run.stderr
    _proven_start(path)
    assert _events(path, 716) == [] and _events(path, 715) == []


def _wal_hide(wal: Path, kind: str, seq: int) -> int:
    """Every copy of record ``seq``'s (kind, seq) index cell in a write-ahead log given
    another kind (one byte), then every frame's checksum recomputed as SQLite's WAL
    format defines it (header and frames, cumulative; the magic's low bit says the
    words' byte order), so that SQLite takes the frames as whole. Returns the copies."""
    import struct

    t, e = _serial(seq)
    kb = kind.encode()
    cell = bytes([4, 13 + 2 * len(kb), t, t]) + kb + e + e
    w = bytearray(wal.read_bytes())
    hits, at = 0, w.find(cell)
    while at >= 0:
        w[at + 4 + len(kb) - 1] = ord("z")
        hits, at = hits + 1, w.find(cell, at + 1)
    magic, _v, page = struct.unpack(">III", w[:12])
    order = ">" if magic & 1 else "<"

    def sums(data: bytes, a: int, b: int) -> tuple[int, int]:
        words = struct.unpack(f"{order}{len(data) // 4}I", data)
        for i in range(0, len(words), 2):
            a = (a + words[i] + b) & 0xFFFFFFFF
            b = (b + words[i + 1] + a) & 0xFFFFFFFF
        return a, b

    a, b = sums(bytes(w[:24]), 0, 0)
    off = 32
    while off + 24 + page <= len(w) and w[off + 8:off + 16] == w[16:24]:  # this salt
        a, b = sums(bytes(w[off:off + 8]), a, b)
        a, b = sums(bytes(w[off + 24:off + 24 + page]), a, b)
        w[off + 16:off + 24] = struct.pack(">II", a, b)
        off += 24 + page
    wal.write_bytes(bytes(w))
    return hits


def test_rt_f4_an_index_cell_edited_in_the_wal_after_kill_9_pays_nothing_twice(
        tmp_path: Path) -> None:
    """Red team s42 F4 (the write-ahead-log variant of F1): a running table applies
    T-2, is killed (kill -9), the records_kind cell of T-2's 801 in the -wal is edited
    with the frames' checksums recomputed; then ``credits status``, ``credits out`` with
    the same id, a start and ``audit verify``: T-2 is applied exactly once, whatever
    each of them says (refused, or "already applied")."""
    import os
    import signal
    import time

    from table_process import running_table

    path = tmp_path / "j.sqlite"
    with running_table(path, "--auto-play", "--rounds", "200", "--pace", "0.05") as proc:
        out = _etg("credits", "out", "--seat", "1", "--cents", "900", "--id", "T-2",
                   "--journal", str(path))
        assert out.returncode == 0, out.stderr
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    wal = Path(f"{path}-wal")
    assert wal.exists() and wal.stat().st_size > 0
    seq = next(s for s, b in _events_in(path) if b.get("transfer") == "T-2")
    assert _wal_hide(wal, "event", seq) >= 1
    status = _etg("credits", "status", "--id", "T-2", "--journal", str(path), "--json")
    assert status.returncode != 0 or json.loads(status.stdout)["state"] == "applied", status
    _etg("credits", "out", "--seat", "1", "--cents", "900", "--id", "T-2",
         "--journal", str(path))
    _etg("run", "--headless", "--auto-play", "--quiet", "--rounds", "1", "--pace", "0.01",
         "--journal", str(path))
    audit = _etg("audit", "verify", "--journal", str(path))
    assert audit.returncode in (0, 1), audit
    paid = [s for s, b in _events_in(path) if b.get("transfer") == "T-2"]
    assert paid == [seq], f"T-2 paid {len(paid)} times: records {paid}"


def _events_in(path: Path) -> list[tuple[int, dict[str, object]]]:
    """Every 801 of the journal with its -wal (read as SQLite reads it, no index)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [(s, json.loads(b)) for s, b in db.execute(
            "SELECT seq, body FROM records NOT INDEXED WHERE code = 801 ORDER BY seq")]
    finally:
        db.close()


def test_finding_2_a_note_that_is_not_a_file_is_named(tmp_path: Path) -> None:
    """A directory (or a link) in the note's place keeps every refused start's note out:
    named at each start (717), its target never read or touched."""
    from journal_rig import played_journal

    from firmware.journal.refusal import note_path

    path = played_journal(tmp_path, rounds=1)
    target = tmp_path / "elsewhere"
    target.write_text("not ours\n")
    note_path(path).symlink_to(target)
    _proven_start(path)
    named = _events(path, 717)
    assert len(named) == 1 and "not a regular file" in str(named[0][1]["why"])
    assert target.read_text() == "not ours\n" and _events(path, 715) == []


def test_finding_r42_5_a_new_journal_does_not_inherit_the_old_ones_note(
        tmp_path: Path) -> None:
    """Red team r42 F5: ``etg journal init --archive`` left ``<journal>.refused`` behind:
    the new journal's first start journaled the old journal's genuine note as a 717 (a
    tamper alarm from an honest technician's step) and the old journal lost its 715. The
    note now moves with its journal."""
    from journal_rig import played_journal

    from firmware.journal import key as journal_key
    from firmware.journal.refusal import note_path, note_refusal

    path = played_journal(tmp_path, rounds=2)
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    end, digest = db.execute("SELECT seq, hash FROM records ORDER BY seq DESC").fetchone()
    db.close()
    note_refusal(path, "the journal changed during the start's proof: genuine",
                 journal_key.load(journal_key.key_path_for(path, "")), (end, digest))
    assert main(["journal", "init", "--archive", "--reason", "new card", "--journal",
                 str(path), "--json"]) == 0
    assert not note_path(path).exists()
    kept = [p for p in tmp_path.iterdir() if p.name.endswith(".refused")]
    assert len(kept) == 1 and kept[0].name.startswith("j.sqlite.20")
    _proven_start(path)
    assert _events(path, 717) == [] and _events(path, 715) == []
