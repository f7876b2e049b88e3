"""Entropy sources for the DRBGs: the OS, the Raspberry Pi's ``/dev/hwrng``, a bench seed.

Every byte a noise source delivers is a sample that passes the SP 800-90B continuous
health tests (:mod:`rng.health`) before it is used; at start-up 1024 samples are tested
and thrown away (90B 4.3). A source whose test fails is dead: it raises
:class:`~rng.errors.EntropyError` from then on and its failing output is never used.

* ``os``: ``os.getrandom`` (the kernel's conditioned CSPRNG; ``os.urandom`` where
  getrandom is missing). Its bytes are claimed as full entropy (H = 8 per byte); the
  health tests there catch a gross failure (a stuck or zero buffer).
* ``hwrng``: the hardware RNG. Its bytes are raw samples whose min-entropy per byte is
  the claim of :mod:`rng.claim`: read from the configured SP 800-90B assessment file, or
  the documented floor :data:`HWRNG_MIN_ENTROPY` without one. They are conditioned with
  HMAC-SHA-256 (a vetted conditioning component, 90B 3.1.5.1.1; its known-answer test
  runs at power-up): each 32-byte output block takes raw samples carrying at least
  256 + 64 bits by the claim, so the output is full entropy.
* ``seed`` (bench only): a fixed seed expanded by HMAC-SHA-256, so a lab can reproduce
  a run. It is not a noise source and no health test applies; production refuses it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes, hmac

from rng.claim import HWRNG_FLOOR, Claim, claim_for
from rng.errors import EntropyError
from rng.health import DEFAULT_ALPHA_LOG2, HealthFailure, HealthTests

HWRNG_PATH = "/dev/hwrng"
#: min-entropy per byte of /dev/hwrng without an assessment, deliberately low (docs/rng.md)
HWRNG_MIN_ENTROPY = HWRNG_FLOOR
STARTUP_SAMPLES = 1024
CONDITIONING_KEY = b"ETG hwrng conditioning (SP 800-90B HMAC-SHA-256)"


def condition(raw: bytes, key: bytes = CONDITIONING_KEY) -> bytes:
    """The conditioning component: HMAC-SHA-256 of the raw samples under ``key`` (32
    bytes out). One function, so the power-up known-answer test runs the code the source
    uses."""
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(raw)
    return h.finalize()


def os_noise(n: int) -> bytes:
    getrandom = getattr(os, "getrandom", None)
    if getrandom is not None:
        out = b""
        while len(out) < n:
            out += getrandom(n - len(out))
        return out
    return os.urandom(n)


class HwrngNoise:
    """Raw bytes from a hardware RNG device (``/dev/hwrng`` on a Pi)."""

    def __init__(self, path: str = HWRNG_PATH) -> None:
        self.path = path
        try:
            self._fh = open(path, "rb", buffering=0)  # noqa: SIM115 - held for the source's life
        except OSError as exc:
            raise EntropyError(f"cannot open {path}: {exc.strerror or exc}") from None

    def __call__(self, n: int) -> bytes:
        out = b""
        try:
            while len(out) < n:
                chunk = self._fh.read(n - len(out))
                if not chunk:
                    raise EntropyError(f"{self.path} returned no data")
                out += chunk
        except OSError as exc:
            raise EntropyError(f"reading {self.path}: {exc.strerror or exc}") from None
        return out

    def close(self) -> None:
        self._fh.close()


class HealthTestedSource:
    """A noise source whose every sample passes the 90B health tests before use."""

    def __init__(
        self,
        name: str,
        noise: Callable[[int], bytes],
        min_entropy: float = 8.0,
        *,
        alpha_log2: float = DEFAULT_ALPHA_LOG2,
        startup: bool = True,
    ) -> None:
        self.name = name
        self.noise = noise
        self.min_entropy = min_entropy
        self.claim: Claim | None = None
        self.tests = HealthTests(min_entropy, binary=False, alpha_log2=alpha_log2)
        self.failure: str | None = None
        self.bytes_out = 0
        if startup:
            self._samples(STARTUP_SAMPLES)  # 90B 4.3: tested, then discarded

    def _samples(self, n: int) -> bytes:
        if self.failure is not None:
            raise EntropyError(f"entropy source {self.name} failed earlier: {self.failure}")
        try:
            raw = self.noise(n)
        except EntropyError as exc:
            self.failure = str(exc)
            raise
        if len(raw) != n:
            self.failure = f"delivered {len(raw)} of {n} samples"
            raise EntropyError(f"entropy source {self.name}: {self.failure}")
        try:
            self.tests.check(raw)
        except HealthFailure as exc:
            self.failure = str(exc)
            raise EntropyError(f"entropy source {self.name}: health test: {exc}") from None
        return raw

    def get_entropy(self, n_bytes: int) -> bytes:
        if self.min_entropy >= 8:
            out = self._samples(n_bytes)
        else:
            per_block = math.ceil((256 + 64) / self.min_entropy)
            blocks = []
            for _ in range(-(-n_bytes // 32)):
                blocks.append(condition(self._samples(per_block)))
            out = b"".join(blocks)[:n_bytes]
        self.bytes_out += n_bytes
        return out


class SeededSource:
    """Bench only: "entropy" expanded from a fixed seed, for reproducible lab runs."""

    name = "seed"

    def __init__(self, seed: bytes) -> None:
        self._seed = bytes(seed)
        self._counter = 0

    def get_entropy(self, n_bytes: int) -> bytes:
        blocks = []
        for _ in range(-(-n_bytes // 32)):
            h = hmac.HMAC(self._seed or b"\x00", hashes.SHA256())
            h.update(b"ETG bench seed" + self._counter.to_bytes(8, "big"))
            self._counter += 1
            blocks.append(h.finalize())
        return b"".join(blocks)[:n_bytes]


def hwrng_present(path: str = HWRNG_PATH) -> bool:
    return Path(path).exists() and os.access(path, os.R_OK)


def resolve(kind: str) -> str:
    """``auto`` is ``hwrng`` when ``/dev/hwrng`` exists and is readable, else ``os``."""
    if kind == "auto":
        return "hwrng" if hwrng_present() else "os"
    if kind not in ("hwrng", "os"):
        raise EntropyError(f"unknown entropy source {kind!r} (auto, os or hwrng)")
    return kind


def open_source(kind: str, seed: bytes | None = None, *, claim: Claim | None = None
                ) -> HealthTestedSource | SeededSource:
    """The entropy source the configuration names (``auto``, ``os``, ``hwrng``) or a seed.

    The source's claim (its min-entropy per sample, so its health-test cutoffs and its
    conditioning ratio) is ``claim`` (the table's, from its ``[rng] assessment``:
    :func:`claim_of_settings`), else the source's own without an assessment
    (the floor for hwrng). Failing start-up tests, or an
    assessment that does not stand, raise :class:`~rng.errors.EntropyError`.
    """
    if seed is not None:
        return SeededSource(seed)
    kind = resolve(kind)
    c = claim if claim is not None else claim_for(kind, None)
    noise: Callable[[int], bytes] = HwrngNoise() if kind == "hwrng" else os_noise
    src = HealthTestedSource(kind, noise, c.h)
    src.claim = c
    return src


def claim_of_settings(settings: Any) -> Claim | None:
    """The claim the ``[rng]`` settings' source runs on (None for a bench seed: no noise
    source). The claim travels with the settings, not with the process: whoever opens the
    table RNG (:func:`rng.open_table_rng`: the table service, ``etg rng``, a lab worker
    of ``etg cert run``) reads ``settings.assessment`` itself, so no process can open the
    source on the floor because nobody configured it."""
    if settings.seed_hex:
        return None
    return claim_for(resolve(settings.entropy), getattr(settings, "assessment", "") or None)
