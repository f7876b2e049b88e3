"""Issue 46, red-team finding s46-2: a symlink, a FIFO or a directory in place of the take
marks (``JOURNAL.sas-taken``), or a file of another user or mode, switched the marks off
for the whole run with one warning line: nothing journaled, nothing refused, and a
kill -9 could offer a taken exception again. The marks file is now opened without
following links and without blocking, checked on the opened descriptor (a regular file
with one link, the table's user's, mode 0600), and anything else refuses the link's
start: one line and exit 2 at ``etg run``, event 1105 in the journal."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from table_process import REPO

from drivers.sas.ports import PtyPort
from drivers.sas.settings import SasSettings
from firmware.engine import load_rules
from firmware.journal import EventCode, Journal
from firmware.table.controller import Controller
from firmware.table.floor_gate import FloorGate
from firmware.table.recovery import open_table
from firmware.table.sas.service import start_sas
from firmware.table.sas.takes import MarksRefused, marks_path, open_own_file


def _start(path: Path) -> None:
    """The link's start on a journal at ``path`` (stopped again when it starts)."""
    journal = Journal(path)
    try:
        journal.append_one("event", {"mode": "bench"}, code=int(EventCode.POWER_UP))
        ctl = Controller(open_table(journal, load_rules("blackjack", {}), 2, True).game,
                         journal)
        ctl.floor_gate = FloorGate.from_journal(journal)
        port = PtyPort()
        try:
            svc = start_sas(SasSettings(addresses=(1, 2), layout="thread"), ctl, port=port)
        except BaseException:
            port.close()
            raise
        svc.stop()
        port.close()
    finally:
        journal.close()


def _refusals(path: Path) -> list[str]:
    j = Journal(path, readonly=True)
    try:
        return [str(r.body["reason"]) for r in j.records(kinds=["event"])
                if r.code == int(EventCode.SAS_MARKS_REFUSED)]
    finally:
        j.close()


def _symlink(m: Path, victim: Path) -> None:
    m.symlink_to(victim)


def _dangling(m: Path, victim: Path) -> None:
    m.symlink_to(victim.with_name("nothing-here"))


def _fifo(m: Path, victim: Path) -> None:
    os.mkfifo(m, 0o600)


def _directory(m: Path, victim: Path) -> None:
    m.mkdir(mode=0o700)


def _socket(m: Path, victim: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(m))
    s.close()


def _char_device(m: Path, victim: Path) -> None:
    os.mknod(m, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # /dev/null's numbers


def _hard_link(m: Path, victim: Path) -> None:
    os.chmod(victim, 0o600)
    os.link(victim, m)


def _other_owner(m: Path, victim: Path) -> None:
    m.write_bytes(b"")
    os.chmod(m, 0o600)
    os.chown(m, os.geteuid() + 4242, -1)


def _mode(mode: int) -> Callable[[Path, Path], None]:
    def put(m: Path, victim: Path) -> None:
        m.write_bytes(b"")
        os.chmod(m, mode)
    return put


SHAPES: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "symlink": (_symlink, "symbolic link"),
    "dangling symlink": (_dangling, "symbolic link"),
    "fifo": (_fifo, "FIFO"),
    "directory": (_directory, "directory"),
    "socket": (_socket, "socket"),
    "character device": (_char_device, "character device"),
    "hard link": (_hard_link, "2 hard links"),
    "other owner": (_other_owner, "belongs to uid"),
    "mode 0644": (_mode(0o644), "mode is 0644"),
    "mode 0666": (_mode(0o666), "mode is 0666"),
    "mode 0400": (_mode(0o400), "mode is 0400"),
    "mode 4600": (_mode(0o4600), "mode is 4600"),
}


def _needs_root(name: str) -> None:
    if name in ("other owner", "character device") and os.geteuid() != 0:
        pytest.skip("making this shape needs root")


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_finding_s46_2_a_marks_path_that_is_not_our_file_refuses_the_link(
        tmp_path: Path, name: str) -> None:
    _needs_root(name)
    path = tmp_path / "j.sqlite"
    _start(path)  # a journal and its own marks file
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep me\n")
    before = victim.stat()
    m = marks_path(path)
    m.unlink()
    make, said = SHAPES[name]
    make(m, victim)
    t0 = time.monotonic()
    with pytest.raises(MarksRefused) as got:
        _start(path)
    assert time.monotonic() - t0 < 10  # a FIFO or a device never blocks the start
    msg = str(got.value)
    assert "\n" not in msg and said in msg and str(m) in msg and "Remove it" in msg
    assert _refusals(path) == [msg]  # journaled: the audit shows why the link is down
    after = victim.stat()  # nothing written through a link
    assert victim.read_bytes() == b"keep me\n"
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)
    # the technician's remedy, as the message says: removed, the next start makes it anew
    if m.is_dir() and not m.is_symlink():
        m.rmdir()
    else:
        m.unlink()
    _start(path)
    st = m.lstat()
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
    assert len(_refusals(path)) == 1


def test_a_fresh_marks_file_is_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o277)  # would make 0400: the table's own file must still be writable
    try:
        fd = open_own_file(tmp_path / "m")
    finally:
        os.umask(old)
    st = os.fstat(fd)
    os.close(fd)
    assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.geteuid()


def test_the_checks_are_on_the_opened_file_not_the_name(tmp_path: Path) -> None:
    """A path swapped between a regular file of ours and a link to a victim as fast as a
    thread can: every open either refuses or holds our regular file, never the victim."""
    m = tmp_path / "m"
    ours, victim = tmp_path / "ours", tmp_path / "victim"
    victim.write_bytes(b"v")
    os.chmod(victim, 0o600)
    vino = victim.stat().st_ino
    stop = threading.Event()

    def swap() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            tmp = tmp_path / f"t{n % 2}"
            if n % 2:
                with open(tmp, "wb"):
                    pass
                os.chmod(tmp, 0o600)
            else:
                tmp.symlink_to(victim)
            os.replace(tmp, m)

    t = threading.Thread(target=swap, daemon=True)
    t.start()
    opened = refused = 0
    try:
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            try:
                fd = open_own_file(m)
            except MarksRefused:
                refused += 1
                continue
            st = os.fstat(fd)
            os.close(fd)
            assert stat.S_ISREG(st.st_mode) and st.st_ino != vino and st.st_nlink <= 1
            opened += 1
    finally:
        stop.set()
        t.join(5)
    assert ours.exists() is False and victim.read_bytes() == b"v"
    assert opened and refused  # both happened: the race was real


def test_etg_run_refuses_in_one_line_exit_2(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    _start(journal)
    m = marks_path(journal)
    m.unlink()
    os.mkfifo(m, 0o600)
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    env.pop("DISPLAY", None)
    out = subprocess.run(
        [sys.executable, "-m", "firmware", "run", "--headless", "--seats", "2", "--quiet",
         "--rounds", "1", "--journal", str(journal), "--set", "sas.port=pty"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    errors = [line for line in out.stderr.splitlines() if line.startswith("etg: error:")]
    assert len(errors) == 1 and "FIFO" in errors[0] and "Traceback" not in out.stderr
    assert len(_refusals(journal)) == 1
    j = Journal(journal, readonly=True)
    try:
        downs = [str(r.body.get("reason")) for r in j.records(kinds=["event"])
                 if r.code == int(EventCode.POWER_DOWN)]
    finally:
        j.close()
    assert downs[-1].startswith("refused at the start: SAS: the take marks")
