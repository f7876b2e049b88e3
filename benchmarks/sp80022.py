"""`make bench` figures of ``etg cert bits``: all 15 SP 800-22 tests, seconds per 10^6-bit
sequence on one core, and M sequences on the lab's local Dask cluster of 2 workers.

NIST's reference (sts 2.1.2's ``assess``, built with its own makefile) takes about 2.7 s
per 10^6-bit sequence on one core of the 2-core development machine, 3.5 s when the
machine is shared (docs/cert.md): the figure to match or beat per core. With
``ETG_STS_DIR`` naming a built sts-2.1.2 directory (its ``assess`` and ``templates``), the
bench times ``assess`` on the same sequences beside ours. ``ETG_SP80022_STREAMS`` sets
the cluster run's sequences (default 100, extrapolated linearly to 1,000; 1000 measures
the whole run).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

MILLION = 1_000_000


def _drbg_file(path: Path, sequences: int) -> None:
    from rng.ctr_drbg import CtrDrbg
    from rng.entropy import SeededSource

    drbg = CtrDrbg(SeededSource(b"etg bench sp 800-22"), personalization=b"bench")
    with path.open("wb") as fh:
        left = sequences * MILLION // 8
        while left:
            k = min(left, 1 << 16)
            fh.write(drbg.generate(k))
            left -= k


def _per_test(bits: np.ndarray) -> list[str]:
    from rng.cert.nist.suite import KEYS, NAMES, SuiteParams, run_sequence

    out = []
    for key in KEYS:
        t0 = time.perf_counter()
        run_sequence(bits, SuiteParams(MILLION, tests=(key,)))
        out.append(f"{NAMES[key]} {1000 * (time.perf_counter() - t0):.0f} ms")
    return out


def _one_core(path: Path, count: int) -> Iterator[str]:
    from rng.cert.nist.suite import SuiteParams, run_sequence

    data = np.fromfile(path, dtype=np.uint8, count=count * MILLION // 8)
    seqs = np.unpackbits(data).reshape(count, MILLION)
    times = []
    for row in seqs:
        t0 = time.perf_counter()
        run_sequence(row, SuiteParams(MILLION))
        times.append(time.perf_counter() - t0)
    yield (f"one core, this process: {count} sequences of 10^6 bits, all 15 tests (188 "
           f"P-values each): median {statistics.median(times):.3f} s, mean "
           f"{statistics.mean(times):.3f} s, fastest {min(times):.3f} s per sequence "
           f"(NIST's assess: about 2.7 s; x{2.7 / statistics.median(times):.1f})")
    yield "  per test, first sequence: " + ", ".join(_per_test(seqs[0]))


def _assess(path: Path, count: int) -> Iterator[str]:
    sts = os.environ.get("ETG_STS_DIR")
    if not sts:
        yield ("NIST's assess beside it: set ETG_STS_DIR to a built sts-2.1.2 directory "
               "(not shipped: NIST's code is not part of this project)")
        return
    answers = f"0\n{path}\n1\n0\n{count}\n1\n"
    t0 = time.perf_counter()
    subprocess.run([str(Path(sts) / "assess"), str(MILLION)], input=answers.encode(),
                   cwd=sts, stdout=subprocess.DEVNULL, check=False)
    dt = time.perf_counter() - t0
    yield (f"NIST's assess ({sts}), same {count} sequences, one core: {dt:.1f} s, "
           f"{dt / count:.2f} s per sequence")


def _cluster(path: Path, count: int) -> Iterator[str]:
    from rng.cert.nist.bits_run import BitsOptions, run_bits
    from rng.cert.nist.suite import SuiteParams

    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    run = run_bits(BitsOptions(str(path), "binary", SuiteParams(MILLION), count, jobs=2,
                               progress=False))
    dt = time.perf_counter() - t0
    whole = dt / count * 1000
    yield (f"etg cert bits --streams {count} --jobs 2 ({run.where}): {dt:.1f} s wall, "
           f"{count / dt:.2f} sequences/s, "
           f"{run.verdict.text.split(':')[0]}; load average {load:.1f} before, "
           f"{os.getloadavg()[0]:.1f} after")
    if count != 1000:
        yield f"  -> 1,000 sequences in about {whole / 60:.1f} min on 2 cores (linear)"


def run() -> Iterator[str]:
    count = int(os.environ.get("ETG_SP80022_STREAMS", "100"))
    yield ("etg cert bits: NIST SP 800-22, all 15 tests at the reference's parameters, on "
           "sequences of 10^6 bits of the project's CTR_DRBG (fixed seed)")
    yield "rerun: python -m benchmarks sp80022  (ETG_SP80022_STREAMS=1000 for the whole run)"
    with tempfile.TemporaryDirectory(prefix="etg-sp80022-bench-") as tmp:
        path = Path(tmp) / "ctr.bin"
        _drbg_file(path, max(count, 10))
        yield from _one_core(path, 10)
        yield from _assess(path, 10)
        yield from _cluster(path, count)
