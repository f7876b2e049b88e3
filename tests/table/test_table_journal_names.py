"""Issue 42, red team r42 F1 and F3: the journal's lock, write-ahead log and shared memory
are all named from the path, so a second name for the same file (a hard link, the file
renamed under a holder, or the lock file deleted) let a second writer prove and pay beside
the first: one transfer id paid twice, the journal showing it once. The lock is now also
taken on the journal file's own inode, and a file with more than one name is refused."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.journal.lock import JournalLock


def _etg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "firmware", *args], capture_output=True,
                          text=True, timeout=300)


def _twin(path: Path, name: str) -> Path:
    """The bench files that go with a journal, copied for a second name of it."""
    other = path.with_name(name)
    for suffix in (".head", ".key"):
        src = Path(f"{path}{suffix}")
        if src.exists():
            shutil.copy2(src, f"{other}{suffix}")
    return other


def _cash_outs(path: Path, tid: str) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return sum(tid in str(body) for (body,) in
                   db.execute("SELECT body FROM records WHERE code = 801"))
    finally:
        db.close()


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "j.sqlite"
    run = _etg("run", "--headless", "--auto-play", "--quiet", "--rounds", "2",
               "--pace", "0.01", "--journal", str(path))
    assert run.returncode == 0, run.stderr
    return path


def test_finding_r42_1_a_hard_link_to_the_journal_is_refused(journal: Path) -> None:
    link = _twin(journal, "j2.sqlite")
    os.link(journal, link)
    for name in (link, journal):  # either name: the file has two
        out = _etg("credits", "out", "--seat", "1", "--cents", "100", "--id", "H-2",
                   "--journal", str(name))
        assert out.returncode == 2, out
        assert "hard links" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert _cash_outs(journal, "H-2") == 0
    link.unlink()
    out = _etg("credits", "out", "--seat", "1", "--cents", "100", "--id", "H-2",
               "--journal", str(journal))
    assert out.returncode == 0, out.stderr
    assert _cash_outs(journal, "H-2") == 1


def test_finding_r42_3_a_holder_keeps_its_journal_whatever_it_is_called(
        journal: Path) -> None:
    """A process holding the journal (as a running table does): its lock file deleted, or
    the journal renamed under it, lets no second writer in."""
    held = JournalLock(journal)
    try:
        Path(f"{journal}.lock").unlink()
        out = _etg("credits", "out", "--seat", "1", "--cents", "100", "--id", "H-3",
                   "--journal", str(journal))
        assert out.returncode != 0, out
        moved = _twin(journal, "j3.sqlite")
        os.rename(journal, moved)
        out = _etg("credits", "out", "--seat", "1", "--cents", "100", "--id", "H-3",
                   "--journal", str(moved))
        assert out.returncode != 0, out
        assert "another name" in out.stderr or "running" in out.stderr, out.stderr
        assert _cash_outs(moved, "H-3") == 0
    finally:
        held.release()
