"""Issue 34's findings 2 to 5, each reproduced as the audit did it, with nothing but the
journal's and the table's public entry points (finding 1: test_table_meters.py). Each of
these failed on the code the audit examined; tests/table/test_table_journal_evidence.py
has the whole tamper matrix."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from firmware.bench.engine_player import EnginePlayer
from firmware.cli import main
from firmware.engine import load_rules
from firmware.engine.inputs import CreditsIn, Input
from firmware.journal import Journal
from firmware.journal.head import head_path
from firmware.journal.lock import JournalLock
from firmware.journal.opening import JournalRefused, open_for_table
from firmware.table.controller import Controller
from firmware.table.recovery import open_table


def _table(path: Path) -> Controller:
    journal = Journal(path)
    rec = open_table(journal, load_rules("blackjack", {}), 2, True)
    return Controller(rec.game, journal, finals_recorded=rec.finals_recorded,
                      round_first_seq=rec.round_first_seq)


def _play(ctl: Controller, rounds: int, seed: int) -> None:
    def apply(inp: Input) -> None:
        if isinstance(inp, CreditsIn):
            assert ctl.request("credits-in", {"seat": inp.seat, "cents": inp.amount})[0]
        else:
            assert ctl.take(inp, "bench")

    player = EnginePlayer(ctl.game, seats=(1, 2), seed=seed, apply=apply)
    if ctl.game.shoe.in_play:
        player._new_shoe()
    player.play(rounds)


def _starts(path: Path) -> bool:
    try:
        open_for_table(path, "", bench=False).close()
    except JournalRefused:
        return False
    return True


def test_finding2_an_old_head_file_put_back_is_refused(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """Keep a copy of the head, play on, cash out $7, put the old head back."""
    path = tmp_path / "j.sqlite"
    ctl = _table(path)
    _play(ctl, 4, 1)
    ctl.journal.sync_head()
    old_head = head_path(path).read_bytes()
    _play(ctl, 4, 2)
    assert ctl.request("credits-out", {"seat": 1, "cents": 700, "id": "OUT-7"})[0]
    ctl.journal.close()
    head_path(path).write_bytes(old_head)
    assert main(["audit", "verify", "--journal", str(path)]) == 1
    assert "BROKEN" in capsys.readouterr().out
    assert not _starts(path)


def test_finding3_a_planted_trigger_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    ctl = _table(path)
    _play(ctl, 2, 1)
    ctl.journal.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TRIGGER t BEFORE INSERT ON records BEGIN SELECT RAISE(IGNORE); END")
    db.close()
    assert main(["audit", "verify", "--journal", str(path)]) == 1
    assert not _starts(path)


def test_finding3_records_a_trigger_swallows_are_never_applied_silently(tmp_path: Path
                                                                        ) -> None:
    """The trigger planted while the table runs: the attendant must not be told
    "applied" for a transfer whose records vanished."""
    path = tmp_path / "j.sqlite"
    ctl = _table(path)
    _play(ctl, 2, 1)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TRIGGER t BEFORE INSERT ON records BEGIN SELECT RAISE(IGNORE); END")
    db.close()
    ok, _msg = ctl.request("credits-in", {"seat": 1, "cents": 500, "id": "IN-1"})
    assert not ok and ctl.failure
    ctl.journal.close()


def test_finding4_keyless_verify_does_not_pass_an_unkeyed_chain(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A journal that says it is unkeyed, with a valid plain SHA-256 chain and head:
    exactly what a downgrade produces. Without the secret nothing can be proven."""
    path = tmp_path / "j.sqlite"
    j = Journal(path, key=None)
    for i in range(5):
        j.append_one("event", {"i": i}, code=100)
    j.close()
    code = main(["audit", "verify", "--journal", str(path)])
    out = capsys.readouterr().out
    assert code != 0 and not out.startswith("ok"), out
    assert "keyed chain and head intact" not in out


def test_finding5_a_lock_file_found_0666_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    lock = path.with_name("j.sqlite.lock")
    lock.touch()
    os.chmod(lock, 0o666)
    JournalLock(path).release()
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600


def test_finding5_a_bench_start_never_makes_a_secret_beside_a_journal_without_one(
        tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    ctl = _table(path)
    _play(ctl, 1, 1)
    ctl.journal.close()
    key = path.with_name("j.sqlite.key")
    key.unlink()
    with pytest.raises(JournalRefused):
        open_for_table(path, "", bench=True).close()
    assert not key.exists()


def test_finding5_keyless_verify_of_an_untouched_journal_says_what_it_did_not_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    ctl = _table(path)
    _play(ctl, 2, 1)
    ctl.journal.close()
    path.with_name("j.sqlite.key").unlink()
    code = main(["audit", "verify", "--journal", str(path)])
    out = capsys.readouterr().out
    assert code == 3 and out.startswith("PARTIAL"), out
    assert "NOT checked" in out and "BROKEN" not in out
