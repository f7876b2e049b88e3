"""Remote software authentication from the pit (GLI-13; the G2S GAT class's idea).

A supervisor asks a table for its seeded software signature; the floor sends a signed
``authenticate`` command with a fresh random seed, the table answers with HMAC-SHA256
keyed by that seed over every file of its installed release (the computation
``etg verify --seed`` prints, docs/deploy.md), and the floor compares the answer with the
value its own copy of the approved release gives for the same seed. A fresh seed each
time means a table cannot answer from a stored value.

Who asked, when, the seed, the answer and the result are kept in
``floor_software_checks``; a mismatch (or a table that cannot answer) is an alarm. The
floor never computes a signature itself: the command line hands it ``approved(seed)``
built from the release tooling, and without one the answer is shown, not judged.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware.floor.db import Database
from firmware.floor.pit_text import when
from firmware.floor.table_state import Applied, Work

log = logging.getLogger("etg.floor.software")

SEED_BYTES = 32
AUTOMATIC = "floor (automatic)"


class SoftwareChecks:
    def __init__(self, db: Database, send: Callable[..., str],
                 approved: Callable[[bytes], str] | None = None,
                 approved_name: str = "") -> None:
        """``send(table, action, staff, **extra)`` signs and publishes a command (its
        id back); ``approved(seed)``: the approved release's signature for ``seed``."""
        self.db = db
        self.send = send
        self.approved = approved
        self.approved_name = approved_name

    def request(self, tid: str, by: str) -> str:
        seed = secrets.token_bytes(SEED_BYTES)
        expected = self.approved(seed) if self.approved is not None else None
        cid = self.send(tid, "authenticate", by, seed=seed.hex())
        self.db.run([("INSERT INTO floor_software_checks(id, table_id, by_name, asked, seed,"
                      " expected) VALUES (?, ?, ?, ?, ?, ?)",
                      (cid, tid, by, time.time(), seed.hex(), expected))])
        log.info("software check of table %s asked by %s (seed %s…)", tid, by, seed.hex()[:16])
        return cid


def judge(expected: str | None, answer: dict[str, Any], approved_name: str) -> tuple[str, str]:
    """(result, detail) of one answer: ``match``, ``mismatch``, ``no answer`` (the table
    could not compute it) or ``not compared`` (no approved release on this floor). The
    detail is the floor's own words only: what the table says of its release is kept
    apart (``claimed``), never written into the verdict."""
    if answer.get("error") or not answer.get("hmac"):
        return "no answer", "the table could not compute its signature"
    if expected is None:
        return "not compared", ("no approved release is configured on the floor "
                                "(etg floor serve --approved-release)")
    if answer["hmac"] == expected:
        return "match", f"{answer.get('files')} files match {approved_name}"
    return "mismatch", f"the table's files do not match {approved_name}"


def record_answer(db: Database, tid: str, answer: dict[str, Any], received: float,
                  approved_name: str, work: Work, out: Applied) -> tuple[str, str] | None:
    """Store a table's answer beside its request; (result, detail), None for an answer to
    nothing this floor asked of this table."""
    row = db.one("SELECT expected, by_name, seed FROM floor_software_checks"
                 " WHERE id = ? AND table_id = ? AND answered IS NULL", (answer["id"], tid))
    if row is None:  # (the ledger counts it as a bad message: alarmed, logged in budget)
        return None
    result, detail = judge(row[0], answer, approved_name)
    claimed = " · ".join(f"{k}: {answer[k]}" for k in ("release", "error") if answer.get(k))
    work.append(("UPDATE floor_software_checks SET answered = ?, answer = ?, files = ?,"
                 " result = ?, detail = ?, claimed = ? WHERE id = ?",
                 (received, answer.get("hmac"), answer.get("files"), result, detail,
                  claimed or None, answer["id"])))
    out.checks.append({"table": tid, "id": answer["id"], "result": result, "detail": detail,
                       "by": row[1]})
    log.log(logging.INFO if result == "match" else logging.ERROR,
            "software check of table %s (asked by %s, seed %s…): %s: %s", tid, row[1],
            str(row[2])[:16], result, detail)
    return result, detail


def overdue(db: Database, now: float, deadline_s: float, work: Work,
            out: Applied) -> list[tuple[str, str]]:
    """Checks asked more than ``deadline_s`` ago and never answered: each marked ``no
    answer`` (a late answer is then one nobody waits for); (table, detail) of each."""
    found = []
    for cid, tid, by, asked in db.all(
            "SELECT id, table_id, by_name, asked FROM floor_software_checks"
            " WHERE answered IS NULL AND asked < ?", (now - deadline_s,)):
        detail = (f"the table did not answer within {deadline_s:.0f} s (asked by {by} at "
                  f"{when(float(asked))})")
        work.append(("UPDATE floor_software_checks SET answered = ?, result = ?, detail = ?"
                     " WHERE id = ? AND answered IS NULL", (now, "no answer", detail, cid)))
        out.checks.append({"table": tid, "id": cid, "result": "no answer", "detail": detail,
                           "by": by})
        log.error("software check of table %s (asked by %s): no answer: %s", tid, by, detail)
        found.append((str(tid), detail))
    return found


class AutomaticChecks:
    """Every ``every_s``, each table online is asked, one after another, spread over the
    period (a setting: ``etg floor serve --check-software-every``)."""

    def __init__(self, checks: SoftwareChecks, online: Callable[[], list[str]],
                 every_s: float) -> None:
        self.checks, self.online, self.every_s = checks, online, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="floor-software-checks",
                                        daemon=True)

    def start(self) -> AutomaticChecks:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(min(self.every_s, 5.0)):
            tables = self.online()
            gap = self.every_s / max(len(tables), 1)
            for tid in tables:
                try:
                    self.checks.request(tid, AUTOMATIC)
                except Exception:
                    log.exception("automatic software check of table %s", tid)
                if self._stop.wait(gap):
                    return
