"""One task of a certification run: a block of draws, drawn and tested where it runs.

`etg cert run` cuts its N Bingo draws, N card draws and S shoes into numbered tasks
(:func:`plan`). A task runs on a Dask worker (or in the run's own process): it opens
its RNG, draws its block exactly as the table draws (``TableRng.draw_bingo``,
``randbelow``, ``shuffle``; or the vectorized ``rng.batch`` path with ``--scaling
batch``), and returns the outcomes (for the run's csv files) with the block's
batteries (:meth:`OutcomeBattery.part`), which the run merges in task order.

* **Bench mode** (a seed): task ``i`` seeds a fresh DRBG with
  ``SHA-256("etg cert task|" || seed || i)`` (:func:`task_seed`), so the same seed gives
  the same draws and the same report on one core or a hundred.
* **Production mode**: each worker process opens the table's RNG once, from its own
  entropy source (:func:`rng.open_table_rng`, background cycling as configured), after
  its own power-up self-test; every task reports which worker drew it and that
  worker's self-test, and the report lists each worker's.

A block's csv lines (about 8.5 MB of text for 2^20 draws) go back with its result,
except on the run's own embedded local cluster, where the workers share the run's disk:
there a task writes them to a file of its own in the run's spool directory
(``DrawSpec.spool``) and returns only the file's name, so they never pass through Dask's
pickling and a localhost socket on the cores the tasks need (:func:`take_lines`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import platform
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from etgcore.errors import UserError
from rng.cert.battery import PART_CHUNK, OutcomeBattery
from rng.cert.frequency import IndependenceCounter
from rng.cert.shuffles import ShuffleBattery
from rng.cert.tables import OutcomeTable

CHUNK = 1 << 16
#: draws per task: the table's own calls are slow (about 20,000 Bingo draws a second a
#: core), the vectorized path fast, so tasks of about a few seconds either way
TASK_DRAWS = {"table": 1 << 16, "batch": 1 << 20}
U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class DrawSpec:
    """What every task of one run shares (sent once per task; small)."""

    settings: Any  # the [rng] settings (RngSettings)
    bench: bool
    seed_hex: str  # the run's seed ("" in production)
    scaling: str
    targets: OutcomeTable
    multipliers: OutcomeTable
    cards: OutcomeTable
    decks: int
    draws: int  # the run's planned N (sets the overlaps window)
    #: a directory every worker and the run share ("": the lines travel in the result)
    spool: str = ""


@dataclass(frozen=True)
class Block:
    """Task ``index``: draws ``lo``..``hi`` and shoes ``shoe_lo``..``shoe_hi`` of the run."""

    index: int
    lo: int
    hi: int
    shoe_lo: int
    shoe_hi: int


@dataclass(frozen=True)
class WorkerRecord:
    """Which process drew a task, and its power-up self-test."""

    name: str
    selftest: tuple[str, ...]
    ok: bool
    source: str
    failed: tuple[str, ...] = ()  #: the lines of its checks that failed


@dataclass
class TaskResult:
    index: int
    worker: WorkerRecord
    targets: OutcomeBattery
    multipliers: OutcomeBattery
    cards: OutcomeBattery
    pairs: IndependenceCounter
    shoes: ShuffleBattery
    # the block's lines of each csv file, written by the run in task order (formatted
    # here, on the worker: as text they cost the run's own process about a third of a
    # task's CPU; dropped before the checkpoint keeps the result)
    csv: dict[str, bytes] | None = None
    #: instead of ``csv``, on a shared disk: each csv file's lines in a file of the spool
    spooled: dict[str, str] | None = None

    def without_outcomes(self) -> TaskResult:
        return dataclasses.replace(self, csv=None, spooled=None)


def take_lines(result: TaskResult) -> dict[str, bytes]:
    """The block's lines of each csv file, read from the spool (and removed) if there."""
    if result.spooled is None:
        if result.csv is None:
            raise ValueError(f"task {result.index}: its outcomes were dropped")
        return result.csv
    out = {}
    for name, path in result.spooled.items():
        part = Path(path)
        out[name] = part.read_bytes()
        part.unlink()
    return out


def _spool(spec: DrawSpec, index: int, csv: dict[str, bytes]) -> dict[str, str]:
    """Write a block's lines into the spool, each file under a name of its own.

    Its own name (not just the task's index): Dask may start a task again elsewhere while
    the first attempt still runs; each attempt's result names only the files it wrote,
    whole (written, then renamed into place), so the run reads one attempt's complete lines."""
    out = {}
    for name, data in csv.items():
        final = Path(spec.spool) / f"{index:08d}.{uuid.uuid4().hex[:12]}.{name}"
        tmp = final.with_suffix(".part")
        tmp.write_bytes(data)
        os.replace(tmp, final)
        out[name] = str(final)
    return out


def plan(draws: int, shoes: int, size: int) -> list[Block]:
    """The run's tasks: blocks of ``size`` draws, the shoes spread evenly over them."""
    count = max(1, -(-draws // size))
    return [Block(i, i * size, min(draws, (i + 1) * size), shoes * i // count,
                  shoes * (i + 1) // count) for i in range(count)]


def task_seed(seed_hex: str, index: int) -> str:
    """The seed of task ``index``'s DRBG in a bench run (hex of 32 bytes)."""
    data = b"etg cert task|" + bytes.fromhex(seed_hex) + index.to_bytes(8, "big")
    return hashlib.sha256(data).hexdigest()


def stream_seed(seed_hex: str) -> str:
    """The seed of the raw stream's DRBG in a bench run (drawn by the run itself)."""
    return hashlib.sha256(b"etg cert stream|" + bytes.fromhex(seed_hex)).hexdigest()


_PROCESS: dict[str, Any] = {}  # this process's self-test and (production) its RNG


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return f"{platform.node()} pid {os.getpid()} (the run's own process)"


def _process_rng(spec: DrawSpec) -> tuple[WorkerRecord, Any]:
    """This process's self-test record, and its own RNG in production mode."""
    from rng import RngUnavailable, open_table_rng
    from rng.selftest import power_up_selftest

    key = f"{spec.settings.mechanism}|{spec.bench}|{bool(spec.seed_hex)}"
    if _PROCESS.get("key") != key:
        checks = power_up_selftest(spec.settings.mechanism)
        ok = all(c.ok for c in checks)
        rng = None
        source = "per-task seeded DRBG (bench)"
        if ok and not spec.seed_hex:  # production (or an unseeded bench run)
            try:
                rng = open_table_rng(spec.settings, bench=spec.bench)
            except RngUnavailable as exc:
                raise UserError(f"{_worker_name()}: RNG unavailable: {exc.cause}") from None
            source = rng.source_name
        if "rng" in _PROCESS and _PROCESS["rng"] is not None:
            _PROCESS["rng"].close()
        _PROCESS.update(key=key, rng=rng, record=WorkerRecord(
            _worker_name(), tuple(c.line() for c in checks), ok, source,
            tuple(c.line() for c in checks if not c.ok)))
    return _PROCESS["record"], _PROCESS["rng"]


def draw_task(spec: DrawSpec, block: Block) -> TaskResult:
    """Draw and test one block (runs on a worker)."""
    from rng import open_table_rng

    record, rng = _process_rng(spec)
    if not record.ok:
        raise UserError(f"{record.name}: the power-up self-test failed; RNG unavailable")
    own = rng is None
    if own:
        settings = dataclasses.replace(spec.settings,
                                       seed_hex=task_seed(spec.seed_hex, block.index))
        rng = open_table_rng(settings, bench=True, selftest=False)
    try:
        t, m = _bingo(rng, spec, block.hi - block.lo)
        c = _cards(rng, spec, block.hi - block.lo)
        rows = _shoes(rng, spec, block.shoe_hi - block.shoe_lo)
    finally:
        if own:
            rng.close()
    pairs = IndependenceCounter(spec.targets.k, spec.multipliers.k,
                                "Bingo draws (target, multiplier)")
    for lo in range(0, t.size, PART_CHUNK):  # 64-bit temporaries a core's cache holds
        pairs.update(t[lo:lo + PART_CHUNK], m[lo:lo + PART_CHUNK])
    shoes = ShuffleBattery(np.full(spec.cards.k, spec.decks))
    if rows.size:
        shoes.update(rows.astype(np.int64))
    csv = csv_lines(spec, t, m, c, rows)
    spooled = _spool(spec, block.index, csv) if spec.spool else None
    return TaskResult(
        block.index, record,
        OutcomeBattery.part(spec.targets, spec.draws, t, block.lo),
        OutcomeBattery.part(spec.multipliers, spec.draws, m, block.lo),
        OutcomeBattery.part(spec.cards, spec.draws, c, block.lo),
        pairs, shoes, None if spooled else csv, spooled)


def lines(values: list[str]) -> bytes:
    """``values`` as the lines of a csv file (ASCII, each ending in a newline)."""
    return ("\n".join(values) + "\n").encode("ascii")


def csv_lines(spec: DrawSpec, t: U8, m: U8, c: U8,
              rows: npt.NDArray[np.int64]) -> dict[str, bytes]:
    """The block's lines of each csv file, in the `etg rng draws` format."""
    tw, mw, cards = spec.targets.labels, spec.multipliers.labels, spec.cards.labels
    out = {"targets.csv": lines([tw[i] for i in t.tolist()]),
           "multipliers.csv": lines([mw[i] for i in m.tolist()]),
           "cards.csv": lines([cards[i] for i in c.tolist()])}
    if rows.size:
        out["shuffles.csv"] = lines([",".join(cards[j] for j in row) for row in rows.tolist()])
    return out


def _bingo(rng: Any, spec: DrawSpec, n: int) -> tuple[U8, U8]:
    tw, mw = spec.targets, spec.multipliers
    tvals = [int(v) for v in tw.labels]
    mvals = [int(v) for v in mw.labels]
    tweights = dict(zip(tvals, tw.weights, strict=True))
    mweights = dict(zip(mvals, mw.weights, strict=True))
    if spec.scaling == "batch":
        from rng.lab import outcomes

        return (_indexes(outcomes(rng.random_bytes, "target", n, weights=tweights), tvals, n),
                _indexes(outcomes(rng.random_bytes, "multiplier", n, weights=mweights),
                         mvals, n))
    tmap = {v: i for i, v in enumerate(tvals)}
    mmap = {v: i for i, v in enumerate(mvals)}
    t = np.empty(n, dtype=np.uint8)
    m = np.empty(n, dtype=np.uint8)
    for i in range(n):
        d = rng.draw_bingo(i + 1, tweights, mweights)
        t[i] = tmap[d.target]
        m[i] = mmap[d.multiplier]
    return t, m


def _indexes(chunks: Iterator[npt.NDArray[np.int64]], values: list[int], n: int) -> U8:
    """Each drawn value's index in ``values`` (sorted), converted chunk by chunk: a task's
    2^20 values never exist as one array of 64-bit integers (8 MiB, twice: the values and
    their indexes), which on two busy cores cost the memory both share."""
    out = np.empty(n, np.uint8)
    at = 0
    for chunk in chunks:
        out[at:at + chunk.size] = np.searchsorted(values, chunk)
        at += chunk.size
    if at != n:
        raise ValueError(f"{at} values drawn, {n} wanted")
    return out


def _cards(rng: Any, spec: DrawSpec, n: int) -> U8:
    k = spec.cards.k
    if spec.scaling == "batch":
        from rng.batch import randbelow_batch

        return randbelow_batch(rng.random_bytes, k, n).astype(np.uint8)
    return np.fromiter((rng.randbelow(k) for _ in range(n)), dtype=np.uint8, count=n)


def _shoes(rng: Any, spec: DrawSpec, count: int) -> npt.NDArray[np.int64]:
    base = np.tile(np.arange(spec.cards.k, dtype=np.int64), spec.decks)
    if count == 0:
        return np.zeros((0, base.size), dtype=np.int64)
    if spec.scaling == "batch":
        from rng.batch import shuffle_batch

        return np.asarray(shuffle_batch(rng.random_bytes, base, count))
    rows = np.empty((count, base.size), dtype=np.int64)
    for i in range(count):
        shoe = base.tolist()
        rng.shuffle(shoe)
        rows[i] = shoe
    return rows
