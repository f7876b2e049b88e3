"""`etg rng stream` into a pipe by lent pages (rng.pipe_pages): the same bits, in order,
and a lent page never changes afterwards, whatever the reader does with it."""

from __future__ import annotations

import fcntl
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rng import pipe_pages
from rng.pipe_pages import (
    REGION_BYTES,
    REGIONS,
    can_lend_pages,
    huge_pages,
    stream_lending_pages,
)
from rng.settings import RngSettings
from rng.table_rng import open_table_rng

ETG = [sys.executable, "-m", "firmware"]
MIB = 1 << 20

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="vmsplice(2) is Linux's")


class Counting:
    """A stand-in source: byte i of the stream is i % 251 (a period prime to every page
    and region size, so bytes from another place in the stream would not match)."""

    def __init__(self) -> None:
        self.at = 0

    def stream_into(self, out: memoryview) -> None:
        out[:] = expected(self.at, len(out))
        self.at += len(out)


def expected(start: int, n: int) -> bytes:
    return (bytes(range(251)) * (n // 251 + 2))[start % 251:start % 251 + n]


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_pipe_is_lent_pages_a_file_or_a_socket_is_written(tmp_path: Path) -> None:
    r, w = os.pipe()
    a, b = socket.socketpair()
    with open(tmp_path / "f", "wb") as f:
        assert can_lend_pages(w) == huge_pages() and not can_lend_pages(f.fileno())
    assert not can_lend_pages(a.fileno())
    for fd in (r, w):
        os.close(fd)
    a.close()
    b.close()


@pytest.mark.skipif(not huge_pages(), reason="the stream lends pages only with huge pages")
def test_lent_pages_stay_what_was_lent_when_the_reader_splices_them_on() -> None:
    """A reader that moves the stream's pages into pipes of its own (as `pv` does with
    splice(2)) and reads them only after the ring has gone round several times still
    reads exactly the stream: a region is never written again once lent (without the
    drop, these held pages would show later output)."""
    n = (3 * REGIONS + 1) * REGION_BYTES + 12345
    proc = subprocess.Popen([*ETG, "rng", "stream", "--bytes", str(n), "--seed-hex",
                             "c0ffee"], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    held = []
    for _ in range(3):  # 3 MiB of the stream's own pages, held unread
        r, w = os.pipe()
        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, MIB)
        moved = 0
        while moved < MIB:
            moved += os.splice(fd, w, MIB - moved)
        os.close(w)
        held.append(r)
    rest = read_all(fd)
    assert proc.wait(timeout=60) == 0
    got = b"".join(read_all(r) for r in held) + rest
    for r in held:
        os.close(r)
    proc.stdout.close()
    with open_table_rng(RngSettings(seed_hex="c0ffee", cycle_hz=0.0), bench=True) as rng:
        assert got == rng.random_bytes(n)


@pytest.mark.parametrize("ahead", [pipe_pages.AHEAD, 0, pipe_pages.REGIONS])
def test_every_region_in_order_through_a_non_blocking_pipe(
        ahead: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many times round the ring, a partial last region, a reader slower than the
    writer, and a pipe in non-blocking mode (whether the kernel's vmsplice then waits
    itself or says EAGAIN, every byte arrives once, in order); with regions given fresh
    pages ahead, with none (the generator's own writes fault every region in), and with
    all of them."""
    monkeypatch.setattr(pipe_pages, "AHEAD", ahead)
    n = (2 * REGIONS + 1) * REGION_BYTES + 777
    r, w = os.pipe()
    os.set_blocking(w, False)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(read_all(r)))
    reader.start()
    try:
        stream_lending_pages(Counting(), w, n)
    finally:
        os.close(w)
    reader.join(timeout=60)
    os.close(r)
    assert got == [expected(0, n)]


def test_a_reader_that_goes_away_is_a_broken_pipe_and_nothing_is_left_running() -> None:
    r, w = os.pipe()
    os.close(r)
    before = threading.active_count()
    with pytest.raises(BrokenPipeError):
        stream_lending_pages(Counting(), w, None)
    os.close(w)
    assert threading.active_count() == before


def test_a_failing_source_stops_the_stream_with_its_error() -> None:
    class Failing(Counting):
        def stream_into(self, out: memoryview) -> None:
            if self.at >= 2 * REGION_BYTES:
                raise RuntimeError("entropy source failed")
            super().stream_into(out)

    r, w = os.pipe()
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(read_all(r)))
    reader.start()
    before = threading.active_count()
    with pytest.raises(RuntimeError, match="entropy source failed"):
        stream_lending_pages(Failing(), w, None)
    assert threading.active_count() == before
    os.close(w)
    reader.join(timeout=60)
    os.close(r)
    assert got[0] == expected(0, len(got[0])) and len(got[0]) <= 2 * REGION_BYTES
