"""A bench killed mid-run leaves no table behind (docs/bench.md): the table it started
gets SIGTERM when the bench dies. A table left running would hold its pseudo-terminal,
and the kernel gives that pty's number to the next one, which then reads "busy"."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from waiting import DEADLINE_S, Lines, stopped_at_exit, wait_for

BENCH = textwrap.dedent("""
    import sys, time
    from firmware.bench.hil_service import ServiceProcess
    svc = ServiceProcess({"table": {"variant": "blackjack", "seats": 1},
                          "shoe": {"port": "sim"}, "panel": {"backend": "sim"}}, seats=1,
                         workdir=sys.argv[1])
    svc.start()
    print(svc.proc.pid, flush=True)
    time.sleep(600)
""")


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_killed_bench_takes_its_table_with_it(tmp_path) -> None:
    bench = subprocess.Popen([sys.executable, "-c", BENCH, str(tmp_path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONUNBUFFERED": "1"})
    with stopped_at_exit(bench, signal.SIGKILL):
        assert bench.stdout is not None
        out = Lines(bench.stdout)
        try:
            table = int(out.lines[out.wait_for("the table's pid", str.isdigit)])
        except AssertionError:
            bench.kill()
            assert bench.stderr is not None
            raise AssertionError(
                f"the bench did not start its table: {bench.stderr.read()}") from None
        assert _running(table)
        bench.kill()  # kill -9: no cleanup of its own runs
        bench.wait(DEADLINE_S)
        try:
            wait_for("the orphaned table to stop", lambda: not _running(table),
                     timeout=DEADLINE_S)
        finally:
            if _running(table):
                os.kill(table, signal.SIGKILL)
