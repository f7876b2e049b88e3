"""Raw noise samples for the lab (SP 800-90B 3.1.1 and 3.1.4): captured before any
conditioning and before the health tests, so that what is assessed is what the source
delivers.

Two shapes, both one sample per byte (8 bits wide: ``/dev/hwrng`` and the OS source
deliver bytes):

* **sequential**: N samples read in one go from one opening of the source (90B 3.1.1
  asks for at least 10^6);
* **restarts**: R restarts of S samples (90B 3.1.4.1: R = S = 1000), restart after
  restart in one file (the "row dataset"), each restart a fresh open of the source, as
  a power cycle would give the noise source a fresh start. (A real power cycle of the
  Pi is the lab's stronger test; docs/cert.md gives the procedure.)

Beside the samples, a small JSON record (``FILE.json``) states what they are: source,
device, width, count, shape, time and SHA-256, so the assessment and the lab report can
name them. The OS source is the kernel's conditioned output, not raw noise: capturing
it is allowed (a lab may want to see it) and the record says it is conditioned.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from rng.entropy import HWRNG_PATH, HwrngNoise, os_noise
from rng.errors import EntropyError

#: every sample is a byte
WIDTH = 8
#: the most samples one capture writes (2^31: the assessment's own limit)
MAX_SAMPLES = 1 << 31
_CHUNK = 1 << 16


@dataclass(frozen=True)
class CapturePlan:
    """What to capture: from which source, how many samples, how many restarts."""

    source: str  # "hwrng" or "os"
    samples: int
    restarts: int = 0  # 0: one sequential capture
    device: str = HWRNG_PATH

    @property
    def total(self) -> int:
        return self.samples * max(1, self.restarts)


def _opener(plan: CapturePlan) -> Callable[[], tuple[Callable[[int], bytes], Callable[[], None]]]:
    """A function that opens the source afresh: (read n bytes, close)."""
    if plan.source == "hwrng":
        def open_hwrng() -> tuple[Callable[[int], bytes], Callable[[], None]]:
            dev = HwrngNoise(plan.device)
            return dev, dev.close
        return open_hwrng
    if plan.source == "os":
        return lambda: (os_noise, lambda: None)
    raise EntropyError(f"unknown source {plan.source!r} (hwrng or os)")


def capture(plan: CapturePlan, out: BinaryIO, *,
            step: Callable[[int], None] | None = None) -> str:
    """Write the samples to ``out``; returns their SHA-256 (hex)."""
    opener = _opener(plan)
    digest = hashlib.sha256()
    for _ in range(max(1, plan.restarts)):
        read, close = opener()
        try:
            left = plan.samples
            while left:
                chunk = read(min(_CHUNK, left))
                out.write(chunk)
                digest.update(chunk)
                left -= len(chunk)
                if step is not None:
                    step(len(chunk))
        finally:
            close()
    return digest.hexdigest()


def record(plan: CapturePlan, path: Path, sha256: str, version: str) -> dict[str, Any]:
    """The capture's description (written beside the samples as ``FILE.json``)."""
    return {
        "file": path.name, "sha256": sha256, "source": plan.source,
        "device": plan.device if plan.source == "hwrng" else "getrandom",
        "conditioned": plan.source == "os",
        "bitsPerSample": WIDTH, "samples": plan.total,
        "restarts": plan.restarts, "samplesPerRestart": plan.samples if plan.restarts else None,
        "layout": "restart after restart (90B 3.1.4.1 row dataset)" if plan.restarts
        else "sequential (one opening of the source)",
        "capturedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": socket.gethostname(), "toolVersion": version,
    }


def write_capture(plan: CapturePlan, path: Path, version: str, *,
                  step: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Capture into ``path`` (written under a temporary name, then renamed: a file by
    that name is always a whole capture) and its record into ``path.json``."""
    tmp = path.with_name(path.name + ".part")
    try:
        with tmp.open("wb") as fh:
            sha = capture(plan, fh, step=step)
            fh.flush()
            os.fsync(fh.fileno())
        doc = record(plan, path, sha, version)
        meta = path.with_name(path.name + ".json")
        meta.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return doc
