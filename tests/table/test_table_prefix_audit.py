"""A start proves a long journal from its last checkpoint (fast: it does not grow with the
journal); what lies before it is proven right after, beside the table, and a journal
whose history does not prove stops the table (issue 34)."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from journal_rig import copy_journal, played_journal
from table_process import running_table_lines

from firmware.cli import main
from firmware.journal import key as journal_key
from firmware.journal.chain import GENESIS, record_hash
from firmware.journal.errors import JournalRefused
from firmware.journal.head import Head, HeadWriter, head_path
from firmware.journal.opening import open_for_table
from firmware.table.meter_proof import start_proof
from firmware.table.service.prefix_audit import Outcome, PrefixAudit, needed


@pytest.fixture(scope="module")
def long_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight rounds with a checkpoint every two: the start proves only the last stretch."""
    return played_journal(tmp_path_factory.mktemp("long"), rounds=8, checkpoint_rounds=2)


def edit_old_round(path: Path, *, rechain: bool = False) -> None:
    """Edit the first round record. ``rechain``: as someone holding the secret would (or
    a table with a bug): every keyed hash after it recomputed and the head file rewritten,
    so the keyed chain holds and only the engine's replay of the history can tell."""
    db = sqlite3.connect(path, isolation_level=None)
    seq = db.execute("SELECT MIN(seq) FROM records WHERE kind = 'round'").fetchone()[0]
    db.execute("UPDATE records SET body = replace(body, '\"variant\"', '\"varIant\"') "
               "WHERE seq = ?", (seq,))
    if rechain:  # the first stake made larger than its round record says: only the
        # engine's replay sees it (the meters add the round records up)
        seq = db.execute("SELECT MIN(seq) FROM records WHERE kind = 'input' AND body "
                         "LIKE '%\"type\":\"wager\"%'").fetchone()[0]
        db.execute("UPDATE records SET body = replace(body, '\"amount\":500,', "
                   "'\"amount\":600,') WHERE seq = ?", (seq,))
        key = journal_key.load(journal_key.beside(path))
        rows = db.execute("SELECT seq, ts_ns, kind, code, round_no, txn_last, body, prev "
                          "FROM records WHERE seq >= ? ORDER BY seq", (seq,)).fetchall()
        prev = rows[0][7]
        db.execute("BEGIN")
        for s, ts, kind, code, rnd, txn_last, body, _ in rows:
            digest = record_hash(prev, s, ts, kind, code, rnd, txn_last, body, key)
            db.execute("UPDATE records SET prev = ?, hash = ? WHERE seq = ?", (prev, digest, s))
            prev = digest
        db.execute("COMMIT")
        head_path(path).unlink()
        writer = HeadWriter(head_path(path), key)
        writer.write(Head(0, GENESIS))  # both slots valid, as a table leaves them
        writer.write(Head(rows[-1][0], prev))
        writer.close()
    db.close()


def _audit(path: Path, until: int) -> tuple[list[str], PrefixAudit]:
    failures: list[str] = []
    got = threading.Event()

    def failed(why: str) -> None:
        failures.append(why)
        got.set()

    audit = PrefixAudit(path, path.with_name(path.name + ".key"), until, failed)
    audit.join(120)
    return failures, audit


def test_the_start_proves_from_the_last_checkpoint_and_the_rest_beside(
        long_journal: Path, tmp_path: Path) -> None:
    path = copy_journal(long_journal, tmp_path / "ok")
    j = open_for_table(path, "", bench=True, prove=start_proof)
    until = needed(j)
    assert until is not None and until == j.proven_from > 1
    j.close()
    failures, audit = _audit(path, until)
    assert failures == [] and audit.result is not None and audit.result["ok"] is True


def test_history_edited_before_the_last_checkpoint_is_found_beside_the_table(
        long_journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_journal(long_journal, tmp_path / "edited")
    edit_old_round(path, rechain=True)
    j = open_for_table(path, "", bench=True, prove=start_proof)  # the tail proves
    until = j.proven_from
    j.close()
    failures, _ = _audit(path, until)
    assert len(failures) == 1 and "journal integrity check failed" in failures[0]
    assert main(["audit", "verify", "--journal", str(path)]) == 1
    assert "BROKEN" in capsys.readouterr().out


def test_a_short_journal_needs_no_audit_beside(tmp_path: Path) -> None:
    path = played_journal(tmp_path, rounds=3)
    j = open_for_table(path, "", bench=True, prove=start_proof)
    assert needed(j) is None  # the start proved everything before the first write
    j.close()


def test_a_table_on_an_edited_long_journal_stops_taking_inputs(long_journal: Path,
                                                               tmp_path: Path) -> None:
    path = copy_journal(long_journal, tmp_path / "run")
    edit_old_round(path, rechain=True)
    with running_table_lines(path) as (_proc, lines):
        lines.wait_for(
            "the table to stop on the journal's history",
            lambda line: "table stopped" in line and "integrity check failed" in line)
        found_at = _last_seq(path)
    # issue 42, finding 7: nothing more is written into a journal found broken (no 101)
    assert _last_seq(path) == found_at


def _last_seq(path: Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT MAX(seq) FROM records").fetchone()[0])
    finally:
        db.close()


def test_history_edited_before_the_last_checkpoint_is_refused_by_the_start(
        long_journal: Path, tmp_path: Path) -> None:
    """Issue 42: the start walks the WHOLE keyed chain before anything reads the journal;
    only the engine's replay of the history runs beside the table."""
    path = copy_journal(long_journal, tmp_path / "edited")
    edit_old_round(path)
    with pytest.raises(JournalRefused, match="keyed hash"):
        open_for_table(path, "", bench=True, prove=start_proof)


def _rounds(path: Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM records WHERE kind = 'round'")
                   .fetchone()[0])
    finally:
        db.close()


def _events(path: Path, code: int) -> list[str]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [b for (b,) in db.execute("SELECT body FROM records WHERE kind = 'event' "
                                         "AND code = ? ORDER BY seq", (code,))]
    finally:
        db.close()


def test_finding_6_a_killed_proof_holds_play_and_is_retried(long_journal: Path,
                                                            tmp_path: Path) -> None:
    """The background proof killed with kill -9: it was one warning and the table played
    on unproven. Now the table deals no new round until a retry proves the history, and
    each outcome is an event (713 not finished, then 712 proven)."""
    path = copy_journal(long_journal, tmp_path / "run")
    before = _rounds(path)
    with running_table_lines(path, "--auto-play", "--pace", "0.01") as (_proc, lines):
        i = lines.wait_for("the proof's child", lambda line: "beside the table (pid" in line)
        pid = int(lines.lines[i].split("(pid ")[1].split(")")[0])
        os.kill(pid, signal.SIGKILL)
        j = lines.wait_for("the retry", lambda line: "not proven yet (attempt 1" in line)
        assert "killed by signal 9" in lines.lines[j]
        held = _rounds(path)
        assert held <= before + 1  # at most the round in play is finished
        k = lines.wait_for("the retry to prove",
                           lambda line: "proven beside the table" in line, start=j)
        assert _rounds(path) == held, lines.lines[j:k]
        deadline = time.monotonic() + 60
        while _rounds(path) <= held and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _rounds(path) > held  # played on once proven
    unproven = _events(path, 713)
    assert len(unproven) == 1 and "killed by signal 9" in unproven[0]
    assert len(_events(path, 712)) == 1


def test_finding_6_a_stopped_proof_meets_its_deadline_and_is_retried(
        long_journal: Path, tmp_path: Path) -> None:
    """SIGSTOP: the attempt never answers; its deadline passes, it is killed, retried."""
    path = copy_journal(long_journal, tmp_path / "ok")
    j = open_for_table(path, "", bench=True, prove=start_proof)
    until = needed(j)
    j.close()
    assert until is not None
    seen: list[Outcome] = []
    audit = PrefixAudit(path, path.with_name(path.name + ".key"), until, seen.append,
                        on_outcome=seen.append, deadline_s=3.0, backoff_s=(0.2, 1.0))
    assert audit.proc is not None
    os.kill(audit.proc.pid, signal.SIGSTOP)
    audit.join(120)
    kinds = [o.kind for o in seen if isinstance(o, Outcome)]
    assert kinds[0] == "unfinished" and "deadline" in seen[0].problem  # type: ignore[union-attr]
    assert kinds[-1] == "proven" and audit.proven


def test_redteam_f5_a_firmware_package_in_the_working_directory_is_not_run(
        long_journal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team F5: the proof's child was `python -m firmware` without -I, so a
    `firmware/` in the table's working directory (the journal's, writable by the service
    user) ran instead and said "ok". Now every child of ours runs isolated."""
    path = copy_journal(long_journal, tmp_path / "edited")
    edit_old_round(path, rechain=True)
    j = open_for_table(path, "", bench=True, prove=start_proof)
    until = j.proven_from
    j.close()
    fake = tmp_path / "cwd" / "firmware"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "__main__.py").write_text(
        "import json\nprint(json.dumps({'ok': True, 'verified': 'full', 'records': 1,"
        " 'first_bad': None, 'problem': None, 'unchecked': [], 'secret': None}))\n")
    monkeypatch.chdir(fake.parent)
    failures, _ = _audit(path, until)
    assert len(failures) == 1 and "integrity check failed" in failures[0]
