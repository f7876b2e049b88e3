"""`etg cert analyze`: the battery on a draw file a lab captured (or `etg rng draws` wrote).

The file is streamed in blocks, so its size is bounded only by the disk. The result is a
:class:`~rng.cert.report.Report` (printed as a table; written in full with ``--out``)
judged exactly like a certification run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt

from etgcore.errors import UserError
from etgcore.progress import Progress, wanted
from rng.cert import plots
from rng.cert.battery import OutcomeBattery
from rng.cert.frequency import IndependenceCounter
from rng.cert.meta import RunMetadata, utc_now
from rng.cert.readers import read_outcomes, read_shoes
from rng.cert.report import Report, Section
from rng.cert.results import TestResult
from rng.cert.shuffles import ShuffleBattery
from rng.cert.tables import CARDS, OutcomeTable


def progress_bar(total: int, desc: str, unit: str = "it", *, enabled: bool | None = None
                 ) -> Progress:
    """The progress line on stderr (:mod:`etgcore.progress`), shown on a terminal for long
    jobs (``enabled`` forces it on or off)."""
    return Progress(total, unit, desc, enabled=wanted(enabled))


def outcome_section(bat: OutcomeBattery, out_dir: Path | None, slug: str,
                    extra: list[TestResult] | None = None, notes: list[str] | None = None
                    ) -> Section:
    results = bat.results() + list(extra or [])
    sec = Section(f"{bat.subject} ({bat.n:,} outcomes)", results,
                  notes=[f"Configured weights: {bat.table.describe()}.", *(notes or [])])
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        data = bat.plot_data()
        plots.frequencies(out_dir / f"{slug}-counts.png", bat.subject, data)
        plots.correlations(out_dir / f"{slug}-serial.png", bat.subject, data)
        sec.plots += [(f"{slug}-counts.png", f"{bat.subject}: observed and expected counts"),
                      (f"{slug}-serial.png", f"{bat.subject}: autocorrelation, lags 1-10")]
    return sec


def independence_plot(counter: IndependenceCounter, out_dir: Path, tlabels: list[str],
                      mlabels: list[str]) -> tuple[str, str]:
    t = counter.table.astype(float)
    n = max(t.sum(), 1.0)
    exp = np.outer(t.sum(axis=1), t.sum(axis=0)) / n
    resid = np.where(exp > 0, (t - exp) / np.sqrt(np.where(exp > 0, exp, 1)), 0.0)
    name = "independence.png"
    plots.heatmap(out_dir / name, "target x multiplier: standardized residuals", resid,
                  "multiplier index (" + " ".join(mlabels) + ")",
                  "target index (" + " ".join(tlabels) + ")")
    return name, "target x multiplier contingency residuals"


def shuffle_section(bat: ShuffleBattery, out_dir: Path | None, codes: list[str]) -> Section:
    sec = Section(f"{bat.subject} ({bat.shoes:,} shoes of {bat.n} cards)", bat.results(),
                  notes=[f"{bat.k} card codes, each {int(bat.m.min())}"
                         f"{'' if bat.m.min() == bat.m.max() else '-' + str(int(bat.m.max()))}"
                         " times per shoe."])
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        data = bat.plot_data()
        plots.heatmap(out_dir / "shuffle-positions.png",
                      "card-by-position matrix: standardized residuals",
                      np.asarray(data["position_residuals"]), "position in the shoe",
                      "card code (AS..KC)")
        sec.plots.append(("shuffle-positions.png", "card x position residuals"))
        if data["pair_residuals"] is not None:
            plots.heatmap(out_dir / "shuffle-pairs.png",
                          "adjacent pairs: standardized residuals",
                          np.asarray(data["pair_residuals"]), "next card", "card")
            sec.plots.append(("shuffle-pairs.png", "adjacent-pair residuals"))
    return sec


def _estimate_lines(path: Path) -> int:
    try:
        return max(1000, path.stat().st_size // 2)
    except OSError:
        return 10**9


#: the fewest outcomes expected in any cell of a chi-square test for it to mean anything
MIN_EXPECTED = 5


def enough_outcomes(path: Path, n: int, table: OutcomeTable) -> None:
    """A file too short for the battery is bad input, not a pass: the chi-square tests
    need at least MIN_EXPECTED outcomes expected for the least likely value."""
    w = [x for x in table.weights if x > 0]
    need = -(-MIN_EXPECTED * sum(w) // min(w))  # ceil(5 / p_min)
    if n < need:
        raise UserError(f"{path}: {n:,} outcome{'' if n == 1 else 's'} too few for the "
                        f"battery: at least {need:,} are needed ({MIN_EXPECTED} expected for "
                        f"the least likely {table.kind})")


def analyze_outcomes(path: Path, table: OutcomeTable, *, pair: tuple[Path, OutcomeTable] |
                     None = None, out_dir: Path | None = None, progress: bool | None = None
                     ) -> Section | list[Section]:
    """The outcome battery on one file (and, with ``pair``, the independence test)."""
    bat = OutcomeBattery(table, _estimate_lines(path))
    size = path.stat().st_size if path.exists() else 0
    bar = progress_bar(size, path.name, "bytes", enabled=progress if progress is not None else (
        None if size > 50_000_000 else False))
    if pair is None:
        for chunk in read_outcomes(path, table, progress=bar.update):
            bat.update(chunk)
        bar.close()
        enough_outcomes(path, bat.n, table)
        return outcome_section(bat, out_dir, table.kind)
    ppath, ptable = pair
    other = OutcomeBattery(ptable, _estimate_lines(ppath))
    ind = IndependenceCounter(table.k, ptable.k, "Bingo draws (target, multiplier)")
    for a, b in _zip_chunks(read_outcomes(path, table, progress=bar.update),
                            read_outcomes(ppath, ptable), path, ppath):
        bat.update(a)
        other.update(b)
        ind.update(a, b)
    bar.close()
    enough_outcomes(path, bat.n, table)
    enough_outcomes(ppath, other.n, ptable)
    sec_a = outcome_section(bat, out_dir, table.kind)
    sec_b = outcome_section(other, out_dir, ptable.kind)
    pair_sec = Section("Target x multiplier independence", ind.results())
    if out_dir is not None:
        pair_sec.plots.append(independence_plot(ind, out_dir, list(table.labels),
                                                list(ptable.labels)))
    return [sec_a, sec_b, pair_sec]


def _zip_chunks(a: Iterator[npt.NDArray[np.uint8]], b: Iterator[npt.NDArray[np.uint8]],
                pa: Path, pb: Path) -> Iterator[tuple[npt.NDArray[np.uint8],
                                                      npt.NDArray[np.uint8]]]:
    """Pairs of equal-length chunks from two files read in step."""
    buf_b = np.zeros(0, dtype=np.uint8)
    for chunk in a:
        while buf_b.size < chunk.size:
            nxt = next(b, None)
            if nxt is None:
                raise UserError(f"{pb}: fewer lines than {pa}: the files must pair line by line")
            buf_b = np.concatenate([buf_b, nxt])
        yield chunk, buf_b[: chunk.size]
        buf_b = buf_b[chunk.size :]
    if buf_b.size or next(b, None) is not None:
        raise UserError(f"{pb}: more lines than {pa}: the files must pair line by line")


def analyze_shoes(path: Path, *, out_dir: Path | None = None, progress: bool | None = None
                  ) -> Section:
    size = path.stat().st_size if path.exists() else 0
    bar = progress_bar(size, path.name, "bytes", enabled=progress if progress is not None else (
        None if size > 50_000_000 else False))
    bat: ShuffleBattery | None = None
    remap = np.zeros(0, dtype=np.int64)
    codes: list[str] = []
    for rows in read_shoes(path, CARDS, progress=bar.update):
        if bat is None:
            m = np.bincount(rows[0], minlength=len(CARDS))
            keep = m > 0
            remap = np.cumsum(keep) - 1
            codes = [c for c, k in zip(CARDS, keep, strict=True) if k]
            bat = ShuffleBattery(m[keep])
        bat.update(remap[rows])
    bar.close()
    assert bat is not None  # read_shoes raises on an empty file
    need = -(-MIN_EXPECTED * bat.n // int(bat.m.min()))  # expected shoes*m/n per cell
    if bat.shoes < need:
        raise UserError(f"{path}: {bat.shoes:,} shoe{'' if bat.shoes == 1 else 's'} too few "
                        f"for the battery: the card-by-position test needs at least {need:,} "
                        f"({MIN_EXPECTED} expected per card and position)")
    return shuffle_section(bat, out_dir, codes)


def analyze_report(path: Path, what: str, sections: Section | list[Section],
                   command: str, version: str) -> Report:
    meta = RunMetadata(command=command, program_version=version)
    meta.extra["file analysed"] = f"{path} ({what})"
    secs = sections if isinstance(sections, list) else [sections]
    rep = Report("ETG RNG outcome analysis", meta, secs)
    rep.external_note = "Not run by `etg cert analyze` (it works on scaled outcomes)."
    meta.finished = utc_now()
    rep.judge()
    return rep
