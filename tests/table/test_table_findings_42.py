"""Issue 42's findings, each reproduced as the outside audit did it, through the journal's
and the table's public entry points. Each of these failed on bc5b817."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from journal_rig import copy_journal, play, played_journal, table_on
from table_helpers import FakeRng

from firmware.cli import main


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
