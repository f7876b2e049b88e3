"""Issue 34: evidence that checks itself. A tamper matrix on a journal a table wrote
(rounds, checkpoints, transfers): every kind is refused by ``etg audit verify`` (exit 1)
and by the next start (nothing written), and the findings are reproduced first:

- finding 2: an old head file put back over a longer journal was accepted (the database
  may be ahead of its head by ONE transaction, checked exactly with commit markers);
- finding 3: a trigger planted in the journal made writes vanish (the schema is compared
  with ours at every verification; every append checks that its rows landed);
- finding 4: keyless verification passed a journal downgraded to an unkeyed chain (it
  now says what it could not check, and a table refuses an unkeyed chain);
- a round record that says something else than the game (finding 1's class) is refused
  by the engine replay even when its chain is valid.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from journal_rig import copy_journal, play, played_journal, table_on

from firmware.cli import main
from firmware.journal import Entry, Journal
from firmware.journal.chain import record_hash
from firmware.journal.head import SLOT, head_path
from firmware.journal.opening import JournalRefused, open_for_table
from firmware.table.meter_proof import start_proof

ROWS = "SELECT seq, ts_ns, kind, code, round_no, body, txn_last, prev, hash FROM records"


def snapshot_files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in path.parent.iterdir()
            if p.name.startswith(path.name) and p.is_file() and not p.name.endswith(".lock")}


def rechain(db: sqlite3.Connection, key: bytes | None, since: int = 1) -> None:
    """Recompute every hash from ``since`` on, as an attacker would: without the
    table's secret (plain SHA-256, or another key)."""
    prev = "0" * 64 if since == 1 else db.execute(
        "SELECT hash FROM records WHERE seq = ?", (since - 1,)).fetchone()[0]
    for seq, ts, kind, code, rnd, body, txn_last, _p, _h in db.execute(
            ROWS + " WHERE seq >= ? ORDER BY seq", (since,)).fetchall():
        digest = record_hash(prev, seq, ts, kind, code, rnd, txn_last, body, key)
        db.execute("UPDATE records SET prev = ?, hash = ? WHERE seq = ?", (prev, digest, seq))
        prev = digest


def _round_seq(db: sqlite3.Connection, nth: int = -1) -> int:
    seqs = [r[0] for r in db.execute("SELECT seq FROM records WHERE kind = 'round' "
                                     "ORDER BY seq")]
    return int(seqs[nth])


def edit_round(db: sqlite3.Connection) -> None:
    seq = _round_seq(db, 1)
    db.execute("UPDATE records SET body = replace(body, '\"state\":\"settled\"', "
               "'\"state\":\"voided\"') WHERE seq = ?", (seq,))


def edit_and_rechain_unkeyed(db: sqlite3.Connection) -> None:
    edit_round(db)
    rechain(db, None)


def edit_and_rechain_other_key(db: sqlite3.Connection) -> None:
    edit_round(db)
    rechain(db, b"\x07" * 32)


def delete_middle(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM records WHERE seq = 9")


def delete_middle_and_renumber(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM records WHERE seq = 9")
    db.execute("UPDATE records SET seq = seq - 1 WHERE seq > 9")
    rechain(db, None, 9)


def swap(db: sqlite3.Connection) -> None:
    a = db.execute(ROWS + " WHERE seq = 10").fetchone()[1:]
    b = db.execute(ROWS + " WHERE seq = 11").fetchone()[1:]
    sql = ("UPDATE records SET ts_ns=?, kind=?, code=?, round_no=?, body=?, txn_last=?, "
           "prev=?, hash=? WHERE seq=?")
    db.execute(sql, (*b, 10))
    db.execute(sql, (*a, 11))


def cut_tail(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM records WHERE seq > (SELECT MAX(seq) - 4 FROM records)")


def cut_last_record_of_a_transaction(db: sqlite3.Connection) -> None:
    """The last transaction (the cash-out: input and event) loses its event."""
    db.execute("DELETE FROM records WHERE seq = (SELECT MAX(seq) FROM records)")


def move_commit_marker(db: sqlite3.Connection) -> None:
    """The cash-out's transaction made to end one record earlier (then its last record
    dropped): a shortened transaction that still ends 'cleanly'."""
    last = db.execute("SELECT MAX(seq) FROM records").fetchone()[0]
    db.execute("DELETE FROM records WHERE seq = ?", (last,))
    db.execute("UPDATE records SET txn_last = ? WHERE seq = ?", (last - 1, last - 1))


def remove_checkpoint(db: sqlite3.Connection) -> None:
    seq = db.execute("SELECT MAX(seq) FROM records WHERE kind = 'meta' AND body LIKE "
                     "'{\"checkpoint\"%'").fetchone()[0]
    db.execute("DELETE FROM records WHERE seq = ?", (seq,))


def edit_meter(db: sqlite3.Connection) -> None:
    db.execute("UPDATE meters SET value = value + 700 WHERE name = 'credits' AND seat IN (0, 1)"
               " AND wager = ''")
    db.execute("UPDATE meters SET value = value - 700 WHERE name = 'credits_out' "
               "AND seat IN (0, 1)")


def trigger_ignore(db: sqlite3.Connection) -> None:
    db.execute("CREATE TRIGGER t BEFORE INSERT ON records BEGIN SELECT RAISE(IGNORE); END")


def trigger_on_meters(db: sqlite3.Connection) -> None:
    db.execute("CREATE TRIGGER m AFTER UPDATE ON meters BEGIN "
               "UPDATE meters SET value = 0 WHERE name = 'credits_out'; END")


def view(db: sqlite3.Connection) -> None:
    db.execute("CREATE VIEW v AS SELECT * FROM records")


def index(db: sqlite3.Connection) -> None:
    db.execute("CREATE INDEX extra ON records(hash)")


def table_on_conflict_ignore(db: sqlite3.Connection) -> None:
    """The records table declared again so that a clashing insert vanishes."""
    db.executescript("""
        BEGIN;
        CREATE TABLE r2 (seq INTEGER PRIMARY KEY ON CONFLICT IGNORE, ts_ns INTEGER NOT NULL,
            kind TEXT NOT NULL, code INTEGER, round_no INTEGER, body TEXT NOT NULL,
            txn_last INTEGER NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL);
        INSERT INTO r2 SELECT * FROM records;
        DROP TABLE records;
        ALTER TABLE r2 RENAME TO records;
        CREATE INDEX records_kind ON records(kind, seq);
        CREATE INDEX records_round ON records(round_no, seq);
        COMMIT;""")


def downgrade(db: sqlite3.Connection) -> None:
    """Finding 4: the journal said to be unkeyed, the whole chain recomputed as plain
    SHA-256, the head file rewritten to match."""
    db.execute("UPDATE info SET value = 'sha256' WHERE key = 'chain'")
    db.execute("UPDATE info SET value = '' WHERE key = 'key_id'")
    rechain(db, None)


def forged_head(path: Path, db: sqlite3.Connection) -> None:
    """After a downgrade, the head file as the unkeyed chain would write it."""
    seq, digest = db.execute("SELECT seq, hash FROM records ORDER BY seq DESC").fetchone()
    mac = hashlib.sha256(f"etg-journal-head|{seq}|{digest}".encode()).hexdigest()
    line = f"etgh1 {seq} {digest} {mac}\n".encode().ljust(SLOT, b" ")
    head_path(path).write_bytes(line + line)


TAMPERS: dict[str, Callable[[sqlite3.Connection], None]] = {
    "edit-record": edit_round,
    "edit-rechain-unkeyed": edit_and_rechain_unkeyed,
    "edit-rechain-other-key": edit_and_rechain_other_key,
    "delete-middle-record": delete_middle,
    "delete-renumber-rechain": delete_middle_and_renumber,
    "swap-records": swap,
    "cut-tail": cut_tail,
    "cut-last-record-of-transaction": cut_last_record_of_a_transaction,
    "move-commit-marker": move_commit_marker,
    "remove-checkpoint": remove_checkpoint,
    "edit-meters": edit_meter,
    "trigger-ignore-inserts": trigger_ignore,
    "trigger-on-meters": trigger_on_meters,
    "view": view,
    "index": index,
    "table-on-conflict-ignore": table_on_conflict_ignore,
    "downgrade-unkeyed": downgrade,
}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played_journal(tmp_path_factory.mktemp("played"), rounds=6)


def tampered(played: Path, tmp_path: Path, how: str) -> Path:
    path = copy_journal(played, tmp_path / how)
    db = sqlite3.connect(path, isolation_level=None)
    TAMPERS[how](db)
    if how == "downgrade-unkeyed":
        forged_head(path, db)
    db.close()
    return path


def refused_at_start(path: Path) -> str:
    before = snapshot_files(path)
    with pytest.raises(JournalRefused) as exc:
        open_for_table(path, "", bench=False, prove=start_proof)
    assert snapshot_files(path) == before  # nothing written, not even a power-up
    return str(exc.value)


def audit(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict]:
    code = main(["audit", "verify", "--journal", str(path), "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_an_untouched_journal_verifies_fully_and_starts(played: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    path = copy_journal(played, tmp_path / "ok")
    code, doc = audit(path, capsys)
    assert code == 0 and doc["ok"] and doc["verified"] == "full", doc
    open_for_table(path, "", bench=False, prove=start_proof).close()


@pytest.mark.parametrize("how", sorted(TAMPERS))
def test_every_tamper_is_refused_by_audit_and_start(played: Path, tmp_path: Path, how: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tampered(played, tmp_path, how)
    code, doc = audit(path, capsys)
    assert code == 1 and doc["verified"] == "broken" and doc["problem"], (how, doc)
    why = refused_at_start(path)
    assert "integrity check failed" in why, why


@pytest.mark.parametrize("how", ["trigger-ignore-inserts", "view", "index",
                                 "table-on-conflict-ignore", "trigger-on-meters"])
def test_finding3_a_foreign_schema_object_is_named(played: Path, tmp_path: Path, how: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tampered(played, tmp_path, how)
    _code, doc = audit(path, capsys)
    assert "the journal's schema holds" in doc["problem"]


def test_finding3_a_trigger_planted_while_the_table_runs_is_a_journal_failure(
        tmp_path: Path) -> None:
    """A transfer whose records a trigger made vanish: never "applied, record N"; the
    table stops taking inputs (tilt), nothing is lost silently."""
    ctl = table_on(tmp_path / "j.sqlite")
    play(ctl, 2)
    other = sqlite3.connect(tmp_path / "j.sqlite", isolation_level=None)
    trigger_ignore(other)
    other.close()
    before = ctl.journal.last_seq
    ok, msg = ctl.request("credits-in", {"seat": 1, "cents": 500, "id": "T-1"})
    assert not ok and "trigger" in msg
    assert ctl.failure and ctl.journal.last_seq == before
    assert ctl.transfers.lookup("T-1") is None


def test_finding3_rows_that_do_not_land_are_a_journal_failure(tmp_path: Path) -> None:
    """Even with a schema check cheated (the trigger made before the journal was opened
    and the cookie matching), the read-back of every append finds the missing row."""
    import firmware.journal.landing as landing

    ctl = table_on(tmp_path / "j.sqlite")
    other = sqlite3.connect(tmp_path / "j.sqlite", isolation_level=None)
    trigger_ignore(other)
    other.close()
    cookie = ctl.journal._db.execute("PRAGMA schema_version").fetchone()[0]
    ctl.journal._cookie = cookie  # as if the schema had been verified with the trigger
    original = landing.check_schema_unchanged
    landing.check_schema_unchanged = lambda db, path, c: c  # type: ignore[assignment]
    try:
        ok, msg = ctl.request("credits-in", {"seat": 1, "cents": 500, "id": "T-2"})
    finally:
        landing.check_schema_unchanged = original
    assert not ok and "did not land" in msg and ctl.failure


def _head_then_play_on(tmp_path: Path) -> tuple[Path, bytes, dict]:
    """A journal, a copy of its head file taken after 4 rounds, then 4 more rounds and a
    $7 cash-out; returns the path, the old head and the meters at the copy."""
    path = tmp_path / "j.sqlite"
    ctl = table_on(path)
    play(ctl, 4)
    ctl.journal.sync_head()
    old_head = head_path(path).read_bytes()
    old_meters = ctl.journal.meters()
    old_last = ctl.journal.last_seq
    play(ctl, 4, seed=2)
    ok, msg = ctl.request("credits-out", {"seat": 1, "cents": 700, "id": "OUT-7"})
    assert ok, msg
    ctl.journal.close()
    return path, old_head, {"meters": old_meters, "last": old_last}


def test_finding2_an_old_head_put_back_over_a_longer_journal_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, old_head, _ = _head_then_play_on(tmp_path)
    head_path(path).write_bytes(old_head)
    code, doc = audit(path, capsys)
    assert code == 1 and "more than one transaction after record" in doc["problem"], doc
    assert "more than one transaction" in refused_at_start(path)


def test_finding2_the_database_may_be_one_whole_transaction_ahead(tmp_path: Path) -> None:
    """The one state a power cut leaves (commit done, head not yet written) verifies."""
    path = tmp_path / "j.sqlite"
    ctl = table_on(path)
    play(ctl, 2)
    ctl.journal.sync_head()
    lagging = head_path(path).read_bytes()
    ok, _ = ctl.request("credits-out", {"seat": 1, "cents": 100, "id": "OUT-1"})
    assert ok
    ctl.journal.close()
    head_path(path).write_bytes(lagging)
    open_for_table(path, "", bench=False, prove=start_proof).close()


def test_finding2_a_consistent_rollback_is_beyond_the_box(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    """The old head file put back AND the records after it deleted AND the meters set
    back: every file is an authentic older state, so nothing on the box can tell
    (docs/table.md says so); only a witness off the box can (test_table_witness.py)."""
    path, old_head, at = _head_then_play_on(tmp_path)
    head_path(path).write_bytes(old_head)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DELETE FROM records WHERE seq > ?", (at["last"],))
    db.execute("DELETE FROM meters")
    for (n, s, w), v in at["meters"].items():
        db.execute("INSERT INTO meters VALUES (?, ?, ?, ?)", (n, s, w, v))
    db.close()
    code, _doc = audit(path, capsys)
    assert code == 0  # the documented limit, not a silent pass: see docs/table.md


def test_finding4_keyless_verify_never_claims_what_it_did_not_check(
        played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, path in (("untouched", copy_journal(played, tmp_path / "u")),
                       ("downgraded", tampered(played, tmp_path, "downgrade-unkeyed"))):
        path.with_name(path.name + ".key").unlink()
        code = main(["audit", "verify", "--journal", str(path)])
        out = capsys.readouterr().out
        assert code == 3, (name, out)
        assert out.startswith("PARTIAL") and "ok" not in out.split(":")[0], out
        assert "keyed hash" in out and "head file" in out and "NOT checked" in out
        code, doc = audit(path, capsys)
        assert code == 3 and doc["ok"] is False and doc["verified"] == "partial"
        assert len(doc["unchecked"]) == 2 and "no journal secret" in doc["secret"]


def test_finding4_with_the_secret_a_downgraded_journal_is_named(
        played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tampered(played, tmp_path, "downgrade-unkeyed")
    _code, doc = audit(path, capsys)
    assert "not keyed with this table's secret" in doc["problem"]
    assert "not keyed with this table's secret" in refused_at_start(path)


def test_a_production_table_refuses_an_unkeyed_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    j = Journal(path, key=None)
    j.append_one("meta", {"journal": {"begun": "unkeyed"}})
    j.close()
    from firmware.journal import key as journal_key

    journal_key.create(path.with_name("j.sqlite.key"))
    assert "not keyed with this table's secret" in refused_at_start(path)


def test_a_round_record_that_is_not_the_game_is_refused_even_with_a_valid_chain(
        played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Written with the secret (a bug of the table, as in finding 1): chain, head and
    meters agree, but the engine's replay does not: refused as an integrity failure."""
    path = copy_journal(played, tmp_path / "forged")
    j = Journal(path)
    last = list(j.records(kinds=["round"]))[-1]
    seat = next(iter(last.body["stakes"]))
    body = dict(last.body, returns={**last.body["returns"], seat: {"blackjack": 99_900}},
                final=last.body["final"] + 1)
    from firmware.journal.meters import round_deltas

    # the record's own meters, so that only the replay can tell
    deltas = round_deltas({int(k): v for k, v in body["stakes"].items()},
                          {int(k): v for k, v in body["returns"].items()}, voided=False)
    j.append([Entry("round", body, last.round_no)], deltas)
    j.close()
    code, doc = audit(path, capsys)
    assert code == 1 and "no round ended before it" in doc["problem"], doc
    assert "integrity check failed" in refused_at_start(path)
