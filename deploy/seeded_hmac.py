"""The seeded software signature a gaming lab takes in the field.

A lab brings a fresh random seed, the table computes HMAC-SHA256 keyed by it over every
program file, and the lab compares the result with the value its own copy of the approved
release gives. A fresh seed each time means a table cannot answer from a stored value: it
must read the files it actually holds.

The computation, defined so that a lab can reproduce it with standard tools
(docs/deploy.md shows a shell one-liner with ``openssl dgst``):

- key: the seed's bytes (the hex digits decoded);
- files: every file under the release root except the top-level ``MANIFEST.json`` and
  ``MANIFEST.sig``, named by its path relative to the root with ``/`` separators;
- order: ascending by the path's UTF-8 bytes (``LC_ALL=C sort``);
- message: for each file, ``path``, a newline, its size in bytes as ASCII decimal, a
  newline, then its content;
- result: HMAC-SHA256(key, message) as 64 lowercase hex digits.

Framing each file with its name and length means that renaming a file or moving bytes
between two files changes the result, which plain concatenation would not notice.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable
from pathlib import Path

from deploy.errors import ReleaseInputError
from deploy.program import read_chunks, tree_files

MAX_SEED_BYTES = 1024
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


def parse_seed(text: str) -> bytes:
    """The seed's bytes from hex digits (an optional ``0x`` and spaces are allowed)."""
    digits = "".join(text.split())
    if digits[:2].lower() == "0x":
        digits = digits[2:]
    if not _HEX.fullmatch(digits):
        raise ReleaseInputError(
            "--seed: expected an even number of hex digits, e.g. 00112233aabbccdd")
    seed = bytes.fromhex(digits)
    if len(seed) > MAX_SEED_BYTES:
        raise ReleaseInputError(f"--seed: at most {MAX_SEED_BYTES} bytes")
    return seed


def _frame(path: str, size: int) -> bytes:
    return path.encode("utf-8") + b"\n" + str(size).encode("ascii") + b"\n"


def hmac_of_entries(seed: bytes, entries: Iterable[tuple[str, bytes]]) -> str:
    """The seeded HMAC over in-memory ``(path, content)`` pairs (order is imposed here)."""
    mac = hmac.new(seed, digestmod=hashlib.sha256)
    for path, content in sorted(entries, key=lambda e: e[0].encode("utf-8")):
        mac.update(_frame(path, len(content)))
        mac.update(content)
    return mac.hexdigest()


def hmac_of_tree(root: str | Path, seed: bytes) -> tuple[str, int]:
    """The seeded HMAC over the files on disk under ``root``, and how many files it covered."""
    root = Path(root)
    mac = hmac.new(seed, digestmod=hashlib.sha256)
    paths = tree_files(root)
    for path in paths:
        full = root / path
        size = full.stat().st_size
        mac.update(_frame(path, size))
        read = 0
        for chunk in read_chunks(full):
            mac.update(chunk)
            read += len(chunk)
        if read != size:
            raise ReleaseInputError(f"{full}: changed while it was being read; run again")
    return mac.hexdigest(), len(paths)
