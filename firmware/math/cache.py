"""Loading the compiled (numba) kernels, with their machine code cached outside the program.

Why: numba's ``cache=True`` writes the compiled code beside the module (``__pycache__``)
when that directory is writable. A table runs from an unpacked signed release whose every
file the floor's software authentication hashes (deploy.seeded_hmac); a cache file
written into it by the automatic players' strategy would make the table's files differ
from the approved release. So the kernels cache into ``$NUMBA_CACHE_DIR`` when it is set,
else into the math cache (``$ETG_CACHE_DIR``, else ``$XDG_CACHE_HOME/etg``, i.e.
``~/.cache/etg``) under ``numba/``.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from functools import lru_cache
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """Where the math keeps what it computed once (results, compiled kernels)."""
    if os.environ.get("ETG_CACHE_DIR"):
        return Path(os.environ["ETG_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "etg"


@lru_cache(maxsize=1)
def source_digest() -> str:
    """A digest of every source file of ``firmware/math``: what the cached results were
    computed by (a changed calculation or strategy computes them again); the first 16
    hex digits of :func:`source_sha256`."""
    return source_sha256()[:16]


@lru_cache(maxsize=1)
def source_sha256() -> str:
    """SHA-256 over every source file of ``firmware/math`` (path under it, then bytes,
    files in path order; every subpackage): the full digest a PAR sheet names its math by."""
    h = hashlib.sha256()
    root = Path(__file__).parent
    for f in sorted(root.rglob("*.py"), key=lambda f: f.relative_to(root).as_posix()):
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def load_kernel(module: str) -> Any:
    """Import the compiled kernel ``module`` (ImportError without numba), its cache kept
    out of the program's directory (see the module docstring)."""
    import numba

    if not os.environ.get("NUMBA_CACHE_DIR"):
        # read when a cached function is defined, i.e. when ``module`` is first imported
        numba.config.CACHE_DIR = str(cache_dir() / "numba")  # type: ignore[attr-defined]
    return importlib.import_module(module)


__all__ = ["cache_dir", "load_kernel", "source_digest"]
