"""The dealer-law kernel compiled ahead of time, so that `etg par` starts without numba.

Why: the kernel itself (:mod:`firmware.math.dealer.removed_cards_kernel`) runs about a
quarter of a second for a six-deck blackjack PAR, but reaching it through numba's JIT
costs more than three times that: numba's import (which imports scipy's BLAS and cffi's
C parser), its typing registries and the loading of the cached machine code, 0.8-0.9 s
of CPU and about 100 MB before the first law. ``make setup`` therefore also compiles the
kernel with numba's AOT compiler (``python -m firmware.math.dealer.removed_cards_aot``)
into an extension module that loads without numba, placed in the virtual environment's
site-packages (an installed dependency built from our source, never a file of the
program tree that a release packs and the floor's authentication hashes).

The module carries a digest of the kernel's source and of the CPU it was compiled for
(:func:`source_digest`); :func:`aot` hands it out only when both match, else the caller
takes numba's JIT kernel: the same code, the same figures bit for bit (LLVM compiles
both without fast-math; tests/math compare them), only the start-up differs.
``ETG_MATH_JIT=1`` forces the JIT kernel.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import platform
import sys
import sysconfig
from functools import cache
from pathlib import Path
from types import ModuleType

#: the AOT module's (top-level) name, in the environment's site-packages
AOT_MODULE = "_etg_dealer_laws_aot"
KERNEL_SOURCE = Path(__file__).resolve().parent / "removed_cards_kernel.py"
#: the exported function and the types the caller passes (contiguous arrays)
SIGNATURE = ("none(int64[::1], int64[:, ::1], int64[::1], int64[:, ::1], int64[::1], "
             "int64[::1], float64[::1], float64[:, ::1])")


def cpu_signature() -> bytes:
    """The CPU the build targets (its vector instructions): a build copied to another CPU
    must not load (an illegal instruction would kill the process). On Linux the first
    processor's model and flags from /proc/cpuinfo, else the machine's architecture."""
    wanted = ("model name", "flags", "features", "cpu part", "cpu implementer")
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return platform.machine().encode()
    first = text.split("\n\n", 1)[0]
    lines = [ln.strip() for ln in first.splitlines()
             if ln.split(":", 1)[0].strip().lower() in wanted]
    return "\n".join([platform.machine(), *lines]).encode()


def source_digest() -> int:
    """A 60-bit digest of the kernel's source and of :func:`cpu_signature`."""
    h = hashlib.sha256(cpu_signature() + b"\0")
    h.update(KERNEL_SOURCE.read_bytes())
    return int(h.hexdigest()[:15], 16)


@cache
def aot() -> ModuleType | None:
    """The ahead-of-time compiled kernel module, if built from the current source for
    this CPU; else None (the caller uses numba's JIT kernel)."""
    if os.environ.get("ETG_MATH_JIT"):
        return None
    try:
        mod = importlib.import_module(AOT_MODULE)
    except Exception:  # absent, or built for another numpy/Python
        return None
    try:
        if int(mod.source_digest()) != source_digest():
            return None  # stale: the kernel changed since `make setup` built it
    except (AttributeError, TypeError, ValueError):
        return None
    return mod


def build(out_dir: Path) -> Path:
    """Compile ``grouped_laws`` and the digest into ``out_dir``; returns the file."""
    from numba.pycc import CC

    from firmware.math.dealer import removed_cards_kernel

    cc = CC(AOT_MODULE)
    cc.output_dir = str(out_dir)
    cc.verbose = False
    cc.target_cpu = "host"  # as numba's JIT compiles, so that the figures are the same
    cc.export("grouped_laws", SIGNATURE)(removed_cards_kernel.grouped_laws.py_func)
    scope = {"DIGEST": source_digest()}
    exec("def source_digest():\n    return DIGEST\n", scope)  # a compiled-in constant
    cc.export("source_digest", "int64()")(scope["source_digest"])
    cc.compile()
    return next(out_dir.glob(AOT_MODULE + ".*"))


def main() -> int:
    out = Path(sysconfig.get_paths()["platlib"])
    try:
        path = build(out)
    except Exception as exc:  # no compiler: the JIT kernel still works, only slower to start
        print(f"etg: the dealer-law kernel was not compiled ahead of time ({exc}); "
              "`etg par` uses numba's JIT", file=sys.stderr)
        return 0
    print(f"compiled {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
