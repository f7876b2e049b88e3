"""Waiting in the tests: for an event, never for a length of time.

A test that sleeps and then checks passes or fails with the load of the machine: two
suites side by side, a slow disk, a busy neighbour. These helpers wait for the thing the
test is about (a condition, a line of output, a process's exit) with a deadline that is
generous because it only matters when the test is failing anyway. A check that something
does NOT happen waits for a later positive event that proves the system has gone past
the point (an answer to a query sent afterwards), never for a quiet interval.

The top-level ``conftest.py`` puts this directory on ``sys.path``: ``from waiting import``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

#: How long any test waits for something that should happen: far more than it takes on a
#: quiet machine (milliseconds to seconds), enough for a machine running two suites.
DEADLINE_S = 60.0

T = TypeVar("T")


def wait_for(what: str, pred: Callable[[], T], timeout: float = DEADLINE_S,
             every: float = 0.02) -> T:
    """Poll ``pred`` until it returns something true and return that; fail naming
    ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


def stop_process(proc: subprocess.Popen[Any], sig: int = signal.SIGTERM,
                 grace: float = DEADLINE_S) -> int:
    """Stop ``proc`` with ``sig`` (if it still runs), wait up to ``grace`` seconds, then
    kill it: a test never leaves its process behind, whatever happened. The exit code."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
    return proc.wait()


@contextlib.contextmanager
def stopped_at_exit(proc: subprocess.Popen[Any], sig: int = signal.SIGTERM,
                    grace: float = DEADLINE_S) -> Iterator[subprocess.Popen[Any]]:
    """``with stopped_at_exit(Popen(...)) as proc:`` — :func:`stop_process` on the way out,
    also when the test fails or times out inside."""
    try:
        yield proc
    finally:
        stop_process(proc, sig, grace)


class Lines:
    """Every line of a text pipe, read by a thread (a child that writes a lot never
    blocks on a full pipe), and a way to wait for one of them."""

    def __init__(self, pipe: IO[str]) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self._thread.start()

    def _read(self, pipe: IO[str]) -> None:
        try:
            for line in pipe:
                with self._changed:
                    self.lines.append(line.rstrip("\n"))
                    self._changed.notify_all()
        except (OSError, ValueError):
            pass  # the pipe was closed under us: the process is gone
        finally:
            with self._changed:
                self._closed = True
                self._changed.notify_all()

    def wait_for(self, what: str, pred: Callable[[str], bool], start: int = 0,
                 timeout: float = DEADLINE_S) -> int:
        """The index of the first line from ``start`` on that satisfies ``pred``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for i in range(start, len(self.lines)):
                    if pred(self.lines[i]):
                        return i
                start = max(start, len(self.lines))
                left = deadline - time.monotonic()
                if self._closed or left <= 0:
                    why = "the output ended" if self._closed else f"{timeout:g} s passed"
                    tail = "\n".join(self.lines[-20:])
                    raise AssertionError(f"{why} before {what}; last lines:\n{tail}")
                self._changed.wait(left)

    def wait_closed(self, timeout: float = DEADLINE_S) -> str:
        """Wait for the end of the output (the process closed the pipe); all of it."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the output did not end within {timeout:g} s")
                self._changed.wait(left)
        return self.text()

    def text(self) -> str:
        with self._changed:
            return "\n".join(self.lines)


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def child_ends_with_killed_parent(script: str, pid_file: Path, cwd: Path,
                                  what: str = "the child") -> None:
    """Run ``script`` (Python) as a parent that starts a child and writes its pid to
    ``pid_file``; kill the parent with SIGKILL; wait for the child to end. A child still
    alive at the deadline fails the test, and is killed."""
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=cwd)
    child = 0
    try:
        wait_for(f"{what} to start", lambda: parent.poll() is None and pid_file.exists()
                 and pid_file.read_text())
        child = int(pid_file.read_text())
        assert _alive(child), f"{what} is not running"
        parent.send_signal(signal.SIGKILL)
        parent.wait(DEADLINE_S)
        wait_for(f"{what} to end with its killed parent", lambda: not _alive(child))
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child and _alive(child):
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
