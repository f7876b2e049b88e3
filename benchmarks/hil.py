"""`make bench` figures of the hil bench: scenarios per second against the real service,
and soak rounds per second with faults."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from benchmarks import CHECKOUT
from firmware.bench.hil_target import HilTarget
from firmware.bench.runner import run_one
from firmware.bench.soak import Soak

ROOT = CHECKOUT
#: a mix of variants, decisions and faults (no 500-press wagers, no link-down silences)
SCENARIOS = (
    "blackjack/01-dealing-order-stand-win.toml",
    "blackjack/09-split-eights-633a11b.toml",
    "blackjack/17-three-seats-dealing-order.toml",
    "split-to-double/04-double-four-times.toml",
    "bingo/01-blackjack-on-21-at-10x.toml",
    "free-bet/01-free-split-lammer-wins.toml",
    "faults/03-jam-cleared-resume.toml",
    "faults/10-empty-mid-round-void.toml",
)


def scenario_files() -> list[str]:
    """The scenario files timed; a missing one is an error, never a smaller benchmark."""
    files = [ROOT / "tests" / "scenarios" / f for f in SCENARIOS]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise FileNotFoundError(f"hil benchmark: scenario file(s) missing: {missing}")
    return [str(f) for f in files]


def hil_benchmark() -> Iterator[str]:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    yield "what: scenario files at hil depth: a fresh `etg run` process per file (bench mode,"
    yield "      new journal), bench shoe on a pty, presses through the simulated key matrix,"
    yield "      outcome from the journal; and an auto-played soak with injected faults"
    yield "rerun: python -m benchmarks bench"
    yield f"machine load average (1 min) at start: {load:.2f} on {os.cpu_count()} cores"
    files = scenario_files()
    t0 = time.perf_counter()
    results = [run_one(f, HilTarget) for f in files]
    wall = time.perf_counter() - t0
    passed = sum(r.passed for r in results)
    rounds = sum(_rounds(f) for f in files)
    yield (f"hil scenarios: {len(files) / wall:.2f} scenarios/s ({len(files)} files, "
           f"{rounds} rounds, {wall:.1f} s, {passed} passed; service start included)")
    yield from sas_host_hil(files)
    res = Soak("blackjack", 30, 0.0, seed=5).run()
    ok = "invariants held" if res.ok else "INVARIANT VIOLATED"
    yield (f"soak blackjack, 3 auto seats, no faults: {res.rate:.2f} rounds/s "
           f"({res.rounds} rounds in {res.seconds:.1f} s; {ok})")
    yield from fault_soak()


#: the longer fault soak of every game (make test runs 6 rounds of each)
SOAK_ROUNDS, SOAK_FAULTS, SOAK_KILL_EVERY = 40, 1.0, 10


def fault_soak() -> Iterator[str]:
    """Every game soaked with faults and kill -9 restarts, the meters compared with an
    engine replay after every restart and the whole journal proven at the end."""
    from firmware.engine.rules import VARIANTS

    yield (f"fault soak: every game, {SOAK_ROUNDS} rounds, 3 auto seats, --faults "
           f"{SOAK_FAULTS} (shoe faults, link noise, panel bounce, random kill -9) and a "
           f"kill -9 restart every {SOAK_KILL_EVERY} rounds, seed 34")
    total_rounds = total_faults = total_kills = 0
    t0 = time.perf_counter()
    for variant in VARIANTS:
        res = Soak(variant, SOAK_ROUNDS, SOAK_FAULTS, seed=34,
                   kill_every=SOAK_KILL_EVERY).run()
        kills = sum(n for k, n in res.injected.items() if k.startswith("kill -9"))
        faults = sum(res.injected.values())
        total_rounds, total_faults, total_kills = (total_rounds + res.rounds,
                                                   total_faults + faults, total_kills + kills)
        bad = [c.name for c in res.checks if not c.ok]
        yield (f"  {variant}: {res.rounds} rounds in {res.seconds:.1f} s, {faults} "
               f"disturbances ({kills} kill -9), "
               f"{'every invariant held' if not bad else 'VIOLATED: ' + ', '.join(bad)}")
    yield (f"fault soak total: {total_rounds} rounds, {total_faults} disturbances, "
           f"{total_kills} kill -9 restarts, {time.perf_counter() - t0:.0f} s")


def sas_host_hil(files: list[str]) -> Iterator[str]:
    """The same files with the SAS link on and a host polling every seat, the table
    killed with SIGKILL before every round (a host transfer in flight) and restarted;
    each file also held to the host's checks (docs/sas.md)."""
    from firmware.bench.hil_sas import SasHilTarget, run_one_with_host

    yield ("hil with a SAS host: the same files, a host polling every seat (general poll "
           "and 1A, 200 ms per machine), kill -9 before every round with a transfer in "
           "flight, restarted on the same journal")
    t0 = time.perf_counter()
    made: list[SasHilTarget] = []

    def make() -> SasHilTarget:
        made.append(SasHilTarget(kill_every=1))
        return made[-1]

    results = [run_one_with_host(f, make) for f in files]
    wall = time.perf_counter() - t0
    checks: dict[str, list[bool]] = {}
    for t in made:
        for c in t.sas_checks:
            checks.setdefault(c.name, []).append(c.ok)
    lat = sorted(x for t in made for x in t.sas_latencies)
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else float("nan")
    yield (f"hil with a SAS host: {sum(r.passed for r in results)}/{len(files)} files "
           f"passed, {sum(t.kills for t in made)} kill -9 restarts, {len(lat)} general polls "
           f"(p99 {p99:.2f} ms, max {lat[-1] if lat else float('nan'):.2f} ms), "
           f"{wall:.1f} s; " + ", ".join(f"{name} {sum(oks)}/{len(oks)}"
                                       for name, oks in checks.items()))
    for r in results:
        if not r.passed:
            yield f"  FAIL {r.path}: {'; '.join(r.problems)[:300]}"


def _rounds(path: str) -> int:
    from firmware.bench.scenario import load_scenario

    return len(load_scenario(path).rounds)
