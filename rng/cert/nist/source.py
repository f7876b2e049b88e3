"""Bit sources for ``etg cert bits``: a file or standard input, ASCII or binary.

* **ASCII**: the characters ``0`` and ``1``; whitespace (spaces, tabs, line breaks) is
  ignored, as in NIST's sample files. Any other byte is bad input, reported with its
  position.
* **Binary**: bytes, most significant bit first. As NIST's ``assess`` reads a binary
  file, each sequence starts on a 32-bit word: a sequence of n bits takes 4 ceil(n/32)
  bytes and the bits of its last word past n are skipped (nothing is skipped when n is a
  multiple of 32, as 10^6 is).
* Without ``--format``, a file whose first 64 KiB are only 0, 1 and whitespace is read as
  ASCII, any other file and standard input as binary (:func:`detect_format`).

A file is checked whole before any test runs (its length, its characters) and hashed
(SHA-256), which names it in the report and in a checkpoint. Standard input is read as
the run goes: a short or bad input stops the run there, with the same one-line error.
Sequences are read strictly in order, each handed on packed eight bits to a byte.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from etgcore.errors import UserError

READ = 1 << 22
ZERO, ONE = ord("0"), ord("1")
_ALLOWED = np.zeros(256, dtype=bool)
_ALLOWED[[ZERO, ONE, 9, 10, 11, 12, 13, 32]] = True


def detect_format(path: str) -> str:
    """``ascii`` when a file's first 64 KiB are all 0, 1 and whitespace (and hold a 0 or
    a 1), else ``binary``; standard input is binary unless told."""
    if path == "-" or not Path(path).is_file():
        return "binary"
    try:
        with open(path, "rb") as fh:
            head = np.frombuffer(fh.read(1 << 16), dtype=np.uint8)
    except OSError:
        return "binary"
    digits = (head == ZERO) | (head == ONE)
    return "ascii" if head.size and _ALLOWED[head].all() and digits.any() else "binary"


def sequence_bytes(fmt: str, length: int) -> int:
    """Bytes one binary sequence takes (whole 32-bit words, as ``assess`` reads)."""
    return 4 * -(-length // 32) if fmt == "binary" else 0


@dataclass(frozen=True)
class SourceInfo:
    """What was read: the name, the bits it holds (None: standard input), its digest."""

    name: str
    bits: int | None
    sha256: str | None
    size: int | None


def _label(path: str) -> str:
    return "standard input" if path == "-" else path


def _ascii_bad(chunk: npt.NDArray[np.uint8], name: str, offset: int) -> None:
    bad = np.flatnonzero(~_ALLOWED[chunk])
    if bad.size:
        at = int(bad[0])
        raise UserError(f"{name}: byte {offset + at + 1:,}: {bytes([int(chunk[at])])!r} is "
                        "not 0, 1 or whitespace (--format ascii)")


def inspect(path: str, fmt: str) -> SourceInfo:
    """Check a whole file (its characters, for ASCII) and count its bits and hash it."""
    if path == "-":
        return SourceInfo("standard input", None, None, None)
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{path}: no such file")
    h = hashlib.sha256()
    ones_zeros = 0
    offset = 0
    try:
        with p.open("rb") as fh:
            while block := fh.read(READ):
                h.update(block)
                if fmt == "ascii":
                    chunk = np.frombuffer(block, dtype=np.uint8)
                    _ascii_bad(chunk, path, offset)
                    ones_zeros += int(np.count_nonzero((chunk == ZERO) | (chunk == ONE)))
                offset += len(block)
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    bits = ones_zeros if fmt == "ascii" else offset * 8
    return SourceInfo(path, bits, h.hexdigest(), offset)


def streams_held(info: SourceInfo, fmt: str, length: int) -> int:
    """How many whole sequences of ``length`` bits the file holds."""
    assert info.bits is not None
    if fmt == "binary":
        return info.bits // 8 // sequence_bytes(fmt, length)
    return info.bits // length


def check_size(info: SourceInfo, fmt: str, length: int, streams: int) -> None:
    """A file shorter than ``streams`` x ``length`` bits is bad input (one line)."""
    if info.bits is None:
        return
    if streams_held(info, fmt, length) >= streams:
        return
    need = streams * length
    if fmt == "binary" and length % 32:
        need_bytes = streams * sequence_bytes(fmt, length)
        raise UserError(f"{info.name}: holds {info.bits:,} bits; {streams:,} sequences of "
                        f"{length:,} bits need {need_bytes:,} bytes (each starts on a 32-bit "
                        "word, as NIST's assess reads binary files)")
    raise UserError(f"{info.name}: holds {info.bits:,} bits, fewer than --streams {streams:,} "
                    f"x --length {length:,} = {need:,}")


class SequenceReader:
    """The source's sequences, one after another, each packed (``length`` bits, MSB first)."""

    def __init__(self, path: str, fmt: str, length: int) -> None:
        self.name = _label(path)
        self.fmt = fmt
        self.length = length
        self.fh: BinaryIO = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
        self.own = path != "-"
        self.next_index = 0
        self._pending = np.zeros(0, dtype=np.uint8)  # ASCII: bits read, not yet used
        self._offset = 0

    def close(self) -> None:
        if self.own:
            self.fh.close()

    def read(self, index: int) -> bytes:
        """Sequence ``index`` (the ones before it are read past, never returned twice)."""
        if index < self.next_index:
            raise ValueError(f"sequence {index} was already read")
        while self.next_index < index:
            self._one()
        return self._one()

    def _one(self) -> bytes:
        bits = self._binary() if self.fmt == "binary" else self._ascii()
        self.next_index += 1
        return np.packbits(bits).tobytes()

    def _short(self, got: int) -> UserError:
        return UserError(f"{self.name}: ended in sequence {self.next_index + 1:,}: it holds "
                         f"{self.next_index * self.length + got:,} bits, fewer than the "
                         f"sequences asked for x --length {self.length:,}")

    def _binary(self) -> npt.NDArray[np.uint8]:
        size = sequence_bytes("binary", self.length)
        data = _read_exactly(self.fh, size)
        if len(data) < size:
            raise self._short(len(data) * 8)
        return np.unpackbits(np.frombuffer(data, dtype=np.uint8))[: self.length]

    def _ascii(self) -> npt.NDArray[np.uint8]:
        parts = [self._pending]
        have = self._pending.size
        while have < self.length:
            block = self.fh.read(READ)
            if not block:
                raise self._short(have)
            chunk = np.frombuffer(block, dtype=np.uint8)
            _ascii_bad(chunk, self.name, self._offset)
            self._offset += len(block)
            bits = chunk[(chunk == ZERO) | (chunk == ONE)] - ZERO
            parts.append(bits.astype(np.uint8))
            have += bits.size
        data = np.concatenate(parts)
        self._pending = data[self.length:]
        return data[: self.length]


def _read_exactly(fh: BinaryIO, size: int) -> bytes:
    out = bytearray()
    while len(out) < size:
        block = fh.read(size - len(out))
        if not block:
            break
        out += block
    return bytes(out)

