"""The numba set-up shared by the compiled kernels: one decorator, one cache place.

The compiled code is cached out of the program's directory, in ``$NUMBA_CACHE_DIR`` or
the lab cache (``$ETG_CACHE_DIR``, else ``$XDG_CACHE_HOME/etg``, ``~/.cache/etg``) under
``numba/``, so an installed release's files stay exactly what was signed, and a second
run skips the compilation (the JIT warm-up is most of a small assessment's time).
"""

from __future__ import annotations

import os
from pathlib import Path

import numba

if not os.environ.get("NUMBA_CACHE_DIR"):
    _base = os.environ.get("ETG_CACHE_DIR") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "etg")
    numba.config.CACHE_DIR = str(Path(_base) / "numba")  # type: ignore[attr-defined]

njit = numba.njit(cache=True, nogil=True)
