"""`make bench` figures for releases: build, verify, unpack, authenticate, seeded HMAC.

Measured on this machine with this checkout's program; the times on a Raspberry Pi 4 are
several times longer, and what matters there is that a production start's manifest check
stays well inside the unit's start timeout.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def _best(fn: Callable[[], T], repeat: int = 5) -> tuple[float, T]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result  # type: ignore[return-value]


def release() -> Iterator[str]:
    from deploy import signing
    from deploy.bundle import build_bundle, verify_bundle
    from deploy.manifest import verify_installed
    from deploy.seeded_hmac import hmac_of_tree
    from deploy.unpack import extract

    source = Path(__file__).resolve().parent.parent
    yield f"what: release tooling on the program of {source} (best of 5 runs each)"
    yield "rerun: python -m benchmarks release"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        key, pub, _ = signing.generate(work / "bench")
        t_build, built = _best(lambda: build_bundle(source, key, work / "b.etgrel"))
        size = sum(f.size for f in built.manifest.files)
        yield (
            f"program: {len(built.manifest.files)} files, {size / 1e6:.2f} MB;"
            f" bundle {built.size / 1e6:.2f} MB (deflate)"
        )
        yield f"etg release build:                    {t_build * 1e3:8.1f} ms"
        t_verify, verified = _best(lambda: verify_bundle(built.path, pub))
        yield (
            f"etg release verify:                   {t_verify * 1e3:8.1f} ms"
            " (both signatures, every file's SHA-256)"
        )
        t_extract, (dest, _status) = _best(
            lambda: extract(verified.contents, work / "releases"), repeat=1
        )
        yield f"unpack into a release dir (fsync each): {t_extract * 1e3:6.1f} ms (one run)"
        t_check, _ = _best(lambda: verify_installed(dest, pub))
        yield f"etg verify (start-up manifest check): {t_check * 1e3:8.1f} ms"
        seed = bytes(range(32))
        t_hmac, _ = _best(lambda: hmac_of_tree(dest, seed))
        yield (
            f"etg verify --seed (HMAC-SHA256):      {t_hmac * 1e3:8.1f} ms,"
            f" {size / t_hmac / 1e6:.0f} MB/s"
        )
