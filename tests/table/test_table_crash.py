"""Power-fail recovery: `kill -9` of the whole table (service and shoe) at random instants.

Each test kills the table 25 times (two tests: 50 kills, run in parallel by `make test`),
at instants spread over start-up, betting, dealing, decisions and settlement, then lets it
finish cleanly and checks: the hash chain verifies, the meters balance for the table and
every seat, every finished round is recorded exactly once, and the credits the engine
recovers equal the meters' credits (nothing lost or paid twice).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware.table.journal import Journal
from firmware.table.meters import summarize
from firmware.table.recovery import replay

KILLS_PER_TEST = 25


def start(journal: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    env.pop("DISPLAY", None)
    return subprocess.Popen(
        [sys.executable, "-m", "firmware", "run", "--headless", "--auto-play", "--seats", "2",
         "--pace", "0.02", "--quiet", "--journal", str(journal), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=env,
    )


def check(journal: Path) -> dict[str, object]:
    j = Journal(journal)
    assert j.verify().ok
    m = summarize(j.meters())
    assert m["balanced"]
    for s in m["seats"]:  # type: ignore[attr-defined]
        assert s["credits"] == s["credits_in"] - s["credits_out"] - s["wagered"] + s["paid"]
    rec = replay(j)
    assert rec is not None
    assert rec.finals == rec.finals_recorded, "a finished round is missing or recorded twice"
    firsts = [r.body["first_seq"] for r in j.records(kinds=["round"])]
    assert len(firsts) == len(set(firsts))
    meter_credits = {s["seat"]: s["credits"] for s in m["seats"]}  # type: ignore[attr-defined]
    for seat in rec.table.seats:
        at_stake = seat.staked if seat.net is None else 0
        assert seat.credits + at_stake == meter_credits.get(seat.number, 0), seat.number
    j.close()
    return m


@pytest.mark.parametrize("seed", [1, 2])
def test_kill_9_at_random_instants(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    journal = tmp_path / "journal.sqlite"
    for _ in range(KILLS_PER_TEST):
        proc = start(journal)
        time.sleep(rnd.uniform(0.05, 2.5))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    proc = start(journal, "--rounds", "3")
    assert proc.wait(timeout=180) == 0
    m = check(journal)
    assert int(m["games_played"]) + int(m["games_voided"]) >= 3  # type: ignore[call-overload]
