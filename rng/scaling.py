"""Scaling random bits to outcomes without bias: integers, weighted choices, shuffles.

Everything here works on any byte source (a DRBG, or a tiny fake source in the tests that
enumerates every possible input) and uses integers only, so no outcome ever depends on
floating-point rounding.

* :func:`randbelow` takes ``k = bit_length(n - 1)`` bits and rejects values >= n, so each
  of the n outcomes comes from exactly one k-bit pattern: exactly uniform.
* :func:`weighted_choice` draws ``r`` uniformly in [0, total weight) with
  :func:`randbelow` and returns the value whose cumulative weight interval holds ``r``:
  each value's probability is exactly weight / total.
* :func:`shuffle` is Fisher–Yates (Durstenfeld) with :func:`randbelow` for each swap:
  each of the n! orders is exactly equally likely.

Every call reports the bits it consumed and rejected, for the draw record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, MutableSequence
from typing import NamedTuple, TypeVar

T = TypeVar("T")
ByteSource = Callable[[int], bytes]


class BitSource:
    """Bits from a byte source, most significant bit first, counted as they are taken.

    ``min_read`` batches reads (a DRBG call costs far more than one byte); bits left over
    when the BitSource is dropped are discarded, never reused.
    """

    def __init__(self, read: ByteSource, min_read: int = 1) -> None:
        self._read = read
        self._min_read = max(1, min_read)
        self._buf = 0
        self._avail = 0
        self.bits_read = 0  # bits fetched from the byte source
        self.bits_taken = 0  # bits handed out

    def take(self, k: int) -> int:
        """The next ``k`` bits as an integer in [0, 2^k)."""
        if k > self._avail:
            need = -(-(k - self._avail) // 8)
            data = self._read(max(need, self._min_read))
            self._buf = (self._buf << (8 * len(data))) | int.from_bytes(data, "big")
            self._avail += 8 * len(data)
            self.bits_read += 8 * len(data)
            if k > self._avail:
                raise ValueError("byte source returned fewer bytes than asked")
        self._avail -= k
        value = self._buf >> self._avail
        self._buf &= (1 << self._avail) - 1
        self.bits_taken += k
        return value


class Scaled(NamedTuple):
    """One scaled outcome and what it cost: ``bits_used`` includes ``bits_rejected``."""

    value: int
    bits_used: int
    bits_rejected: int


def randbelow(bits: BitSource, n: int) -> Scaled:
    """A uniform integer in [0, n) by rejection; n = 1 costs no bits."""
    if n < 1:
        raise ValueError(f"randbelow needs n >= 1, got {n}")
    k = (n - 1).bit_length()
    used = 0
    while True:
        r = bits.take(k)
        used += k
        if r < n:
            return Scaled(r, used, used - k)


def normalize_weights(weights: Mapping[T, int] | Iterable[tuple[T, int]]) -> list[tuple[T, int]]:
    """Weights as (value, weight) pairs in canonical (sorted value) order, checked.

    Sorting makes a weight table mean the same draws however its author ordered it.
    """
    pairs = list(weights.items()) if isinstance(weights, Mapping) else list(weights)
    for value, w in pairs:
        if isinstance(w, bool) or not isinstance(w, int) or w < 0:
            raise ValueError(f"weight of {value!r} must be a non-negative integer, got {w!r}")
    pairs.sort(key=lambda vw: vw[0])  # type: ignore[arg-type,return-value]
    if len({v for v, _ in pairs}) != len(pairs):
        raise ValueError("a value appears twice in the weight table")
    if sum(w for _, w in pairs) <= 0:
        raise ValueError("weights must have a positive total")
    return pairs


def weighted_index(bits: BitSource, weights: list[int]) -> Scaled:
    """Index i with probability weights[i] / sum(weights), exactly (rejection, integers)."""
    total = sum(weights)
    r = randbelow(bits, total)
    acc = 0
    for i, w in enumerate(weights):
        acc += w
        if r.value < acc:
            return Scaled(i, r.bits_used, r.bits_rejected)
    raise AssertionError("unreachable: r < total")


def weighted_choice(
    bits: BitSource, weights: Mapping[T, int] | Iterable[tuple[T, int]]
) -> tuple[T, Scaled]:
    """A value drawn with probability weight / total; returns (value, cost)."""
    pairs = normalize_weights(weights)
    scaled = weighted_index(bits, [w for _, w in pairs])
    return pairs[scaled.value][0], scaled


def shuffle(bits: BitSource, items: MutableSequence[T]) -> tuple[int, int]:
    """Fisher–Yates in place; returns (bits used, bits rejected)."""
    used = rejected = 0
    for i in range(len(items) - 1, 0, -1):
        j = randbelow(bits, i + 1)
        used += j.bits_used
        rejected += j.bits_rejected
        items[i], items[j.value] = items[j.value], items[i]
    return used, rejected
