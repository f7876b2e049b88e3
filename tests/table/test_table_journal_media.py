"""Critical memory and its media (issue 18, points 3 and 4).

Point 3: a missing, empty or unreadable journal in production is a fault, and a new
journal is a technician's logged action (`etg journal init --reason`); bench mode creates
one freely. Point 4: journal files are private whatever the umask; the read-only commands
create and change nothing and work on a read-only copy; a read-only file system, a parent
that is a file and a full disk at start are one line and exit 2.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from firmware.journal import Journal
from firmware.journal.key import create as create_key

REPO = Path(__file__).resolve().parents[2]
PROD = ("--set", "table.mode=production", "--set", "shoe.port=/dev/null", "--set",
        "panel.backend=gpio")


def etg(*args: str, pre: str = "") -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "firmware", *args]
    if pre:  # run inside a private mount namespace (read-only or full media)
        cmd = ["unshare", "-m", "sh", "-c", pre + ' && exec "$@"', "sh", *cmd]
    # a stand-in RPi.GPIO: `etg run` checks its gpio panel can be opened before the journal
    # (issue 38); these starts stop at the journal, before any pin
    stand_ins = str(REPO / "tests" / "stand_ins")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy",
               PYTHONPATH=os.pathsep.join([stand_ins, os.environ.get("PYTHONPATH", "")]))
    env.pop("DISPLAY", None)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=REPO, env=env)


def one_line_exit_2(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 2, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in lines[0], out.stderr
    return lines[0]


def listing(d: Path) -> dict[str, bytes]:
    """Every file's content (the empty lock file of a table process aside)."""
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())
            if p.is_file() and p.suffix != ".lock"}


@pytest.mark.parametrize("state", ["missing", "empty", "unreadable"])
def test_point3_production_refuses_a_missing_empty_or_unreadable_journal(
        tmp_path: Path, state: str) -> None:
    j = tmp_path / "j.sqlite"
    create_key(tmp_path / "j.sqlite.key")
    if state == "empty":
        j.write_bytes(b"")
    elif state == "unreadable":
        j.write_bytes(b"this is not a journal" * 100)
    before = listing(tmp_path)
    line = one_line_exit_2(etg(*PROD, "run", "--headless", "--journal", str(j)))
    assert "journal" in line
    assert listing(tmp_path) == before  # nothing created, nothing written


def test_point3_a_new_journal_is_a_logged_technician_action(tmp_path: Path) -> None:
    j = tmp_path / "j.sqlite"
    create_key(tmp_path / "j.sqlite.key")
    out = etg(*PROD, "journal", "init", "--reason", "new SD card, ticket 4711",
              "--journal", str(j))
    assert out.returncode == 0, out.stderr
    first = next(Journal(j, readonly=True).records())
    assert first.kind == "meta" and first.body["journal"]["begun"] == "new SD card, ticket 4711"
    assert first.body["journal"]["user"]
    again = etg(*PROD, "journal", "init", "--reason", "again", "--journal", str(j))
    assert again.returncode == 2 and "--archive" in again.stderr
    moved = etg(*PROD, "journal", "init", "--reason", "again", "--archive", "--journal", str(j))
    assert moved.returncode == 0, moved.stderr
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("j.sqlite.2")]
    assert kept, "the old journal is kept aside, never deleted"


def test_point3_bench_mode_creates_its_journal_and_secret_freely(tmp_path: Path) -> None:
    j = tmp_path / "new" / "j.sqlite"
    out = etg("credits", "add", "--seat", "1", "--cents", "100", "--journal", str(j))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "new" / "j.sqlite.key").exists()
    assert Journal(j, readonly=True).verify().ok


def test_point4_journal_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        j = Journal(tmp_path / "j.sqlite")
        j.append_one("event", {"x": 1}, code=100)
        names = ["j.sqlite", "j.sqlite-wal", "j.sqlite-shm", "j.sqlite.head", "j.sqlite.key"]
        for name in names:
            mode = (tmp_path / name).stat().st_mode & 0o777
            assert mode & 0o037 == 0, f"{name} is {mode:o}"
        j.close()
        (tmp_path / "j.sqlite").chmod(0o666)
        Journal(tmp_path / "j.sqlite").close()
        assert (tmp_path / "j.sqlite").stat().st_mode & 0o077 == 0
    finally:
        os.umask(old)


READERS = [("recall",), ("meters",), ("events",), ("audit", "verify")]


@pytest.mark.parametrize("cmd", READERS)
def test_point4_read_only_commands_create_and_change_nothing(tmp_path: Path,
                                                             cmd: tuple[str, ...]) -> None:
    j = tmp_path / "j.sqlite"
    assert etg("credits", "add", "--seat", "1", "--cents", "100", "--journal",
               str(j)).returncode == 0
    before = listing(tmp_path)
    out = etg(*cmd, "--journal", str(j))
    assert out.returncode == 0, out.stderr
    assert listing(tmp_path) == before
    missing = tmp_path / "typo.sqlite"
    one_line_exit_2(etg(*cmd, "--journal", str(missing)))
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    one_line_exit_2(etg(*cmd, "--journal", str(empty)))
    assert not missing.exists() and empty.stat().st_size == 0


def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


needs_mounts = pytest.mark.skipif(not _can_unshare(),
                                  reason="needs a private mount namespace (unshare -m, root)")


@needs_mounts
def test_point4_read_only_commands_work_on_a_read_only_copy(tmp_path: Path) -> None:
    """The evidence copied off the table, with its write-ahead log, on read-only media."""
    src = tmp_path / "table"
    j = src / "j.sqlite"
    assert etg("credits", "add", "--seat", "1", "--cents", "100", "--journal",
               str(j)).returncode == 0
    live = Journal(j)  # a table writing: records only in the log
    # an event that moves no meter: a reader reads only a journal that proves (issue 42)
    live.append_one("event", {"seat": 1, "cents": 5}, code=101)
    copy = tmp_path / "copy"
    shutil.copytree(src, copy)
    live.close()
    (copy / "j.sqlite-shm").unlink()  # copied without the index, as tools often do
    ro = f"mount --bind {copy} {copy} && mount -o remount,bind,ro {copy}"
    for cmd in READERS:
        out = etg(*cmd, "--journal", str(copy / "j.sqlite"), pre=ro)
        assert out.returncode == 0, out.stderr
        assert "internal error" not in out.stderr
    ev = etg("events", "--json", "--journal", str(copy / "j.sqlite"), pre=ro)
    assert '"cents": 5' in ev.stdout  # the record only the log held was read


@needs_mounts
def test_point4_read_only_file_system_at_start_is_one_line(tmp_path: Path) -> None:
    d = tmp_path / "ro"
    d.mkdir()
    line = one_line_exit_2(etg("run", "--headless", "--rounds", "1", "--journal",
                               str(d / "j.sqlite"),
                               pre=f"mount --bind {d} {d} && mount -o remount,bind,ro {d}"))
    assert "Read-only file system" in line


def test_point4_a_parent_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    line = one_line_exit_2(etg("run", "--headless", "--rounds", "1", "--journal",
                               str(f / "j.sqlite")))
    assert "not a directory" in line.lower()


@needs_mounts
def test_point4_a_full_disk_at_start_is_one_line(tmp_path: Path) -> None:
    d = tmp_path / "full"
    d.mkdir()
    fill = f"mount -t tmpfs -o size=256k tmpfs {d} && (cat /dev/zero > {d}/fill 2>/dev/null; true)"
    line = one_line_exit_2(etg("run", "--headless", "--rounds", "1", "--journal",
                               str(d / "j.sqlite"), pre=fill))
    assert "full" in line.lower() or "space" in line.lower()


def test_point1_a_refused_start_is_on_the_screen_too(tmp_path: Path, monkeypatch: Any) -> None:
    """With a display the refusal is shown on the table's failure screen (until the table
    is stopped), not only on stderr and in the system log."""
    from firmware.config import load_config
    from firmware.engine import load_rules
    from firmware.table.service import ui_bridge

    shown: list[dict[str, Any]] = []

    def run_window(self: Any) -> None:
        _, messages = self._inbox.take()
        shown.extend(messages)

    monkeypatch.setattr(ui_bridge, "display_available", lambda: True)
    monkeypatch.setattr(ui_bridge.UiBridge, "run_window", run_window)
    cfg = load_config(None, ["display.enabled=true"])
    ui_bridge.show_refusal(cfg, load_rules("blackjack", {}), "j.sqlite: journal integrity "
                           "check failed", headless=False)
    assert shown == [{"kind": "failure", "failure": {
        "kind": "journal", "message": "j.sqlite: journal integrity check failed"}}]
