"""The numba set-up shared by the compiled kernels: one decorator, one cache place.

The compiled code is cached out of the program's directory, in ``$NUMBA_CACHE_DIR`` or
the lab cache (``$ETG_CACHE_DIR``, else ``$XDG_CACHE_HOME/etg``, ``~/.cache/etg``) under
``numba/``, so an installed release's files stay exactly what was signed, and a second
run skips the compilation (the JIT warm-up is most of a small assessment's time).

numba's start-up is most of a small assessment's CPU time (the reference tool takes
under a second on 10^6 bits). Its array-math module, loaded with the first compiled
function, probes for a BLAS by importing ``scipy.linalg`` (0.2 to 0.4 s of CPU here, a
third of numba's whole start-up); the probe only picks between BLAS and a plain loop for
``np.convolve``/``np.correlate``, which no kernel here uses (``np.dot`` checks for BLAS
again when a kernel using it is compiled), so the probe is skipped: while that module
loads, ``scipy.linalg.cython_blas`` reads as absent.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numba

if not os.environ.get("NUMBA_CACHE_DIR"):
    _base = os.environ.get("ETG_CACHE_DIR") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "etg")
    numba.config.CACHE_DIR = str(Path(_base) / "numba")  # type: ignore[attr-defined]


def _load_array_math_without_blas_probe() -> None:
    """Load numba's array-math module without its scipy.linalg import (see above)."""
    probe = "scipy.linalg.cython_blas"
    if "numba.np.arraymath" in sys.modules or probe in sys.modules:
        return  # already loaded, or the probe is free (scipy.linalg is loaded)
    sys.modules[probe] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if sys.modules.get(probe, 0) is None:
            del sys.modules[probe]


_load_array_math_without_blas_probe()

njit = numba.njit(cache=True, nogil=True)
