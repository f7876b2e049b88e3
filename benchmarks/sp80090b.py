"""`make bench` figures of ``etg cert entropy``: CPU seconds beside NIST's reference tools
(SP800-90B_EntropyAssessment 1.1.7) on NIST's own sample files of 10^6 samples.

Each run is a fresh process (``etg cert entropy``, or the reference's ``ea_non_iid``,
``ea_restart``), timed by its CPU seconds (user + system, from the kernel's accounting
of the child), so the figures hold on a shared machine better than wall time. With
``ETG_EA_DIR`` naming a built reference (its ``cpp`` directory: ``ea_non_iid``,
``ea_restart``, ``ea_iid``; not shipped, NIST's code is not part of this project) the
reference runs beside ours and the ratio is measured; without it the ratio is against
the reference's figures measured on the development machine (docs/cert.md).
``ETG_SP80090B_IID=1`` adds the IID track on the 1-bit file (a minute or more);
``ETG_SP80090B_ONLY=NAME`` (e.g. ``non-IID 1-bit``) times one case. The 1-bit case
(under a second each) runs three times for each tool, alternately, and the best of each
is compared: on a shared machine one run can differ from the next by 20%. The first line
says which kernels ran (the ahead-of-time build ``make setup`` makes, or numba's JIT).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from benchmarks import CHECKOUT

DATA = CHECKOUT / "tests" / "cert" / "data" / "sp80090b"
#: the reference's CPU seconds here (2-core development machine, one thread; docs/cert.md)
REFERENCE_CPU = {"non-IID 1-bit": 0.72, "non-IID 8-bit": 13.5, "restart 8-bit": 97.3,
                 "IID 1-bit": 23.7}


def _cpu(argv: list[str]) -> float:
    """CPU seconds (user + system) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _etg() -> list[str]:
    return [sys.executable, "-m", "firmware.cli"]


def _cases() -> list[tuple[str, list[str], list[str]]]:
    """(name, our arguments, the reference's arguments)."""
    one, eight = str(DATA / "truerand_1bit.bin"), str(DATA / "truerand_8bit.bin")
    cases = [
        ("non-IID 1-bit", ["cert", "entropy", one, "--bits-per-symbol", "1"],
         ["ea_non_iid", one, "1"]),
        ("non-IID 8-bit", ["cert", "entropy", eight, "--bits-per-symbol", "8"],
         ["ea_non_iid", eight, "8"]),
        ("restart 8-bit", ["cert", "entropy", "--restart", eight, "--bits-per-symbol", "8",
                           "--h-initial", "7"], ["ea_restart", eight, "8", "7"]),
    ]
    if os.environ.get("ETG_SP80090B_IID"):
        cases.append(("IID 1-bit", ["cert", "entropy", one, "--iid"],
                      ["ea_iid", one, "1"]))
    return cases


#: runs of each tool per case (best taken): the short case is noisy on a shared machine
REPEATS = {"non-IID 1-bit": 3}


def _kernels() -> str:
    from rng.cert.sp80090b import compiled

    if compiled.aot() is not None:
        return "the ahead-of-time compiled kernels (numba not loaded)"
    return "numba's JIT kernels (cached; `make setup` builds the AOT ones)"


def run() -> Iterator[str]:
    ea = os.environ.get("ETG_EA_DIR")
    yield ("etg cert entropy: SP 800-90B on NIST's sample files of 10^6 samples, CPU "
           f"seconds of a fresh process, with {_kernels()}")
    yield "rerun: python -m benchmarks sp80090b  (ETG_EA_DIR=.../cpp to time NIST's beside)"
    _cpu([*_etg(), "cert", "entropy", str(DATA / "rand1_short.bin")])  # warm the cache
    only = os.environ.get("ETG_SP80090B_ONLY")  # e.g. "non-IID 1-bit"
    for name, ours, theirs in _cases():
        if only and name != only:
            continue
        mines, refs = [], []
        for _ in range(REPEATS.get(name, 1)):
            mines.append(_cpu([*_etg(), *ours]))
            if ea:
                refs.append(_cpu([str(Path(ea) / theirs[0]), *theirs[1:]]))
        mine = min(mines)
        if ea:
            ref = min(refs)
            where = "measured beside" + (f", best of {len(refs)} each" if len(refs) > 1
                                         else "")
        else:
            ref = REFERENCE_CPU[name]
            where = "the reference's figure here"
        yield (f"{name}: etg {mine:.2f} s CPU, NIST's {theirs[0]} {ref:.2f} s ({where}): "
               f"x{ref / mine:.2f} {'faster' if ref >= mine else 'SLOWER'}")
