"""After a start on a long journal: what the start did not prove, proven beside the table.

A start proves the journal from its last checkpoint (firmware.journal.checkpoint): the
keyed chain, the commit markers, the head, the meters and the engine replay from there to
the end — everything the table's state and meters rest on — so it stays fast however long
the journal. The records before that checkpoint (the table's history: recall of old
rounds, old events) are proven here, right after the start, by ``etg audit verify --until
SEQ`` in a child process at the lowest CPU priority, while the table plays: a separate
process, so the table's own threads never wait for it.

If that proof fails, the table stops taking inputs (a journal failure: on the screen and
in the system log, as a refused start would be) and plays no more on this journal; its
power-up records, written before the failure was known, stay in it. The child is ended
when the table stops. Only a journal with rounds before its last checkpoint needs it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from firmware.journal import Journal
from firmware.journal import key as journal_key
from firmware.journal.opening import system_log
from firmware.table.controller import Controller
from firmware.table.happenings import RequestHappening

log = logging.getLogger("etg.table.audit")


def needed(journal: Journal) -> int | None:
    """The checkpoint the start's proof began at, when rounds lie before it; else None."""
    until = journal.proven_from
    if until <= 1:
        return None
    if next(journal.records(kinds=["round"], upto_seq=until), None) is None:
        return None
    return until


class PrefixAudit:
    """``etg audit verify --until SEQ --json`` as a child process; ``on_failure`` gets the
    problem (from the child's thread) when the proof fails."""

    def __init__(self, journal_path: Path, key_path: Path, until: int,
                 on_failure: Callable[[str], None]) -> None:
        self.until = until
        self._on_failure = on_failure
        self._stopped = False
        self.result: dict[str, object] | None = None
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "firmware", "audit", "verify", "--journal",
             str(journal_path), "--key", str(key_path), "--until", str(until), "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            text=True)
        with contextlib.suppress(OSError):  # the lowest priority (not in preexec_fn:
            os.setpriority(os.PRIO_PROCESS, self.proc.pid, 19)  # the table has threads)
        self._thread = threading.Thread(target=self._wait, name="prefix-audit", daemon=True)
        self._thread.start()

    def _wait(self) -> None:
        out, err = self.proc.communicate()
        if self._stopped:
            return
        try:
            self.result = json.loads(out)
        except ValueError:
            self.result = None
        res = self.result or {}
        if self.proc.returncode == 0 and res.get("ok"):
            log.info("journal records 1..%d proven beside the table", self.until)
            return
        problem = str(res.get("problem") or err.strip() or f"exit {self.proc.returncode}")
        if self.proc.returncode == 1:
            where = f" at record {res['first_bad']}" if res.get("first_bad") else ""
            self._on_failure(f"journal integrity check failed{where}: {problem}")
        else:
            log.warning("the journal's records 1..%d could not be proven: %s", self.until,
                        problem)

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def stop(self) -> None:
        self._stopped = True
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._thread.join(5)


def stop_taking_inputs(ctl: Controller) -> Callable[[str], None]:
    """What a failed prefix audit does: the system log, then the table stops taking
    inputs (a journal failure, handed to the controller's own thread)."""

    def failed(why: str) -> None:
        system_log(f"{ctl.journal.path}: {why}; the table takes no more input")
        ctl.put(RequestHappening("journal-failure", {"why": why}))

    return failed


@contextlib.contextmanager
def prefix_audit(ctl: Controller, key_setting: str) -> Iterator[PrefixAudit | None]:
    """The audit of what the start did not prove, for as long as the table runs."""
    journal = ctl.journal
    until = needed(journal)
    if until is None:
        yield None
        return
    audit = PrefixAudit(journal.path, journal_key.key_path_for(journal.path, key_setting),
                        until, stop_taking_inputs(ctl))
    log.info("proving journal records 1..%d beside the table (pid %d)", until,
             audit.proc.pid)
    try:
        yield audit
    finally:
        audit.stop()
