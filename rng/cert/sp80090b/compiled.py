"""The compiled kernels of the non-IID track, without numba's start-up when possible.

The kernels (:mod:`.kernels`) are numba functions. numba itself costs about half a
second of CPU before the first kernel runs (its import, its typing registries, loading
the cached machine code), which is most of the reference tool's whole time on 10^6
binary samples. ``make setup`` therefore also compiles the non-IID track's kernels ahead
of time (numba's AOT compiler, :mod:`.kernels.aot`) into an extension module that needs
no numba to load. This module hands out that module's functions when it is present and
was built from exactly the kernels' current source for this CPU (the digest of both is
compiled into it),
and numba's just-in-time versions otherwise: the same code, the same results, only the
start-up differs. ``ETG_SP80090B_JIT=1`` forces the JIT kernels (the tests compare the
two).

The constants the callers need are here too, so that they need not import
:mod:`.kernels` (which imports numba).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import platform
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

#: the AOT module's name (built next to this file)
AOT_MODULE = "rng.cert.sp80090b._kernels_aot"
KERNELS_DIR = Path(__file__).resolve().parent / "kernels"
MCW_WINDOWS = (63, 255, 1023, 4095)
LAG_D = 128
MMC_D = 16
MMC_MAX_ENTRIES = 100_000
LZ_B = 16
LZ_MAX_DICT = 65_536


def cpu_signature() -> bytes:
    """What the AOT build was compiled for: it targets the build machine's CPU (its
    vector instructions), so a checkout copied to another CPU must not load it (an
    illegal instruction kills the process). On Linux the first processor's model and
    feature flags from /proc/cpuinfo; elsewhere the machine's architecture."""
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
    """A 60-bit digest of the kernels' source (every module of :mod:`.kernels`) and of
    the CPU they are compiled for (:func:`cpu_signature`)."""
    h = hashlib.sha256(cpu_signature() + b"\0")
    for path in sorted(KERNELS_DIR.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return int(h.hexdigest()[:15], 16)


@cache
def aot() -> ModuleType | None:
    """The ahead-of-time compiled kernels, if built from the current source."""
    if os.environ.get("ETG_SP80090B_JIT"):
        return None
    try:
        mod = importlib.import_module(AOT_MODULE)
    except Exception:  # absent, or built for another numpy/Python: the JIT kernels
        return None
    try:
        if int(mod.source_digest()) != source_digest():
            return None  # stale: the kernels changed since `make setup` built it
    except (AttributeError, TypeError, ValueError):
        return None
    return mod


def kernel(name: str) -> Any:
    """The kernel ``name``: the AOT build's if usable, else numba's JIT one."""
    mod = aot()
    if mod is not None and hasattr(mod, name):
        return getattr(mod, name)
    from rng.cert.sp80090b import kernels

    return getattr(kernels, name)


def table_size(items: int) -> int:
    """A power of two at least twice ``items`` (load factor <= 1/2)."""
    size = 1024
    while size < 2 * items:
        size <<= 1
    return size
