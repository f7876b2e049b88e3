"""`make bench` figures of the certification battery: outcomes analysed per second.

Each measurement runs ``etg cert analyze``'s code (file parsing + the whole battery) in a
fresh child process, so its peak memory (max RSS) is its own. The issue's target is
10^8 outcomes in under 10 minutes on the 2-core machine; the default run measures 10^7
per kind and extrapolates linearly (every test is one streaming pass), and
``ETG_CERT_BENCH_N=100000000`` measures the full 10^8.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from rng.cert.analyze import analyze_outcomes
from rng.cert.tables import bingo_table, card_table
kind, path = sys.argv[1], Path(sys.argv[2])
table = card_table() if kind == "card" else bingo_table(kind, json.loads(sys.argv[3]))
t0 = time.perf_counter()
sec = analyze_outcomes(path, table, progress=False)
dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "tests": len(sec.results),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

WEIGHTS = {"target": [30, 25, 20, 15, 10, 8, 6, 4, 3, 2], "multiplier": [500, 300, 150, 40, 8, 2]}


def _write(path: Path, kind: str, n: int) -> None:
    from rng.cert.tables import bingo_table, card_table

    table = card_table() if kind == "card" else bingo_table(kind, WEIGHTS[kind])
    rng = np.random.default_rng(2024)
    lines = np.array([lab.encode() + b"\n" for lab in table.labels], dtype=object)
    with path.open("wb") as fh:
        for start in range(0, n, 1 << 20):
            idx = rng.choice(table.k, size=min(1 << 20, n - start), p=table.probabilities)
            fh.write(b"".join(lines[idx].tolist()))


def run() -> Iterator[str]:
    n = int(float(os.environ.get("ETG_CERT_BENCH_N", "1e7")))
    yield (f"etg cert analyze on csv draw files of {n:,} outcomes (numpy PCG64 draws with "
           "the sample Bingo weights); parse + every test, one child process per file")
    yield "rerun: python -m benchmarks cert  (ETG_CERT_BENCH_N=100000000 for 10^8)"
    with tempfile.TemporaryDirectory(prefix="etg-cert-bench-") as tmp:
        for kind in ("card", "target", "multiplier"):
            path = Path(tmp) / f"{kind}.csv"
            _write(path, kind, n)
            out = subprocess.run(
                [sys.executable, "-c", _CHILD, kind, str(path), json.dumps(WEIGHTS.get(kind))],
                capture_output=True, text=True, check=True)
            res = json.loads(out.stdout.strip().splitlines()[-1])
            secs = res["seconds"]
            rate = n / secs
            yield (f"{kind:10} {n:>12,} outcomes {secs:7.1f} s  {rate / 1e6:5.2f} M/s  "
                   f"{res['tests']} tests  peak RSS {res['rss_mb']:.0f} MB  -> 10^8 in "
                   f"{1e8 / rate / 60:.1f} min (linear; target < 10 min)")
            path.unlink()
        yield from _bits_rate()


def _bits_rate() -> Iterator[str]:
    from rng.cert.sp80022 import BitBattery, BitParams

    nbytes = 10 << 20
    data = np.random.default_rng(7).integers(0, 256, size=nbytes, dtype=np.uint8)
    bat = BitBattery(BitParams.for_length(nbytes * 8))
    t0 = time.perf_counter()
    for start in range(0, nbytes, 1 << 20):
        bat.update_bytes(data[start : start + (1 << 20)])
    bat.results()
    dt = time.perf_counter() - t0
    yield (f"SP 800-22 tests (7 tests, 9 p-values) on {nbytes * 8:,} bits: {dt:.1f} s, "
           f"{nbytes / dt / 1e6:.1f} MB/s")
