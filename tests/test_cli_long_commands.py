"""Long commands say how far they are and about how long is left (on stderr; in a log
only when given ``--progress``), and Ctrl-C ends any of them with one line and exit 130:
no traceback of the command or of a process it started (issue 20, point 6).

Each run is a real ``etg`` process on pipes (not a terminal). An interrupt is sent once
the command reports its first unit of work done (its first progress line): the event,
waited for with a generous deadline, never a sleep. ``killpg`` is what a terminal's
Ctrl-C does (the whole foreground process group); a plain ``kill -INT`` reaches the
command alone.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEADLINE_S = 180.0
SCENARIO = REPO / "tests" / "scenarios" / "blackjack" / "07-double-down-one-card.toml"


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A work directory with a short path: the soak's Unix sockets live under $TMPDIR and
    a socket's path may not be longer than 107 bytes."""
    d = Path(tempfile.mkdtemp(prefix="etg-t"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _etg(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    """``etg argv`` in ``cwd`` (also its $TMPDIR)."""
    env = {**os.environ, "TMPDIR": str(cwd), "SDL_VIDEODRIVER": "dummy",
           "SDL_AUDIODRIVER": "dummy"}
    return subprocess.Popen([sys.executable, "-m", "firmware", *argv], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


#: how every --out says it made its folder (README, "Files a command writes"): not progress
CREATED = "etg: --out: created the folder "


def _first_line(proc: subprocess.Popen[str]) -> str:
    """The first line on stderr after the note of a folder --out created, if any."""
    assert proc.stderr is not None
    while True:
        ready, _, _ = select.select([proc.stderr], [], [], DEADLINE_S)
        assert ready, "no progress line on stderr"
        line = proc.stderr.readline()
        if not line.startswith(CREATED):
            return line


def _descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid`` (children in their own sessions too), with its command
    line."""
    parents: dict[int, int] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    below, todo = {}, [pid]
    while todo:
        p = todo.pop()
        for child, parent in parents.items():
            if parent == p and child not in below:
                below[child] = _cmdline(child)
                todo.append(child)
    return below


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _still_running(procs: dict[int, str]) -> list[str]:
    """Those of ``procs`` still running (the same command line under the same pid)."""
    return [cmd for pid, cmd in procs.items() if cmd and _cmdline(pid) == cmd]


def interrupted(argv: list[str], cwd: Path, label: str, *, group: bool = False
                ) -> tuple[str, str]:
    """Run ``etg argv``, interrupt it at its first progress line (which must start with
    ``label``); check exit 130 and one line, and that every process it had started is
    gone; return (that line, stdout)."""
    proc = _etg([*argv, "--progress"], cwd)
    try:
        first = _first_line(proc)
        assert first.startswith(label) and "elapsed" in first, first
        started = _descendants(proc.pid)
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=DEADLINE_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    # the interrupt's one line; a progress line the run printed meanwhile is allowed
    lines = [x for x in err.splitlines() if not x.startswith((label, CREATED))]
    assert lines == ["etg: interrupted"], err
    assert _still_running(started) == []
    return first, out


def test_rng_draws_of_shuffles_interrupted(tmp_path: Path) -> None:
    interrupted(["rng", "draws", "--what", "shuffle", "--draws", "1e7", "--decks", "8",
                 "--seed", "01", "--out", str(tmp_path / "s.csv")], tmp_path, "rng draws")


def test_rtp_on_a_local_cluster_interrupted_at_the_terminal(tmp_path: Path) -> None:
    """Ctrl-C reaches the Dask workers too: none of them prints a traceback."""
    first, _ = interrupted(["rtp", "--variant", "blackjack", "--rounds", "1e8", "--jobs",
                            "2", "--seed", "5"], tmp_path, "rtp", group=True)
    assert "rounds" in first and "left" in first


def test_par_sheet_simulation_interrupted(tmp_path: Path) -> None:
    interrupted(["par", "--variant", "blackjack", "--set", "decks=0", "--out",
                 str(tmp_path / "par"), "--sim-rounds", "1e9"], tmp_path,
                "par")  # the analysis' stages ("par blackjack, strategy: ...") come first


@pytest.mark.slow
def test_cert_run_on_a_local_cluster_interrupted_at_the_terminal(tmp_path: Path) -> None:
    """The workers are busy with long tasks: nothing of Dask's about killing them."""
    interrupted(["cert", "run", "--draws", "1e8", "--shoes", "10", "--stream-bytes",
                 "1024", "--seed", "77", "--dieharder", "none", "--jobs", "2", "--out",
                 str(tmp_path / "cert")], tmp_path, "cert run: draws and shuffles",
                group=True)


@pytest.mark.slow
def test_bench_soak_progress_json_and_interrupt(short_tmp: Path) -> None:
    tmp_path = short_tmp
    done = _etg(["bench", "soak", "--variant", "blackjack", "--rounds", "3", "--faults", "0",
                 "--json", "--progress"], tmp_path)
    out, err = done.communicate(timeout=DEADLINE_S)
    assert done.returncode == 0, err
    doc = json.loads(out)
    assert doc["ok"] is True and doc["rounds"] >= 3 and len(doc["checks"]) == 7
    assert err.splitlines()[-1].startswith("bench soak blackjack: 3/3 rounds (100%)"), err
    run = tmp_path / "run"
    run.mkdir()
    interrupted(["bench", "soak", "--variant", "blackjack", "--rounds", "100000"], run,
                "bench soak blackjack", group=True)  # the shoe simulator and table stopped


@pytest.mark.slow
def test_bench_hil_progress_json_and_interrupt(short_tmp: Path) -> None:
    tmp_path = short_tmp
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nvariant = "blackjack"\n[[round]]\nshoe = ["ZZ"]\n',
                   encoding="utf-8")
    done = _etg(["bench", "run", "--mode", "hil", str(SCENARIO), str(bad), "--json",
                 "--progress"], tmp_path)
    out, err = done.communicate(timeout=DEADLINE_S)
    assert done.returncode == 1, err
    doc = json.loads(out)
    assert (doc["mode"], doc["passed"], doc["failed"]) == ("hil", 1, 1)
    assert [r["passed"] for r in doc["results"]] == [True, False]
    assert "2/2 scenarios (100%)" in err.splitlines()[-1], err
    run = tmp_path / "run"
    run.mkdir()
    _, out = interrupted(["bench", "run", "--mode", "hil", str(REPO / "tests" / "scenarios")],
                         run, "bench run (hil)", group=True)
    assert out.startswith("PASS ") or out.startswith("FAIL ")  # a file's line came first


def _session(sid: int) -> dict[int, str]:
    """Every process of session ``sid`` (the command and all it started, reparented or
    not), with its command line."""
    found = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[4]) == sid:
            found[int(entry)] = _cmdline(int(entry))
    return found


def _wait_until(what: str, check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {DEADLINE_S} s"
        time.sleep(0.02)


def interrupted_while_the_cluster_starts(argv: list[str], cwd: Path) -> str:
    """Run ``etg argv`` on the local cluster and press Ctrl-C (SIGINT to the whole
    process group, as a terminal does) the moment its first Dask worker process has been
    spawned, i.e. while ``LocalCluster`` is still starting; check exit 130, the one line,
    and that nothing of the session is left. Returns stderr."""
    proc = _etg([*argv, "--progress"], cwd)
    try:
        _wait_until("a Dask worker process spawned", lambda: proc.poll() is not None or any(
            "spawn_main" in cmd for cmd in _descendants(proc.pid).values()))
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=DEADLINE_S)
        _wait_until("every process of the run gone", lambda: not _session(proc.pid))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert [x for x in err.splitlines()
            if "elapsed" not in x and not x.startswith(CREATED)] == ["etg: interrupted"], err
    return err


def test_rtp_fast_interrupted_while_the_local_cluster_starts(tmp_path: Path) -> None:
    """Ctrl-C in the cluster's first seconds is not lost (the workers start with SIGINT
    blocked; this process acts on it once the cluster can be closed)."""
    interrupted_while_the_cluster_starts(
        ["rtp", "--variant", "blackjack", "--fast", "--rounds", "1e10", "--jobs", "2",
         "--seed", "5"], tmp_path)


def test_cert_run_interrupted_while_the_local_cluster_starts(tmp_path: Path) -> None:
    interrupted_while_the_cluster_starts(
        ["cert", "run", "--draws", "1e8", "--scaling", "batch", "--shoes", "10",
         "--stream-bytes", "1024", "--seed", "77", "--dieharder", "none", "--jobs", "2",
         "--out", str(tmp_path / "cert")], tmp_path)


def test_rtp_fast_interrupted_mid_run_leaves_no_process(tmp_path: Path) -> None:
    """Ctrl-C once tasks are running (the first progress line): the same one line."""
    interrupted(["rtp", "--variant", "blackjack", "--fast", "--rounds", "1e10", "--jobs",
                 "2", "--seed", "5"], tmp_path, "rtp", group=True)
