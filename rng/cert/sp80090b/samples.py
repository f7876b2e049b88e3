"""A file of raw noise samples: its symbols, their width, the literal and bitstring views.

The format is the reference tools' and ``etg rng capture``'s: one sample per byte, the
sample in the low ``bits`` bits (1 to 8). A width given on the command line is checked
against the data (a sample wider than declared is an error: it means the file is not
what the lab was told); without one the width is that of the highest bit set anywhere.
Symbols are translated down to ``0 .. k-1`` (k distinct values, their order kept) as the
standard's estimators count the alphabet that occurs; the bitstring (90B 6.4: each
sample's ``bits`` bits, most significant first) is made from the untranslated values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from etgcore.errors import UserError

#: below this many samples the standard's estimators are not meant to be trusted (90B 3.1.1)
RECOMMENDED_SAMPLES = 1_000_000
#: fewer samples than this cannot run the estimators at all (the compression estimate
#: needs more than 1000 blocks of 6 bits, MultiMCW more than 4095 samples)
MIN_SAMPLES = 4096 + 1


@dataclass
class Samples:
    """The samples of one file, ready for the estimators."""

    raw: np.ndarray  # uint8, as read (masked to ``bits``)
    bits: int
    symbols: np.ndarray = field(init=False)  # uint8, translated to 0..k-1
    k: int = field(init=False)
    name: str = ""

    def __post_init__(self) -> None:
        present = np.bincount(self.raw, minlength=256) > 0
        table = np.cumsum(present) - 1
        self.k = int(present.sum())
        self.symbols = table[self.raw].astype(np.uint8)

    @property
    def n(self) -> int:
        return int(self.raw.size)

    def bitstring(self, limit: int | None = None) -> np.ndarray:
        """Each sample's ``bits`` bits, most significant first (uint8 of 0 and 1)."""
        shifts = np.arange(self.bits - 1, -1, -1, dtype=np.uint8)
        out = ((self.raw[:, None] >> shifts[None, :]) & 1).astype(np.uint8).reshape(-1)
        return out if limit is None else out[:limit]

    @property
    def binary(self) -> bool:
        """Two distinct values: the literal samples are a bitstring already."""
        return self.k <= 2


def width_of(data: np.ndarray) -> int:
    """The width of the highest bit set in any sample (at least 1)."""
    mask = int(np.bitwise_or.reduce(data)) if data.size else 0
    return max(1, mask.bit_length())


def from_bytes(data: bytes | np.ndarray, bits: int | None, name: str = "samples",
               *, minimum: int = MIN_SAMPLES) -> Samples:
    """Samples from raw bytes; :class:`UserError` (one line) when they cannot be assessed."""
    arr = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes | bytearray) \
        else np.asarray(data, dtype=np.uint8)
    if bits is not None and not 1 <= bits <= 8:
        raise UserError(f"--bits-per-symbol must be 1 to 8, got {bits}")
    if arr.size == 0:
        raise UserError(f"{name}: empty (no samples)")
    used = width_of(arr)
    if bits is None:
        bits = used
    elif used > bits:
        bad = int(np.argmax(arr >= (1 << bits)))
        raise UserError(f"{name}: sample {bad} is {int(arr[bad])}, wider than "
                        f"{bits} bit{'s' if bits > 1 else ''} per symbol (the data use "
                        f"{used} bits)")
    if arr.size < minimum:
        raise UserError(f"{name}: {arr.size} samples, too short (at least {minimum}; "
                        f"the standard asks for {RECOMMENDED_SAMPLES:,})")
    s = Samples(np.array(arr, dtype=np.uint8), bits, name=name)
    if s.k < 2:
        raise UserError(f"{name}: every sample is {int(arr[0])} (one symbol): no entropy")
    return s


def read(path: Path, bits: int | None, *, minimum: int = MIN_SAMPLES,
         limit: int = 1 << 31) -> Samples:
    """The samples of ``path`` (at most ``limit`` bytes are accepted)."""
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    size = path.stat().st_size
    if size > limit:
        raise UserError(f"{path}: {size} bytes, more than the {limit} samples this "
                        "command reads (split the file)")
    return from_bytes(path.read_bytes(), bits, str(path), minimum=minimum)
