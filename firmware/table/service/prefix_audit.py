"""After a start on a long journal: the engine's replay of the history, beside the table.

A start proves the WHOLE keyed chain, the schema, the commit markers, the head and the
meters before anything reads the journal (firmware.journal.opening), and the engine's
replay from the last checkpoint. Only the engine's replay of the records before that
checkpoint (linear in the journal's length) runs here, right after the start, as ``etg
audit verify --until SEQ`` in a child process at the lowest CPU priority: a separate
process, so the table's own threads never wait for it.

An unproven history fails closed (issue 42, finding 6): until the proof succeeds the table
finishes the round in play and deals no new one (a hold: firmware.table.floor_gate, shown
on the display and the floor's status). Each attempt has a deadline (doubled at each
try, up to 8 times: a starved machine gets more time); an attempt that does not finish
— killed, stopped (SIGSTOP: its deadline passes and it is killed), starved, crashed,
or any exit but "proven" or "broken" — is retried with back-off, for as long as
the table runs. Every outcome is an event (712 proven, 713 not finished, with the next
try); a proof that finds the history BROKEN stops the table (a journal failure, in the
system log and on the screen), and nothing more is written into that journal.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from etgcore.child import own_python
from firmware.journal import Journal
from firmware.journal import key as journal_key
from firmware.journal.opening import system_log
from firmware.table.controller import Controller
from firmware.table.floor_gate import HISTORY_HOLD
from firmware.table.happenings import RequestHappening

log = logging.getLogger("etg.table.audit")

#: the first retry's wait and the longest (doubling in between), seconds
BACKOFF_S = (5.0, 300.0)


def needed(journal: Journal) -> int | None:
    """The checkpoint the start's proof began at, when rounds lie before it; else None."""
    until = journal.proven_from
    if until <= 1:
        return None
    if next(journal.records(kinds=["round"], upto_seq=until), None) is None:
        return None
    return until


def deadline_for(until: int) -> float:
    """One attempt's deadline: 60 s and 0.2 ms per record. The proof runs at about 50,000
    records/s on a shared 2-core VM (41 s for the 2.1 million records of 100,000 rounds,
    docs/table.md); a Pi is a few times slower: the deadline leaves it a margin of 3."""
    return 60.0 + until / 5000.0


@dataclass(frozen=True)
class Outcome:
    """One attempt: ``proven``, ``broken`` (``problem`` says where) or ``unfinished``."""

    kind: str
    attempt: int
    problem: str = ""
    retry_in: float | None = None


class PrefixAudit:
    """``etg audit verify --until SEQ --json`` as a child process, tried until it proves
    or finds the history broken; ``on_outcome`` gets every outcome (from the audit's
    thread), ``on_failure`` the problem of a broken history."""

    def __init__(self, journal_path: Path, key_path: Path, until: int,
                 on_failure: Callable[[str], None], *,
                 on_outcome: Callable[[Outcome], None] | None = None,
                 deadline_s: float | None = None,
                 backoff_s: tuple[float, float] = BACKOFF_S) -> None:
        self.until = until
        self._argv = own_python("firmware", "audit", "verify", "--journal",
                                str(journal_path), "--key", str(key_path), "--until",
                                str(until), "--json")
        self._on_failure = on_failure
        self._on_outcome = on_outcome or (lambda o: None)
        self.deadline_s = deadline_for(until) if deadline_s is None else deadline_s
        self._backoff = backoff_s
        self._stop = threading.Event()
        self._started = threading.Event()
        self.result: dict[str, object] | None = None
        self.outcomes: list[Outcome] = []
        self.proc: subprocess.Popen[str] | None = None
        self._thread = threading.Thread(target=self._run, name="prefix-audit", daemon=True)
        self._thread.start()
        self._started.wait(10)

    def _spawn(self) -> subprocess.Popen[str]:
        proc = subprocess.Popen(self._argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True)
        with contextlib.suppress(OSError):  # the lowest priority (not in preexec_fn:
            os.setpriority(os.PRIO_PROCESS, proc.pid, 19)  # the table has threads)
        return proc

    def _run(self) -> None:
        wait, attempt = self._backoff[0], 0
        while not self._stop.is_set():
            attempt += 1
            try:
                self.proc = self._spawn()
            except OSError as exc:
                self._started.set()
                outcome = Outcome("unfinished", attempt, f"cannot start: {exc}")
            else:
                self._started.set()
                outcome = self._attempt(self.proc, attempt)
            if self._stop.is_set():
                return
            if outcome.kind == "unfinished":
                outcome = Outcome("unfinished", attempt, outcome.problem, wait)
            self.outcomes.append(outcome)
            self._on_outcome(outcome)
            if outcome.kind == "proven":
                log.info("journal records 1..%d proven beside the table", self.until)
                return
            if outcome.kind == "broken":
                self._on_failure(outcome.problem)
                return
            log.warning("the journal's records 1..%d are not proven yet (attempt %d: %s); "
                        "no new round until they are; next try in %.0f s", self.until,
                        attempt, outcome.problem, wait)
            if self._stop.wait(wait):
                return
            wait = min(wait * 2, self._backoff[1])

    def _attempt(self, proc: subprocess.Popen[str], attempt: int) -> Outcome:
        # a starved machine gets more time at each try: twice, up to 8 times the first
        deadline = self.deadline_s * min(8, 2 ** (attempt - 1))
        try:
            out, err = proc.communicate(timeout=deadline)
        except subprocess.TimeoutExpired:
            proc.kill()  # SIGKILL ends a stopped (SIGSTOP) child too
            proc.communicate()
            return Outcome("unfinished", attempt,
                           f"no answer within its deadline of {deadline:.0f} s")
        try:
            self.result = json.loads(out)
        except ValueError:
            self.result = None
        res = self.result if isinstance(self.result, dict) else {}
        code = proc.returncode
        if code == 0 and res.get("ok") is True and res.get("verified") == "until":
            return Outcome("proven", attempt)
        if code == 1 and res.get("ok") is False:
            where = f" at record {res['first_bad']}" if res.get("first_bad") else ""
            return Outcome("broken", attempt, f"journal integrity check failed{where}: "
                           f"{res.get('problem')}")
        how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
        detail = str(res.get("problem") or err.strip()[-200:] or "no result")
        return Outcome("unfinished", attempt, f"{how}: {detail}")

    @property
    def proven(self) -> bool:
        return any(o.kind == "proven" for o in self.outcomes)

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def stop(self) -> None:
        self._stop.set()
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        self._thread.join(10)


def stop_taking_inputs(ctl: Controller) -> Callable[[str], None]:
    """What a history found broken does: the system log, then the table stops taking
    inputs and writes nothing more into that journal (handed to the controller's thread)."""

    def failed(why: str) -> None:
        system_log(f"{ctl.journal.path}: {why}; the table takes no more input")
        ctl.put(RequestHappening("journal-failure", {"why": why}))

    return failed


def report_outcome(ctl: Controller) -> Callable[[Outcome], None]:
    """Every outcome as an event, and the hold lifted once proven (controller's thread)."""

    def outcome(o: Outcome) -> None:
        if o.kind != "broken":
            ctl.put(RequestHappening("history-proof", {
                "outcome": o.kind, "attempt": o.attempt, "problem": o.problem,
                "retry_in": o.retry_in}))

    return outcome


@contextlib.contextmanager
def prefix_audit(ctl: Controller, key_setting: str) -> Iterator[PrefixAudit | None]:
    """The proof of what the start did not replay, for as long as the table runs; the
    table holds play (no new round) until it succeeds."""
    journal = ctl.journal
    until = needed(journal)
    if until is None:
        yield None
        return
    ctl.floor_gate.holds[HISTORY_HOLD] = "the journal's history is being proven"
    ctl.refresh()
    audit = PrefixAudit(journal.path, journal_key.key_path_for(journal.path, key_setting),
                        until, stop_taking_inputs(ctl), on_outcome=report_outcome(ctl))
    log.info("proving journal records 1..%d beside the table (pid %s); no new round until "
             "they are", until, audit.proc.pid if audit.proc else "-")
    try:
        yield audit
    finally:
        audit.stop()
