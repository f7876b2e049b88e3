"""Repeated store failures (issue 43): a database failing every write logged a full
traceback on every batch and every table — a minute of it buried the first, the only one
that says why, under thousands. Now: one traceback a kind, a counted summary at most once
a minute, the health's banner while it lasts, the recovery logged once."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("msgspec")

from waiting import wait_for

from firmware.floor import failures as failures_mod
from firmware.floor import ingest as ingest_mod
from firmware.floor.certs import make_floor_certs
from firmware.floor.db import Database
from firmware.floor.failures import Failures
from firmware.floor.health import Health
from firmware.floor.ingest import Ingest
from firmware.floor.ledger import FloorLedger, Incoming


def _lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("etg.floor")]


def test_finding_repeated_failures_are_one_traceback_then_counts(
        caplog: pytest.LogCaptureFixture) -> None:
    """10,000 failures of one kind over two minutes: one traceback, at most one summary a
    minute, the state told once when it starts and once when it ends."""
    now = [1000.0]
    told: list[str | None] = []
    f = Failures(logging.getLogger("etg.floor.test"), "the floor's store", told.append,
                 clock=lambda: now[0])
    caplog.set_level(logging.INFO)
    for i in range(10_000):
        now[0] += 0.012
        try:
            raise sqlite3.OperationalError(f"disk I/O error {i}")
        except sqlite3.OperationalError as exc:
            f.failed(exc, "the database")
    lines = _lines(caplog)
    assert sum(1 for r in lines if r.exc_info) == 1  # the first, with its traceback
    assert 1 <= len(lines) <= 1 + 120 / failures_mod.SUMMARY_S + 1
    assert "more failures like it" in lines[-1].getMessage()
    assert len(told) == 1 and told[0] and "OperationalError" in told[0]
    f.ok()
    f.ok()
    rec = [r for r in _lines(caplog) if "works again" in r.getMessage()]
    assert len(rec) == 1 and "10000 failures" in rec[0].getMessage()
    assert told[-1] is None and len(told) == 2


def test_finding_a_failing_store_thread_logs_bounded_lines(
        tmp_path: Path, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The store thread over a database failing every write (not "away": a disk error),
    batch after batch from three tables: hundreds of failures, a handful of lines, one
    traceback per kind; the page's banner says so; the recovery logged once."""
    make_floor_certs(tmp_path, ["T1", "T2", "T3"])
    ledger = FloorLedger(Database(str(tmp_path / "floor.sqlite")))
    health = Health()
    ing = Ingest(ledger, tmp_path, "127.0.0.1", 1, health=health)
    monkeypatch.setattr(ingest_mod, "FAILED_PASS_S", 0.001)
    broken = [True]
    real = ledger.apply
    calls = [0]

    def apply(batch: list[Incoming]) -> Any:
        calls[0] += 1
        if broken[0]:
            raise sqlite3.OperationalError("disk I/O error")
        return real(batch)

    monkeypatch.setattr(ledger, "apply", apply)
    caplog.set_level(logging.INFO)
    ing._thread.start()
    try:
        while calls[0] < 600:
            for t in ("T1", "T2", "T3"):
                ing._put([Incoming(t, "online", True, time.time())], 1)
            time.sleep(0.002)
        wait_for("the banner", lambda: "store" in health.warnings())
        broken[0] = False
        ing._put([Incoming("T1", "online", True, time.time())], 1)
        wait_for("the recovery", lambda: "store" not in health.warnings())
    finally:
        ing._stop = True
        ing._arrived.set()
        ing._thread.join(10)
    lines = _lines(caplog)
    tracebacks = [r for r in lines if r.exc_info]
    assert 1 <= len(tracebacks) <= 2, [r.getMessage() for r in tracebacks]  # per kind
    failing = [r for r in lines if "failed" in r.getMessage() or "more failures" in
               r.getMessage()]
    assert len(failing) <= 6, [r.getMessage() for r in failing]
    assert sum("works again" in r.getMessage() for r in lines) == 1
