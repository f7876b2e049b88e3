"""`make bench` figures of the game math: `etg par` time per variation and per deck count,
the whole PAR sheet's time, Monte Carlo speed (``math``); and every game's certified
figure beside 10^9 fast-path rounds at every deck count checked (``par``, about half an
hour on two cores)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from etgcore.errors import UserError
from firmware.engine.rules import VARIANTS


def run() -> Iterator[str]:
    from firmware.engine.rules import available_variants
    from firmware.math.games.house_edge import analyse
    from firmware.math.ruleset import load
    from firmware.math.simulation.rtp import run_rtp

    have = set(available_variants())
    yield ("etg par (calculation only, default rules of each Rules Submission, uncached: "
           "no disk cache read; target 2 s per game; CPU seconds beside wall seconds, the "
           "machine being shared)")
    yield ("  rerun: python -m benchmarks math   "
           "(or: ETG_NO_CACHE=1 time etg par --variant V)")
    yield ("  per game: the whole command in a fresh process (imports included), then the "
           "calculation alone; a figure meets the target when its wall or its CPU time "
           "is within 2 s (on a quiet machine the wall decides; under load the CPU time "
           "is the better guide, though it also counts numpy's BLAS threads waiting)")
    for v in VARIANTS:
        if v not in have:
            yield f"  {v:<16} not measured: no firmware/rules/{v}.toml yet"
            continue
        rules = load(v)
        cw, cc = _command_uncached(v)
        dt, dc, res = _timed_uncached(analyse, rules)
        yield (f"  {v:<16} etg par {cw:5.2f} s ({cc:5.2f} s CPU; {_verdict(cw, cc)}); "
               f"calculation {dt:5.2f} s ({dc:5.2f} s CPU; {_verdict(dt, dc)})   house "
               f"edge {res.house_edge:.4%}, per unit staked {res.house_edge_total:.4%}")
    yield from farmer_ratio()
    for d in (1, 8):
        cw, cc = _command_uncached("blackjack", f"decks={d}")
        yield (f"  blackjack, {d} deck{'s' if d > 1 else ''}: etg par {cw:5.2f} s ({cc:5.2f} s "
               "CPU; stated, no target)")
    yield from sheets()
    rules = load("blackjack")
    n = 5000
    res_e = run_rtp(rules, n, jobs=1, seed=1)
    yield (f"Monte Carlo through the engine, blackjack, 1 seat, 1 core, {n} rounds: "
           f"{n / res_e.seconds:,.0f} rounds/s per core")
    yield "Monte Carlo fast path: see `python -m benchmarks montecarlo` (next)"


def fast_path_rates(n: int = 10_000_000) -> Iterator[str]:
    """The fast path's rounds per CPU second and per wall second for every game (issue 49:
    10 M a core), its generator (xoshiro256** in the kernel) beside the yardstick in the
    same run: the same kernel drawing from numba's MT19937, as it did before."""
    from firmware.math.ruleset import load
    from firmware.math.simulation.fast_path import play_fast_rounds, warm_up

    yield (f"Monte Carlo fast path (numba), 1 core, {n:,} rounds a run, CPU seconds beside "
           "wall seconds; yardstick: the same kernel on numba's MT19937, runs taking turns "
           "(target 10,000,000 rounds per CPU second)")
    try:
        warm_up(load("blackjack"))  # numba compiles (or loads its cache), not timed
    except UserError as exc:
        yield f"  not measured ({exc})"
        return
    for v in VARIANTS:
        r = load(v)
        warm_up(r)
        play_fast_rounds(r, 100, 0, mt19937=True)
        rate = {}
        for mt in (False, True):
            c0, w0 = time.process_time(), time.perf_counter()
            play_fast_rounds(r, n, 1, mt19937=mt)
            rate[mt] = (n / (time.process_time() - c0), n / (time.perf_counter() - w0))
        (cpu, wall), (mcpu, mwall) = rate[False], rate[True]
        yield (f"  {v:<16} xoshiro256** {cpu / 1e6:5.2f} M rounds per CPU s ({wall / 1e6:5.2f} "
               f"M per wall s); MT19937 {mcpu / 1e6:5.2f} M ({mwall / 1e6:5.2f} M): "
               f"{cpu / mcpu:.2f}x by CPU, {cpu / 1e7:.2f} of the target; "
               f"load {load_average()}")


def sheets() -> Iterator[str]:
    """The whole PAR sheet of each game (every allowed configuration), uncached."""
    import tempfile

    yield ("etg par --out (the whole sheet: every configuration the Rules Submission allows, "
           "Markdown, HTML, JSON and plots; uncached, a fresh process each)")
    from firmware.math.par.configurations import configurations

    for v in VARIANTS:
        with tempfile.TemporaryDirectory() as d:
            wall, cpu = _command_uncached(v, out=d)
        n = len(configurations(v))
        yield (f"  {v:<16} {n:>2} configuration(s): {wall:6.1f} s ({cpu:6.1f} s CPU), "
               f"{wall / n:5.2f} s per configuration")


def farmer_ratio() -> Iterator[str]:
    """Blackjack, 6 decks: ``etg par`` beside Eric Farmer's combinatorial analyzer in the
    same run (issue 49: at most 2x its CPU time). ``ETG_FARMER_ANALYZER`` names an
    executable built in a scratch folder from github.com/possibly-wrong/blackjack (GPL;
    never part of this project): it is run as ``ANALYZER 6 n`` and must print the
    expected value of 6 decks under the shipped rules (docs/math.md, "Speed of the PAR
    calculation", says which rules and how it was built)."""
    import resource
    import subprocess

    exe = os.environ.get("ETG_FARMER_ANALYZER")
    if not exe:
        yield ("  blackjack 6 decks beside Farmer's analyzer: not measured "
               "(set ETG_FARMER_ANALYZER to a built analyzer)")
        return
    best: list[tuple[float, float, float]] = []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([exe, "6", "n"], check=True, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        farmer = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        ours = _command_uncached("blackjack")[1]
        best.append((ours, farmer, float(out.stdout.split()[-1])))
    ours, farmer, ev = min(best)
    farmer = min(b[1] for b in best)
    yield (f"  blackjack 6 decks: etg par {ours:.2f} s CPU beside Farmer's analyzer "
           f"{farmer:.2f} s CPU (its EV {ev:+.6%}): {ours / farmer:.2f}x (target 2x; "
           f"best of 3, load {load_average()})")


def par() -> Iterator[str]:
    """``python -m benchmarks par``: the certified figures beside the fast path."""
    yield from par_checks()
    yield f"  machine load average while measuring: {load_average()} (shared machine)"


def _verdict(wall: float, cpu: float) -> str:
    return "meets the 2 s target" if min(wall, cpu) <= 2.0 else "MISSES the 2 s target"


def _command_uncached(variant: str, *sets: str, out: str | None = None
                     ) -> tuple[float, float]:
    """(wall s, CPU s of the child) of ``etg par --variant V --json`` (``--out``: the
    whole sheet) in a fresh process with the disk cache skipped: what a user's first run
    costs, imports included."""
    import resource
    import subprocess
    import sys

    env = dict(os.environ, ETG_NO_CACHE="1")
    argv = [sys.executable, "-m", "firmware.cli", "par", "--variant", variant,
            "--no-progress"]
    argv += [x for s in sets for x in ("--set", s)]
    argv += ["--out", out] if out else ["--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _timed_uncached(fn: Callable[[Any], Any], rules: Any) -> tuple[float, float, Any]:
    """(wall s, CPU s, result) of ``fn(rules)`` with the disk cache of the Split to
    Double calculation skipped (``ETG_NO_CACHE``), as a first run would take."""
    old = os.environ.get("ETG_NO_CACHE")
    os.environ["ETG_NO_CACHE"] = "1"
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        res = fn(rules)
        return time.perf_counter() - t0, time.process_time() - c0, res
    finally:
        if old is None:
            del os.environ["ETG_NO_CACHE"]
        else:
            os.environ["ETG_NO_CACHE"] = old


def par_checks() -> Iterator[str]:
    """Each game's certified figure beside a seeded fast-path estimate of the same
    strategy, every card removed (issue 36), at every deck count checked
    (:func:`firmware.math.par.check.deck_counts`).

    ``ETG_PAR_CHECK_ROUNDS`` sets the rounds per run (default 10^9), ``ETG_PAR_CHECK_JOBS``
    the worker processes (default: one per core, an embedded Dask cluster); a figure
    agrees when it is within 3 standard errors. The same as
    ``etg par --variant V --check --check-rounds N``.
    """
    from firmware.engine.rules import available_variants
    from firmware.math.par.check import check, deck_counts
    from firmware.math.ruleset import load

    n = int(float(os.environ.get("ETG_PAR_CHECK_ROUNDS", "1e9")))
    jobs = int(os.environ.get("ETG_PAR_CHECK_JOBS", str(os.cpu_count() or 1)))
    yield (f"Certified figure beside the fast path, {n:,} rounds per run (seeded), {jobs} "
           "worker(s), every deck count checked; agreement: within 3 s.e.")
    t0 = time.perf_counter()
    for v in VARIANTS:
        if v not in available_variants():
            continue
        for d in deck_counts(v):
            c = check(load(v, {"decks": d}), n, jobs=jobs)
            yield "  " + c.line() + ("" if abs(c.z) <= 3 else "   OUTSIDE 3 s.e.")
    yield f"  every run: {time.perf_counter() - t0:,.0f} s"


def load_average() -> str:
    """The load average, printed beside every figure taken on a shared machine."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"
