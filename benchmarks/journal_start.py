"""`make bench` figures of the journal's proof (issue 34): how long a start takes to prove a
journal of 100,000 rounds before it writes anything, with the checkpoints and without
them, and how long ``etg audit verify`` takes on it.

The journal has 499 rounds more than its last checkpoint (100,499 rounds, a checkpoint
every 500): the most a start ever replays, so the figure is the worst case.

The journal is made once, by the real controller and the auto-players (three seats of
Blackjack, attendant top-ups, a checkpoint every 500 rounds as a table writes them),
and kept in the user's cache directory for the next run (keyed by the journal's format):
making it takes minutes. It is made fast — ``synchronous=OFF`` and the head file written
once at the end — because its durability is not what is measured; the file is the same.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

ROUNDS = 100_499  # the last checkpoint at 100,000: the longest tail a start replays
EVERY = 500
SEATS = 3
SEED = 5


def _cache() -> Path:
    from firmware.engine.snapshot import VERSION as SNAPSHOT
    from firmware.journal.schema import SCHEMA_VERSION

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "etg" / "bench" / (f"journal-{ROUNDS}r-{EVERY}cp-v{SCHEMA_VERSION}."
                                     f"{SNAPSHOT}-s{SEED}")


def build(path: Path, rounds: int = ROUNDS, every: int = EVERY) -> float:
    """Play ``rounds`` rounds into a new journal at ``path``; the seconds it took."""
    from firmware.bench.engine_player import EnginePlayer
    from firmware.engine import load_rules
    from firmware.engine.inputs import CreditsIn, Input
    from firmware.journal import Journal
    from firmware.journal.head import Head, HeadWriter
    from firmware.table.controller import Controller
    from firmware.table.recovery import open_table

    t0 = time.perf_counter()
    path.parent.mkdir(parents=True, exist_ok=True)
    journal = Journal(path, head_file=False)
    journal._db.execute("PRAGMA synchronous=OFF")  # made fast: not what is measured
    rec = open_table(journal, load_rules("blackjack", {}), SEATS, True)
    ctl = Controller(rec.game, journal, epoch_seq=rec.epoch_seq, checkpoint_rounds=every)

    def apply(inp: Input) -> None:
        if isinstance(inp, CreditsIn):
            ctl.request("credits-in", {"seat": inp.seat, "cents": inp.amount})
        else:
            ctl.take(inp, "bench")

    EnginePlayer(ctl.game, seats=range(1, SEATS + 1), seed=SEED, apply=apply).play(rounds)
    writer = HeadWriter(journal.head_path, journal.key)
    writer.write(Head(0, "0" * 64))  # both slots valid, as a table leaves them
    writer.write(Head(journal.last_seq, journal.head))
    writer.close()
    journal.close()
    return time.perf_counter() - t0


def journal_of_100k() -> tuple[Path, str]:
    """The benchmark's journal: made once, then kept in the user's cache."""
    where = _cache()
    path = where / "journal.sqlite"
    if (where / "done").exists():
        return path, f"kept from an earlier run in {where}"
    for f in where.glob("journal.sqlite*"):
        f.unlink()
    seconds = build(path)
    (where / "done").write_text("ok\n")
    return path, f"made in {seconds:.0f} s, kept in {where}"


def start(path: Path) -> tuple[float, int]:
    """What `etg run` does with its journal before READY: prove it (from the last
    checkpoint) and rebuild the table (recovery). Seconds, and where the proof began."""
    from firmware.engine import load_rules
    from firmware.journal.opening import open_for_table
    from firmware.table.meter_proof import start_proof
    from firmware.table.recovery import open_table

    t0 = time.perf_counter()
    journal = open_for_table(path, "", bench=True, prove=start_proof)
    open_table(journal, load_rules("blackjack", {}), SEATS, True)  # same setup: no write
    seconds = time.perf_counter() - t0
    since = journal.proven_from
    journal.close()
    return seconds, since


def service_ready(path: Path) -> float:
    """``etg run`` on a copy of the journal: the seconds to READY it logs (the whole start:
    the proof, recovery, the devices), then it is stopped (SIGTERM, by its pid)."""
    import re
    import shutil
    import signal
    import subprocess
    import sys
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="etg-bench-journal-"))
    try:
        for f in path.parent.glob(path.name + "*"):
            if f.suffix != ".lock":
                shutil.copy2(f, work / f.name)
        proc = subprocess.Popen(
            [sys.executable, "-m", "firmware", "run", "--headless", "--seats", str(SEATS),
             "--shoe", "sim", "--panel", "sim", "--journal", str(work / path.name)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=work)
        assert proc.stderr is not None
        ready = float("nan")
        for line in proc.stderr:
            found = re.search(r"table ready in ([0-9.]+) s", line)
            if found:
                ready = float(found.group(1))
                break
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
        return ready
    finally:
        shutil.rmtree(work, ignore_errors=True)


def full(path: Path) -> tuple[float, float, str]:
    """`etg audit verify`: the journal from record 1, then the engine replay from record 1
    (what a start without checkpoints would have to do). Seconds of each, and the result."""
    from firmware.journal import Journal
    from firmware.table.meter_proof import prove

    j = Journal(path, readonly=True)
    t0 = time.perf_counter()
    res = j.verify(full=True)
    t1 = time.perf_counter()
    proof = prove(j, full=True)
    t2 = time.perf_counter()
    j.close()
    ok = "ok" if res.ok and proof.ok else f"BROKEN: {res.problem or proof.problem}"
    return t1 - t0, t2 - t1, ok


def journal_benchmark() -> Iterator[str]:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    yield (f"what: a start's proof of a journal of {ROUNDS:,} rounds ({SEATS} seats of "
           f"Blackjack, a checkpoint every {EVERY} rounds: the last {ROUNDS % EVERY} rounds "
           "after the last checkpoint, the most a start replays), and etg audit verify")
    yield "rerun: python -m benchmarks journal"
    yield f"machine load average (1 min) at start: {load:.2f} on {os.cpu_count()} cores"
    path, how = journal_of_100k()
    from firmware.journal import Journal

    j = Journal(path, readonly=True)
    records, size = j.last_seq, path.stat().st_size
    j.close()
    yield f"journal: {records:,} records, {size / 1e6:.0f} MB ({how}); page cache warm"
    seconds, since = start(path)
    yield (f"start with checkpoints: {seconds:.2f} s (schema, keyed chain, head, meters and "
           f"engine replay from record {since:,}, then recovery)")
    yield (f"etg run on it: table ready in {service_ready(path):.2f} s (the whole start; "
           "the records before the last checkpoint are then proven beside the table)")
    chain_s, replay_s, ok = full(path)
    yield (f"without checkpoints a start would walk it all: journal {chain_s:.1f} s + engine "
           f"replay {replay_s:.1f} s = {chain_s + replay_s:.1f} s")
    yield f"etg audit verify (all of it, from record 1): {chain_s + replay_s:.1f} s, {ok}"
