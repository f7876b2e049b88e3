"""`etg cert run`: a whole certification run, from power-up KATs to the signed-off report.

The run exercises the RNG the way the table does: it opens it with
:func:`rng.open_table_rng` from the table configuration (so the configured mechanism,
entropy source and power-up self-test apply), then draws

* N Bingo draws with ``TableRng.draw_bingo`` and the Rules Submission weights: the very
  call the table makes (target and multiplier from disjoint bits, exact integer scaling);
* N card draws with ``TableRng.randbelow(52)`` (48 for a Spanish deck);
* S full shoes shuffled with ``TableRng.shuffle`` (the Fisher-Yates of :mod:`rng.scaling`
  that :func:`rng.shoe.shuffled_shoe` uses);
* a raw stream of B bytes (``TableRng.random_bytes``) for the SP 800-22 tests (seven
  on it as one sequence, all fifteen on its 10^6-bit sequences:
  :mod:`rng.cert.nist.stream_suite`), written to ``stream.bin`` for the lab's own
  batteries, and ``dieharder`` on the live DRBG after it.

``--scaling batch`` draws through :func:`rng.lab.outcomes` instead (the vectorized
:mod:`rng.batch` path of ``etg rng draws``), about 100x faster, for very large N.

The draws are cut into tasks (:mod:`rng.cert.tasks`) that run on a Dask cluster (an
embedded local one by default, ``--scheduler`` for an existing one; :mod:`lab.cluster`)
or, with ``--jobs 1`` or a single task, in this process. Each task returns its outcomes
(on the embedded cluster: the name of a file in ``draws/.spool`` holding them) and its
block's batteries; the run merges them in task order into the same statistics
one pass computes, and writes every outcome to a csv file in the ``etg rng draws``
format, so the lab can re-run ``etg cert analyze`` on exactly what was tested. The raw
stream is one sequence of one DRBG, drawn here. ``--checkpoint`` resumes a killed run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from etgcore.cli_context import CommandContext
from etgcore.errors import UserError
from rng.cert import dieharder
from rng.cert.analyze import progress_bar
from rng.cert.battery import OutcomeBattery
from rng.cert.frequency import IndependenceCounter
from rng.cert.meta import RunMetadata, utc_now
from rng.cert.nist.stream_suite import StreamSuite
from rng.cert.report import Report
from rng.cert.run_report import kat_text, report_sections, run_metadata
from rng.cert.shuffles import ShuffleBattery
from rng.cert.sp80022 import BitBattery, BitParams
from rng.cert.tables import OutcomeTable, card_table
from rng.cert.tasks import (
    TASK_DRAWS,
    DrawSpec,
    TaskResult,
    WorkerRecord,
    draw_task,
    plan,
    stream_seed,
    take_lines,
)

CHUNK = 1 << 16


@dataclass(frozen=True)
class RunOptions:
    draws: int
    out: Path
    stream_bytes: int = 10 << 20
    shoes: int | None = None  # default: max(520, draws // 100), at most 20000
    decks: int = 8
    spanish: bool = False
    seed_hex: str | None = None
    scaling: str = "table"
    dieharder_tests: tuple[int, ...] | None = dieharder.QUICK_TESTS  # None: -a
    run_dieharder: bool = True
    progress: bool | None = None
    command: str = "etg cert run"
    jobs: int = 1  # local worker processes (1 and no scheduler: this process)
    scheduler: str | None = None
    checkpoint: Path | None = None
    task_draws: int | None = None  # draws per task (default rng.cert.tasks.TASK_DRAWS)

    @property
    def shoe_count(self) -> int:
        if self.shoes is not None:
            return self.shoes
        return int(min(20_000, max(520, self.draws // 100)))


class _Files:
    """csv files in the `etg rng draws` format, hashed as they are written."""

    NAMES = ("targets.csv", "multipliers.csv", "cards.csv", "shuffles.csv")

    def __init__(self, out: Path, sizes: dict[str, int] | None = None) -> None:
        """Open the files; ``sizes`` (a resumed run): keep that much of each, rehashed."""
        self.dir = out / "draws"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.open: dict[str, tuple[BinaryIO, Any]] = {}
        for name in self.NAMES:
            keep = (sizes or {}).get(name, 0)
            h = hashlib.sha256()
            path = self.dir / name
            out_fh: BinaryIO
            if keep:
                with path.open("rb") as src:
                    left = keep
                    while left > 0:
                        block = src.read(min(left, 1 << 22))
                        if not block:
                            raise UserError(f"{path}: shorter than its checkpoint says; "
                                            "start the run again without the checkpoint")
                        h.update(block)
                        left -= len(block)
                out_fh = path.open("r+b")
                out_fh.truncate(keep)
                out_fh.seek(keep)
            else:
                out_fh = path.open("wb")
            self.open[name] = (out_fh, h)

    def write(self, name: str, data: bytes) -> None:
        fh, h = self.open[name]
        fh.write(data)
        h.update(data)

    def sizes(self) -> dict[str, int]:
        for fh, _ in self.open.values():
            fh.flush()
        return {name: fh.tell() for name, (fh, _) in self.open.items()}

    def close(self) -> list[tuple[str, int, str]]:
        out = []
        for name, (fh, h) in self.open.items():
            fh.close()
            out.append((f"draws/{name}", (self.dir / name).stat().st_size, h.hexdigest()))
        return out


def _chunks(total: int, size: int = CHUNK) -> Iterator[int]:
    left = total
    while left > 0:
        k = min(size, left)
        yield k
        left -= k


def _stream(rng: Any, opts: RunOptions, out: Path, bar: Any
            ) -> tuple[tuple[BitBattery, StreamSuite], str]:
    """Draw the raw stream into stream.bin, through the streaming tests on it as one
    sequence and the full SP 800-22 suite on its sequences of 10^6 bits."""
    bits = BitBattery(BitParams.for_length(opts.stream_bytes * 8))
    suite = StreamSuite()
    h = hashlib.sha256()
    with (out / "stream.bin").open("wb") as fh:
        for k in _chunks(opts.stream_bytes, 1 << 20):
            data = rng.random_bytes(k)
            fh.write(data)
            h.update(data)
            bits.update_bytes(data)
            suite.update(data)
            bar.update(k)
    return (bits, suite), h.hexdigest()


def _refuse_bad_options(cfg: Any, opts: RunOptions) -> None:
    """One line and exit 2 for what a run cannot be asked (before anything is written)."""
    if opts.seed_hex and not cfg.bench:
        raise UserError("--seed is a bench power; production mode (table.mode = "
                        "production) refuses it")
    if opts.draws < 100:
        raise UserError(f"--draws must be at least 100, got {opts.draws}")
    if opts.stream_bytes < 16:
        raise UserError(f"--stream-bytes must be at least 16, got {opts.stream_bytes}")


def certification_run(cfg: Any, opts: RunOptions, ctx: CommandContext,
                      open_rng: Callable[[Any, bool], Any] | None = None,
                      tables: tuple[OutcomeTable, OutcomeTable] | None = None,
                      progress: Any = None) -> Report:
    """Run everything and write the report into ``opts.out``; returns the judged report.

    ``ctx`` (from the command line) names the program: its version, its files' digests,
    the configuration's fingerprint and the Rules Submission holding the Bingo weights.
    """
    from rng import RngUnavailable, open_table_rng
    from rng.selftest import power_up_selftest

    _refuse_bad_options(cfg, opts)
    if tables is None:
        from rng.cert.tables import configured_bingo_tables

        tables = configured_bingo_tables(ctx.rules_file("bingo"), cfg.rules)
        if tables is None:
            raise UserError("no Bingo weights: firmware/rules/bingo.toml is missing and the "
                            "configuration has no rules.target_weights; pass "
                            "--target-weights and --multiplier-weights")
    out = opts.out
    out.mkdir(parents=True, exist_ok=True)
    settings = cfg.rng
    seed = opts.seed_hex or (settings.seed_hex if cfg.bench else "")
    if opts.seed_hex:
        try:
            bytes.fromhex(opts.seed_hex)
        except ValueError:
            raise UserError(f"--seed: {opts.seed_hex!r} is not hexadecimal") from None
        settings = dataclasses.replace(settings, seed_hex=opts.seed_hex)
    meta = run_metadata(cfg, opts, ctx, settings, seed)
    checks = power_up_selftest(settings.mechanism)
    meta.extra["RNG power-up known-answer tests"] = kat_text(settings.mechanism, checks)
    selftest = [c.line() for c in checks]
    rep = Report("ETG RNG certification run", meta, [], selftest=selftest,
                 selftest_ok=all(c.ok for c in checks),
                 selftest_failed=[c.line() for c in checks if not c.ok])
    if not rep.selftest_ok:
        rep.external_note = "Not run: the power-up self-test failed, the RNG is unavailable."
        meta.finished = utc_now()
        _finish(rep, out, [])
        return rep
    tw, mw = tables
    cards = card_table(spanish=opts.spanish)
    spec = DrawSpec(dataclasses.replace(settings, seed_hex=""), cfg.bench, seed, opts.scaling,
                    tw, mw, cards, opts.decks, opts.draws)
    merged = _Merged(spec, opts.shoe_count)
    units = 2 * opts.draws + opts.shoe_count + opts.stream_bytes // 1024
    bar = progress or progress_bar(units, "cert run", "outcomes", enabled=opts.progress)
    try:
        bar.set_description("cert run: draws and shuffles")
        files = _draw_all(spec, opts, merged, meta, bar)
        bar.set_description("cert run: raw stream")
        stream_settings = settings
        if seed:
            stream_settings = dataclasses.replace(settings, seed_hex=stream_seed(seed))
        opener = open_rng or (lambda s, bench: open_table_rng(s, bench=bench))
        try:
            rng = opener(stream_settings, cfg.bench)
        except RngUnavailable as exc:
            raise UserError(f"RNG unavailable: {exc.cause}") from None
        try:
            bits, stream_sha = _stream(rng, opts, out, _KiloBar(bar))
            bar.close()
            lab_files = [("stream.bin", opts.stream_bytes, stream_sha), *files.close()]
            _external(rep, rng, opts)
            meta.extra.update(getattr(rng, "operating_state", list)())  # as it ran
        finally:
            rng.close()
    finally:
        bar.close()
    for w in merged.workers.values():
        rep.selftest += [f"worker {w.name} ({w.source}): {line}" for line in w.selftest]
        rep.selftest_failed += [f"worker {w.name} ({w.source}): {line}" for line in w.failed]
        rep.selftest_ok = rep.selftest_ok and w.ok
    rep.sections = report_sections(merged, out, opts.stream_bytes, tables, cards, bits)
    meta.finished = utc_now()
    _finish(rep, out, lab_files)
    return rep


class _Merged:
    """The run's batteries: each task's blocks merged in task order."""

    def __init__(self, spec: DrawSpec, shoes: int) -> None:
        self.targets = OutcomeBattery(spec.targets, spec.draws)
        self.multipliers = OutcomeBattery(spec.multipliers, spec.draws)
        self.cards = OutcomeBattery(spec.cards, spec.draws)
        self.pairs = IndependenceCounter(spec.targets.k, spec.multipliers.k,
                                         "Bingo draws (target, multiplier)")
        self.shoes = ShuffleBattery(np.full(spec.cards.k, spec.decks))
        self.workers: dict[str, WorkerRecord] = {}
        self.tasks = 0

    def add(self, r: TaskResult) -> None:
        self.targets.merge(r.targets)
        self.multipliers.merge(r.multipliers)
        self.cards.merge(r.cards)
        self.pairs.merge(r.pairs)
        self.shoes.merge(r.shoes)
        self.workers.setdefault(r.worker.name, r.worker)
        self.tasks += 1


def _draw_all(spec: DrawSpec, opts: RunOptions, merged: _Merged, meta: RunMetadata,
              bar: Any) -> _Files:
    """Every task drawn (here or on the cluster), merged in order, written to the files."""
    from lab.checkpoint import Checkpoint
    from lab.tasks import Task, run_here, run_tasks

    blocks = plan(opts.draws, opts.shoe_count, opts.task_draws or TASK_DRAWS[opts.scaling])

    def tasks_of(spec: DrawSpec) -> list[Task]:
        return [Task(b.index, 2 * (b.hi - b.lo) + b.shoe_hi - b.shoe_lo, (spec, b))
                for b in blocks]

    tasks = tasks_of(spec)
    ck = None
    sizes: dict[str, int] = {}
    if opts.checkpoint is not None:
        ck = Checkpoint(opts.checkpoint, _identity(spec, opts))
        ck.open()
        for index in sorted(ck.done):
            result, sizes = ck.done[index]
            merged.add(result)
            bar.update(tasks[index].units)
    files = _Files(opts.out, sizes)
    # the workers' csv lines on their way (local cluster; absolute: not the workers' cwd)
    spool = files.dir.resolve() / ".spool"

    def fold(task: Task, r: TaskResult) -> None:
        for name, text in take_lines(r).items():
            files.write(name, text)
        merged.add(r)
        if ck is not None:
            ck.append(task.index, (r.without_outcomes(), files.sizes()))

    where = "this process"
    done = ck.done if ck is not None else {}
    try:
        if (opts.jobs == 1 or len(tasks) - len(done) <= 1) and opts.scheduler is None:
            run_here(draw_task, tasks, fold, skip=done, progress=bar)
        else:
            from lab.cluster import describe, open_client

            with open_client(opts.scheduler, opts.jobs) as client:
                info = describe(client)
                where = info.describe()
                if info.local:  # its workers share this disk
                    shutil.rmtree(spool, ignore_errors=True)  # a killed run's parts
                    spool.mkdir()
                    tasks = tasks_of(dataclasses.replace(spec, spool=str(spool)))
                run_tasks(client, draw_task, tasks, fold, skip=done, progress=bar)
    finally:
        if ck is not None:
            ck.close()
        shutil.rmtree(spool, ignore_errors=True)  # an interrupted run's too
    size = blocks[0].hi - blocks[0].lo
    meta.extra["ran on"] = where
    meta.extra["tasks"] = (
        f"{len(blocks)} of {size:,} Bingo and card draws each (shoes spread evenly); "
        + ("task i's DRBG seeded with SHA-256('etg cert task|' + seed + i as 8 bytes)"
           if spec.seed_hex else "each worker's own DRBG from its own entropy source")
        + (f"; {len(done)} read from the checkpoint" if done else ""))
    return files


def _identity(spec: DrawSpec, opts: RunOptions) -> dict[str, Any]:
    return {"command": "etg cert run", "draws": opts.draws, "shoes": opts.shoe_count,
            "decks": opts.decks, "spanish": opts.spanish, "seed": spec.seed_hex,
            "scaling": opts.scaling, "task_draws": opts.task_draws, "targets": spec.targets.weights,
            "multipliers": spec.multipliers.weights, "mechanism": spec.settings.mechanism,
            "bench": spec.bench}


class _KiloBar:
    """Counts bytes into a bar that counts kilobytes."""

    def __init__(self, bar: Any) -> None:
        self.bar = bar
        self.rest = 0

    def update(self, n: int) -> None:
        self.rest += n
        self.bar.update(self.rest // 1024)
        self.rest %= 1024


def _external(rep: Report, rng: Any, opts: RunOptions) -> None:
    exe = dieharder.available()
    if not opts.run_dieharder:
        rep.external_note = "dieharder not requested (--dieharder none)."
        return
    if exe is None:
        rep.external_note = ("dieharder is not installed on this machine, so it was not run. "
                             "Install it (`make rng-check` does) and rerun, or run it on the "
                             "live stream: `etg rng stream | dieharder -g 200 -a`.")
        return
    lines, note = dieharder.run(rng.random_bytes, opts.dieharder_tests, exe)
    rep.external = [d.raw for d in lines]
    weak = sum(1 for d in lines if d.assessment.upper() == "WEAK")
    failed = sum(1 for d in lines if d.assessment.upper() == "FAILED")
    rep.external_note = f"{note} PASSED {len(lines) - weak - failed}, WEAK {weak}, " \
                        f"FAILED {failed} (dieharder's own assessment)."


def _finish(rep: Report, out: Path, lab_files: list[tuple[str, int, str]]) -> None:
    from rng.cert import report

    rep.files = lab_files
    rep.judge()
    report.write(rep, out)

