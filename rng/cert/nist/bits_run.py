"""``etg cert bits``: the SP 800-22 suite on M sequences of a bit source, at lab scale.

Each sequence is one task: the run reads the source in order (:mod:`.source`), hands each
sequence, packed, to a task as the task is submitted (so the source is never held whole,
and standard input works), and a task returns the sequence's row of P-values and
statistics. Tasks run in this process (``--jobs 1``) or on the Dask lab cluster
(:mod:`lab.cluster`: an embedded local cluster of ``--jobs`` workers, or ``--scheduler``),
and are folded in sequence order into one table, so the figures are the same on one core
or a hundred: merging is exact because each row is computed from its own sequence only.
``--checkpoint`` appends each folded row; the same command resumes a killed run, reading
past the sequences already done. The second-level analysis and the verdict are
:mod:`.second_level`'s.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from etgcore.errors import UserError
from rng.cert.meta import utc_now
from rng.cert.nist import source as src
from rng.cert.nist.second_level import (
    ColumnSummary,
    Verdict,
    assess_flagged,
    summarize,
    verdict,
)
from rng.cert.nist.suite import Column, LengthError, SuiteParams, check, columns, run_sequence


@dataclass(frozen=True)
class BitsOptions:
    source: str  # a path, or "-" for standard input
    fmt: str  # "ascii" or "binary"
    params: SuiteParams
    streams: int | None = None  # None: every whole sequence the file holds
    jobs: int = 1
    scheduler: str | None = None
    checkpoint: Path | None = None
    progress: bool | None = None
    rule: str = "holm"
    command: str = "etg cert bits"


@dataclass
class SequenceResult:
    """One sequence's P-values and statistics (NaN: the test did not apply)."""

    index: int
    p: npt.NDArray[np.float64]
    statistic: npt.NDArray[np.float64]
    returns: int = -1  # the walk's returns to zero (random excursions run; else -1)


def sequence_task(params: SuiteParams, index: int, packed: bytes) -> SequenceResult:
    """Every chosen test on sequence ``index`` (runs on a worker)."""
    from rng.cert.nist import excursions

    bits = np.unpackbits(np.frombuffer(packed, dtype=np.uint8))[: params.n]
    p, stat = run_sequence(bits, params)
    returns = -1
    if "random-excursions" in params.tests:
        returns = int(np.count_nonzero(excursions.walk(bits) == 0))
    return SequenceResult(index, p, stat, returns)


@dataclass
class BitsRun:
    """A finished run: the table of P-values, the second-level figures, the verdict."""

    opts: BitsOptions
    info: src.SourceInfo
    columns: list[Column]
    p: npt.NDArray[np.float64]  # sequences x columns
    statistic: npt.NDArray[np.float64]
    summaries: list[ColumnSummary]
    verdict: Verdict
    started: str
    finished: str
    seconds: float
    where: str = "this process"
    resumed: int = 0
    notes: list[str] = field(default_factory=list)
    #: each sequence's returns to zero of its walk (-1: not known)
    returns: npt.NDArray[np.int64] | None = None
    #: what NIST's assess flags on this table (:func:`.second_level.assess_flagged`)
    assess_flags: tuple[str, ...] = ()
    #: the software that computed it: version, program hash, file count, what the set is
    software: dict[str, str] = field(default_factory=dict)
    #: (path, SHA-256) of every program file, for ``program-files.txt``
    program_files: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.assess_flags:
            self.assess_flags = assess_flagged(self.columns, self.p, self.returns,
                                               self.opts.params.n)

    @property
    def streams(self) -> int:
        return int(self.p.shape[0])


def plan(opts: BitsOptions) -> tuple[src.SourceInfo, int]:
    """Check everything that can be checked before a test runs (exit 2, one line)."""
    if opts.fmt not in ("ascii", "binary"):
        raise UserError(f"--format: expected ascii or binary, got {opts.fmt!r}")
    if opts.params.n < 1:
        raise UserError(f"--length must be at least 1, got {opts.params.n}")
    try:
        check(opts.params)
    except LengthError as exc:
        raise UserError(f"--length {opts.params.n:,}: {exc}; choose another --length or "
                        "leave the test out with --skip") from None
    if opts.source == "-":
        if opts.streams is None:
            raise UserError("reading standard input needs --streams (how many sequences)")
        if opts.checkpoint is not None:
            raise UserError("--checkpoint needs a file to read again; standard input "
                            "cannot be (save it to a file first)")
    if opts.streams is not None and opts.streams < 1:
        raise UserError(f"--streams must be at least 1, got {opts.streams}")
    if opts.jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {opts.jobs}")
    info = src.inspect(opts.source, opts.fmt)
    streams = opts.streams
    if streams is None:
        streams = src.streams_held(info, opts.fmt, opts.params.n)
        if streams == 0:
            raise UserError(f"{info.name}: holds {info.bits:,} bits, fewer than one sequence "
                            f"of --length {opts.params.n:,}")
    src.check_size(info, opts.fmt, opts.params.n, streams)
    return info, streams


def _identity(opts: BitsOptions, info: src.SourceInfo, streams: int) -> dict[str, Any]:
    return {"command": "etg cert bits", "sha256": info.sha256, "format": opts.fmt,
            "streams": streams, "params": asdict(opts.params)}


def run_bits(opts: BitsOptions) -> BitsRun:
    """The whole run (module docstring)."""
    from lab.checkpoint import Checkpoint
    from lab.tasks import Task, run_here, run_tasks
    from rng.cert.analyze import progress_bar

    info, streams = plan(opts)
    cols = columns(opts.params)
    table = np.full((streams, len(cols)), np.nan)
    stats = np.full((streams, len(cols)), np.nan)
    returns = np.full(streams, -1, dtype=np.int64)
    started, t0 = utc_now(), time.perf_counter()
    ck = None
    done: dict[int, Any] = {}
    if opts.checkpoint is not None:
        ck = Checkpoint(opts.checkpoint, _identity(opts, info, streams))
        ck.open()
        done = ck.done
    bar = progress_bar(streams, "cert bits", "sequences", enabled=opts.progress)
    for index, r in done.items():
        table[index], stats[index] = r.p, r.statistic
        returns[index] = getattr(r, "returns", -1)  # a checkpoint of an older version
        bar.update(1)
    reader = src.SequenceReader(opts.source, opts.fmt, opts.params.n)

    def load(task: Task) -> tuple[Any, ...]:
        return (opts.params, task.index, reader.read(task.index))

    def fold(task: Task, r: SequenceResult) -> None:
        table[r.index], stats[r.index] = r.p, r.statistic
        returns[r.index] = r.returns
        if ck is not None:
            ck.append(r.index, r)

    tasks = [Task(i, 1, ()) for i in range(streams)]
    where = "this process"
    try:
        if (opts.jobs == 1 or streams - len(done) <= 1) and opts.scheduler is None:
            run_here(sequence_task, tasks, fold, skip=done, progress=bar, load=load)
        else:
            from lab.cluster import describe, open_client

            with open_client(opts.scheduler, opts.jobs) as client:
                where = describe(client).describe()
                run_tasks(client, sequence_task, tasks, fold, skip=done, progress=bar,
                          load=load)
    finally:
        bar.close()
        reader.close()
        if ck is not None:
            ck.close()
    summaries = [summarize(c, table[:, i]) for i, c in enumerate(cols)]
    return BitsRun(opts, info, cols, table, stats, summaries,
                   verdict(summaries, streams, opts.rule), started, utc_now(),
                   time.perf_counter() - t0, where, len(done), returns=returns)
