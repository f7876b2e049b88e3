"""`etg cert run`: a whole certification run, from power-up KATs to the signed-off report.

The run exercises the RNG the way the table does: it opens it with
:func:`rng.open_table_rng` from the table configuration (so the configured mechanism,
entropy source and power-up self-test apply), then draws

* N Bingo draws with ``TableRng.draw_bingo`` and the Rules Submission weights: the very
  call the table makes (target and multiplier from disjoint bits, exact integer scaling);
* N card draws with ``TableRng.randbelow(52)`` (48 for a Spanish deck);
* S full shoes shuffled with ``TableRng.shuffle`` (the Fisher-Yates of :mod:`rng.scaling`
  that :func:`rng.shoe.shuffled_shoe` uses);
* a raw stream of B bytes (``TableRng.random_bytes``) for the SP 800-22 tests, written
  to ``stream.bin`` for the lab's own batteries, and fed live to ``dieharder``.

``--scaling batch`` draws through :func:`rng.lab.outcomes` instead (the vectorized
:mod:`rng.batch` path of ``etg rng draws``), about 100x faster, for very large N.
Every outcome goes to the battery in chunks as it is drawn and to a csv file in the
``etg rng draws`` format, so the lab can re-run ``etg cert analyze`` on exactly what
was tested.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from firmware.errors import UserError
from rng.cert import dieharder
from rng.cert.analyze import (
    independence_plot,
    outcome_section,
    progress_bar,
    shuffle_section,
)
from rng.cert.battery import OutcomeBattery
from rng.cert.frequency import IndependenceCounter
from rng.cert.meta import RunMetadata, config_hash, program_files, program_hash, utc_now
from rng.cert.report import Report, Section
from rng.cert.shuffles import ShuffleBattery
from rng.cert.sp80022 import BitBattery, BitParams
from rng.cert.tables import OutcomeTable, card_table

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

    @property
    def shoe_count(self) -> int:
        if self.shoes is not None:
            return self.shoes
        return int(min(20_000, max(520, self.draws // 100)))


class _Files:
    """csv files in the `etg rng draws` format, hashed as they are written."""

    def __init__(self, out: Path) -> None:
        self.dir = out / "draws"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.open: dict[str, tuple[BinaryIO, Any]] = {}

    def write(self, name: str, data: bytes) -> None:
        if name not in self.open:
            self.open[name] = ((self.dir / name).open("wb"), hashlib.sha256())
        fh, h = self.open[name]
        fh.write(data)
        h.update(data)

    def close(self) -> list[tuple[str, int, str]]:
        out = []
        for name, (fh, h) in self.open.items():
            fh.close()
            out.append((f"draws/{name}", (self.dir / name).stat().st_size, h.hexdigest()))
        return out


def _lines(values: list[str]) -> bytes:
    return ("\n".join(values) + "\n").encode("ascii")


def _chunks(total: int, size: int = CHUNK) -> Iterator[int]:
    left = total
    while left > 0:
        k = min(size, left)
        yield k
        left -= k


def _bingo(rng: Any, opts: RunOptions, tw: OutcomeTable, mw: OutcomeTable, files: _Files,
           bar: Any) -> tuple[OutcomeBattery, OutcomeBattery, IndependenceCounter]:
    tbat = OutcomeBattery(tw, opts.draws)
    mbat = OutcomeBattery(mw, opts.draws)
    ind = IndependenceCounter(tw.k, mw.k, "Bingo draws (target, multiplier)")
    tvals = [int(v) for v in tw.labels]
    mvals = [int(v) for v in mw.labels]
    tmap = {v: i for i, v in enumerate(tvals)}
    mmap = {v: i for i, v in enumerate(mvals)}
    tweights = dict(zip(tvals, tw.weights, strict=True))
    mweights = dict(zip(mvals, mw.weights, strict=True))
    round_no = 0
    for k in _chunks(opts.draws):
        if opts.scaling == "batch":
            from rng.lab import outcomes

            tv = next(outcomes(rng.random_bytes, "target", k, weights=tweights))
            mv = next(outcomes(rng.random_bytes, "multiplier", k, weights=mweights))
            t = np.searchsorted(tvals, tv).astype(np.uint8)
            m = np.searchsorted(mvals, mv).astype(np.uint8)
        else:
            t = np.empty(k, dtype=np.uint8)
            m = np.empty(k, dtype=np.uint8)
            for i in range(k):
                round_no += 1
                d = rng.draw_bingo(round_no, tweights, mweights)
                t[i] = tmap[d.target]
                m[i] = mmap[d.multiplier]
        tbat.update(t)
        mbat.update(m)
        ind.update(t, m)
        files.write("targets.csv", _lines([tw.labels[i] for i in t.tolist()]))
        files.write("multipliers.csv", _lines([mw.labels[i] for i in m.tolist()]))
        bar.update(k)
    return tbat, mbat, ind


def _cards(rng: Any, opts: RunOptions, table: OutcomeTable, files: _Files, bar: Any
           ) -> OutcomeBattery:
    bat = OutcomeBattery(table, opts.draws)
    for k in _chunks(opts.draws):
        if opts.scaling == "batch":
            from rng.batch import randbelow_batch

            c = randbelow_batch(rng.random_bytes, table.k, k).astype(np.uint8)
        else:
            c = np.fromiter((rng.randbelow(table.k) for _ in range(k)), dtype=np.uint8, count=k)
        bat.update(c)
        files.write("cards.csv", _lines([table.labels[i] for i in c.tolist()]))
        bar.update(k)
    return bat


def _shoes(rng: Any, opts: RunOptions, codes: tuple[str, ...], files: _Files, bar: Any
           ) -> ShuffleBattery:
    base = np.tile(np.arange(len(codes), dtype=np.int64), opts.decks)
    bat = ShuffleBattery(np.full(len(codes), opts.decks))
    per = max(1, CHUNK // base.size)
    for k in _chunks(opts.shoe_count, per):
        if opts.scaling == "batch":
            from rng.batch import shuffle_batch

            rows = shuffle_batch(rng.random_bytes, base, k)
        else:
            rows = np.empty((k, base.size), dtype=np.int64)
            for i in range(k):
                shoe = base.tolist()
                rng.shuffle(shoe)
                rows[i] = shoe
        bat.update(rows)
        files.write("shuffles.csv", _lines([",".join(codes[j] for j in row)
                                            for row in rows.tolist()]))
        bar.update(k)
    return bat


def _stream(rng: Any, opts: RunOptions, out: Path, bar: Any) -> tuple[BitBattery, str]:
    bits = BitBattery(BitParams.for_length(opts.stream_bytes * 8))
    h = hashlib.sha256()
    with (out / "stream.bin").open("wb") as fh:
        for k in _chunks(opts.stream_bytes, 1 << 20):
            data = rng.random_bytes(k)
            fh.write(data)
            h.update(data)
            bits.update_bytes(data)
            bar.update(k)
    return bits, h.hexdigest()


def certification_run(cfg: Any, opts: RunOptions,
                      open_rng: Callable[[Any, bool], Any] | None = None,
                      tables: tuple[OutcomeTable, OutcomeTable] | None = None) -> Report:
    """Run everything and write the report into ``opts.out``; returns the judged report."""
    from rng import RngUnavailable, open_table_rng
    from rng.selftest import power_up_selftest

    if opts.seed_hex and not cfg.bench:
        raise UserError("--seed is a bench power; production mode (table.mode = "
                        "production) refuses it")
    if opts.draws < 100:
        raise UserError(f"--draws must be at least 100, got {opts.draws}")
    if opts.stream_bytes < 16:
        raise UserError(f"--stream-bytes must be at least 16, got {opts.stream_bytes}")
    if tables is None:
        from rng.cert.tables import configured_bingo_tables

        tables = configured_bingo_tables(cfg.rules)
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
    files_list = program_files()
    meta = RunMetadata(command=opts.command, mechanism=settings.mechanism,
                       mode=cfg.table.mode, seed_hex=seed, config_source=cfg.source,
                       config_hash=config_hash(dataclasses.replace(cfg, rng=settings)),
                       program_hash=program_hash(files_list),
                       program_file_count=len(files_list))
    (out / "program-files.txt").write_text(
        "".join(f"{digest}  {name}\n" for name, digest in files_list), encoding="utf-8")
    meta.extra["scaling path"] = ("TableRng.draw_bingo / randbelow / shuffle (the table's "
                                  "own calls)" if opts.scaling == "table" else
                                  "rng.batch via rng.lab.outcomes (etg rng draws)")
    checks = power_up_selftest(settings.mechanism)
    selftest = [c.line() for c in checks]
    rep = Report("ETG RNG certification run", meta, [], selftest=selftest,
                 selftest_ok=all(c.ok for c in checks))
    if not rep.selftest_ok:
        rep.external_note = "Not run: the power-up self-test failed, the RNG is unavailable."
        meta.finished = utc_now()
        _finish(rep, out, [])
        return rep
    opener = open_rng or (lambda s, bench: open_table_rng(s, bench=bench))
    try:
        rng = opener(settings, cfg.bench)
    except RngUnavailable as exc:
        raise UserError(f"RNG unavailable: {exc.cause}") from None
    tw, mw = tables
    cards = card_table(spanish=opts.spanish)
    files = _Files(out)
    units = 2 * opts.draws + opts.shoe_count + opts.stream_bytes // 1024
    bar = progress_bar(units, "cert run", enabled=opts.progress)
    try:
        bar.set_description("Bingo draws")
        tbat, mbat, ind = _bingo(rng, opts, tw, mw, files, bar)
        bar.set_description("card draws")
        cbat = _cards(rng, opts, cards, files, bar)
        bar.set_description("shuffles")
        sbat = _shoes(rng, opts, cards.labels, files, bar)
        bar.set_description("raw stream")
        kb_bar = _KiloBar(bar)
        bits, stream_sha = _stream(rng, opts, out, kb_bar)
        bar.close()
        lab_files = [("stream.bin", opts.stream_bytes, stream_sha), *files.close()]
        _external(rep, rng, opts)
    finally:
        bar.close()
        rng.close()
    pair = Section("Target x multiplier independence", ind.results(),
                   plots=[independence_plot(ind, out, list(tw.labels), list(mw.labels))])
    rep.sections = [
        outcome_section(tbat, out, "target"),
        outcome_section(mbat, out, "multiplier"),
        pair,
        outcome_section(cbat, out, "card"),
        shuffle_section(sbat, out, list(cards.labels)),
        Section(f"Raw DRBG stream ({opts.stream_bytes:,} bytes, NIST SP 800-22)",
                bits.results(), notes=["The stream is one sequence of n bits, most "
                                       "significant bit of each byte first."]),
    ]
    meta.finished = utc_now()
    _finish(rep, out, lab_files)
    return rep


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

