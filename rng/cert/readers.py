"""Reading draw files (the ``etg rng draws --format csv`` format), vectorized and chunked.

One outcome per line: a target ``17``, a multiplier ``10`` (``10x`` accepted), a card
``TD``; a shuffle is one shoe per line, its cards separated by commas. Leading lines
starting with ``#`` (or a header naming the kind) are skipped; ``\\r\\n`` line ends are
accepted. Parsing is done on blocks of bytes with numpy so 10^8 lines read in seconds; a
bad line stops the analysis with one line naming the file, the line number and the
problem.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt

from etgcore.errors import UserError
from rng.cert.tables import KINDS, OutcomeTable, token_index

BLOCK = 1 << 23  # bytes read per block (~2.8M one-outcome lines)
MAX_TOKEN = 8
U8 = npt.NDArray[np.uint8]


def _bad(path: Path, line: int, problem: str) -> UserError:
    return UserError(f"{path}: line {line}: {problem}")


Progress = Callable[[int], object] | None


def _blocks(path: Path, block: int, progress: Progress = None) -> Iterator[tuple[bytes, int]]:
    """Whole-line blocks of the file with the number of the first line in each."""
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    line_no = 1
    rest = b""
    with fh:
        while True:
            data = fh.read(block)
            if not data:
                break
            if progress is not None:
                progress(len(data))
            buf = rest + data
            cut = buf.rfind(b"\n")
            if cut < 0:
                rest = buf
                continue
            yield buf[: cut + 1], line_no
            line_no += buf.count(b"\n", 0, cut + 1)
            rest = buf[cut + 1 :]
    if rest:
        yield rest + b"\n", line_no


def _skip_header(buf: bytes, line_no: int, first: bool) -> tuple[bytes, int]:
    if not first:
        return buf, line_no
    while buf:
        end = buf.find(b"\n")
        head = buf[:end].strip()
        if head.startswith(b"#") or head.decode("ascii", "replace").lower() in KINDS or (
                head.lower() in (b"value", b"outcome")):
            buf = buf[end + 1 :]
            line_no += 1
        else:
            break
    return buf, line_no


def read_outcomes(path: str | Path, table: OutcomeTable, block: int = BLOCK,
                  progress: Progress = None) -> Iterator[npt.NDArray[np.uint8]]:
    """Category indexes of a one-outcome-per-line file, in chunks."""
    path = Path(path)
    index = token_index(table)
    tokens = sorted(index)
    keys = np.array([_pack(t) for t in tokens], dtype=np.uint64)
    order = np.argsort(keys)
    keys = keys[order]
    values = np.array([index[tokens[i]] for i in order], dtype=np.uint8)
    first = True
    seen = 0
    for buf, line_no in _blocks(path, block, progress):
        buf, line_no = _skip_header(buf, line_no, first)
        first = False
        if not buf:
            continue
        arr = np.frombuffer(buf, dtype=np.uint8)
        ends = np.flatnonzero(arr == 10)
        starts = np.concatenate([[0], ends[:-1] + 1])
        stop = ends.copy()
        cr = (stop > starts) & (arr[np.maximum(stop - 1, 0)] == 13)
        stop[cr] -= 1
        lengths = stop - starts
        bad_len = np.flatnonzero((lengths == 0) | (lengths > MAX_TOKEN))
        width = int(lengths[0]) if lengths.size else 0
        if 0 < width <= MAX_TOKEN and not cr.any() and bool(np.all(lengths == width)):
            cols = arr.reshape(-1, width + 1)  # fixed-width lines: no gather needed
            packed = np.zeros(cols.shape[0], dtype=np.uint64)
            for j in range(width):
                packed |= cols[:, j].astype(np.uint64) << np.uint64(8 * j)
        else:
            packed = _pack_lines(arr, starts, lengths)
        pos = np.searchsorted(keys, packed)
        pos = np.minimum(pos, keys.size - 1)
        unknown = np.flatnonzero(keys[pos] != packed)
        if bad_len.size or unknown.size:
            i = int(min(bad_len.min(initial=lengths.size), unknown.min(initial=lengths.size)))
            text = buf[starts[i] : stop[i]].decode("ascii", "replace")
            problem = "empty line" if lengths[i] == 0 else (
                f"{text[:20]!r} is not a {table.kind} (expected one of "
                f"{', '.join(table.labels[:13])}{', ...' if table.k > 13 else ''})")
            raise _bad(path, line_no + i, problem)
        seen += lengths.size
        yield values[pos]
    if seen == 0:
        raise UserError(f"{path}: no outcomes in the file")


def _pack(token: bytes) -> int:
    return int.from_bytes(token.ljust(MAX_TOKEN, b"\0"), "little")


def _pack_lines(arr: U8, starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64]
                ) -> npt.NDArray[np.uint64]:
    packed = np.zeros(starts.size, dtype=np.uint64)
    padded = np.concatenate([arr, np.zeros(MAX_TOKEN, dtype=np.uint8)])
    for j in range(MAX_TOKEN):
        byte = padded[starts + j].astype(np.uint64)
        byte[lengths <= j] = 0
        packed |= byte << np.uint64(8 * j)
    return packed


def read_shoes(path: str | Path, codes: tuple[str, ...], block: int = BLOCK,
               progress: Progress = None) -> Iterator[npt.NDArray[np.int64]]:
    """Rows of card indexes (into ``codes``), one shoe per line; all of one composition."""
    path = Path(path)
    lut = np.full(1 << 16, -1, dtype=np.int64)
    for i, c in enumerate(codes):
        lut[ord(c[0]) << 8 | ord(c[1])] = i
    width = -1
    reference: npt.NDArray[np.int64] | None = None
    first = True
    for buf, line_no in _blocks(path, block, progress):
        buf, line_no = _skip_header(buf, line_no, first)
        first = False
        if not buf:
            continue
        buf = buf.replace(b"\r\n", b"\n")
        arr = np.frombuffer(buf, dtype=np.uint8)
        ends = np.flatnonzero(arr == 10)
        starts = np.concatenate([[0], ends[:-1] + 1])
        lengths = ends - starts
        if width < 0:
            width = int(lengths[0])
            if width < 5 or (width + 1) % 3:
                raise _bad(path, line_no, "expected cards like TD separated by commas")
        odd = np.flatnonzero(lengths != width)
        if odd.size:
            i = int(odd[0])
            raise _bad(path, line_no + i, f"{(int(lengths[i]) + 1) // 3} cards where line 1 "
                       f"of the shoes has {(width + 1) // 3}")
        n = (width + 1) // 3
        rows = arr.reshape(-1, width + 1)
        seps = rows[:, 2 : width : 3]
        bad_sep = np.flatnonzero((seps != ord(",")).any(axis=1))
        idx = lut[rows[:, 0::3][:, :n].astype(np.int64) << 8 | rows[:, 1::3][:, :n]]
        bad_card = np.flatnonzero((idx < 0).any(axis=1))
        if bad_sep.size or bad_card.size:
            i = int(min(bad_sep.min(initial=rows.shape[0]), bad_card.min(initial=rows.shape[0])))
            col = np.flatnonzero(idx[i] < 0)
            what = (f"card {int(col[0]) + 1} is not a card code" if col.size else
                    "cards must be separated by commas")
            raise _bad(path, line_no + i, what)
        srt = np.sort(idx, axis=1)
        if reference is None:
            reference = srt[0].copy()
        wrong = np.flatnonzero((srt != reference).any(axis=1))
        if wrong.size:
            raise _bad(path, line_no + int(wrong[0]),
                       "the shoe's cards differ from line 1 (a card missing or doubled)")
        yield idx
    if reference is None:
        raise UserError(f"{path}: no shoes in the file")


def multiplicities(first_rows: npt.NDArray[np.int64], k: int) -> npt.NDArray[np.int64]:
    return np.bincount(first_rows[0], minlength=k).astype(np.int64)
