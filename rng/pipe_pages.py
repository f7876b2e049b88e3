"""`etg rng stream` into a pipe by lending it pages (vmsplice(2)) instead of copying.

WHY: write(2) into a pipe copies every byte into pages the pipe allocates, 4 KiB at a
time, and the reader's read(2) copies them out and frees them again. Measured on the
2-core test machine (docs/rng.md), that writer's copy and the reader's read each cost
about 0.2-0.25 s of CPU per GiB: together more than the DRBG's own generation, and both
on the one core the DRBG does not use, so they set the stream's rate. Here the DRBG
generates straight into pages of this process and vmsplice(2) puts references to them
into the pipe: no copy on the writer's side, and the reader's read(2) copies out of
those pages without a pipe page to free per 4 KiB.

Safety: a page lent to the pipe may be read at any later time, or passed on by the
reader with splice(2)/tee(2) to another pipe or a socket, still the same page. So a page
is never written again once lent. Each region is generated into once, lent, and then
dropped (MADV_DONTNEED): the process keeps no mapping of those pages, the pipe keeps
its references, and the region's next use gets fresh pages that the kernel zeroes. A
helper thread asks for those fresh pages ahead of time (MADV_POPULATE_WRITE), so the
kernel's zeroing runs on the other core while the DRBG generates. What a pipe holds
stays exactly what was handed over, whoever reads it and whenever.

The regions hold stream output only; the DRBG's Key and V stay in its own buffers. Where
this is not possible (not Linux, not a pipe, no vmsplice in the C library, no
transparent huge pages) the caller falls back to write(2) (:mod:`rng.stream`).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import errno
import functools
import mmap
import os
import queue
import select
import stat
import threading
from pathlib import Path
from typing import Any, Protocol

#: One region: a transparent huge page where the kernel gives one, 32 generate requests.
REGION_BYTES = 2 << 20
#: Regions in the ring: generated, lent or being given fresh pages. 16 MiB ahead of the
#: reader rides out the other threads' scheduling delays on a busy machine.
REGIONS = 8
#: Free regions given fresh pages ahead of the generator (the rest wait without pages).
AHEAD = 2
_SPLICE_F_GIFT = 8  # the pages are given: this process never writes them again
_MADV_DONTNEED = 4
_MADV_POPULATE_WRITE = 23  # Linux 5.14: fault the range in, writable, now


class Filler(Protocol):
    def stream_into(self, out: memoryview) -> None: ...


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


@functools.cache
def _libc() -> Any:
    """The C library with vmsplice and madvise typed, or None where there is no vmsplice.
    ctypes releases the GIL around each call (and `cryptography` around each keystream
    call), so the helper's kernel work overlaps the generation."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # this process's own C library
        libc.vmsplice.argtypes = [ctypes.c_int, ctypes.POINTER(_Iovec), ctypes.c_ulong,
                                  ctypes.c_uint]
        libc.vmsplice.restype = ctypes.c_ssize_t
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.madvise.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


@functools.cache
def huge_pages() -> bool:
    """Whether the kernel gives transparent huge pages to a region that asks for them.

    WHY it decides: with 4 KiB pages the helper takes 512 page faults per region (about
    0.6-0.7 s of CPU per GiB measured here), more than the write(2) pump costs."""
    try:
        mode = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return False
    return "[always]" in mode or "[madvise]" in mode


def can_lend_pages(fd: int) -> bool:
    """Whether ``fd`` is a pipe, this system has vmsplice, and huge pages to lend."""
    try:
        is_pipe = stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False
    return is_pipe and _libc() is not None and huge_pages()


class _Ring:
    """REGIONS aligned regions of private memory and the helper thread that lends each
    generated region to the pipe, drops its pages and gives regions fresh ones.

    WHY a thread: vmsplice waits while the pipe is full, and the kernel's zeroing of
    fresh pages costs about half as much as the generation; both run here, off the
    generating thread (ctypes releases the GIL for each call), so the DRBG only
    generates. Regions go round: free (``fresh``: pages faulted in; ``dropped``: no
    pages) -> generated -> ``full`` -> lent, dropped -> free.

    WHY only :data:`AHEAD` regions are given fresh pages ahead of the generator: pages
    zeroed long before use have left the caches, and the generating thread then spends
    about a third more on its writes than into a buffer it reuses (measured, docs/rng.md).
    The other regions wait without pages; if the helper falls behind, the generator takes
    one of those and its own first writes fault the pages in, so it never waits for the
    helper while any region is free.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.libc = _libc()
        self.map = mmap.mmap(-1, (REGIONS + 1) * REGION_BYTES,
                             flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        base = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        self.off = -base % REGION_BYTES  # regions on huge-page boundaries
        self.addr = base + self.off
        with contextlib.suppress(AttributeError, OSError):  # no THP: 4 KiB pages
            self.map.madvise(mmap.MADV_HUGEPAGE, self.off, REGIONS * REGION_BYTES)
        self.view = memoryview(self.map)
        self.full: queue.SimpleQueue[tuple[int, int] | None] = queue.SimpleQueue()
        self.free = threading.Condition()
        self.fresh: collections.deque[int] = collections.deque()
        self.dropped = collections.deque(range(REGIONS))  # never touched: no pages yet
        self.failure: BaseException | None = None
        self.stopping = False
        self.helper = threading.Thread(target=self._run, name="etg-stream-pages",
                                       daemon=True)
        self.helper.start()

    def region(self, i: int, n: int) -> memoryview:
        at = self.off + i * REGION_BYTES
        return self.view[at:at + n]

    def next_free(self) -> int:
        """A free region, one with fresh pages if there is one (waits while none is
        free); raises what stopped the helper."""
        with self.free:
            while not (self.fresh or self.dropped or self.failure):
                self.free.wait()
            if self.failure is not None:
                raise self.failure
            return self.fresh.popleft() if self.fresh else self.dropped.popleft()

    def _run(self) -> None:
        try:
            self._top_up()
            while (item := self.full.get()) is not None and not self.stopping:
                i, n = item
                _lend(self.libc, self.fd, self.addr + i * REGION_BYTES, n)
                self._drop(i)
                with self.free:
                    self.dropped.append(i)
                    self.free.notify()
                self._top_up()
        except BaseException as exc:  # handed to the generating thread
            with self.free:
                self.failure = exc
                self.free.notify()

    def _drop(self, i: int) -> None:
        """Unmap region ``i``'s pages: those lent live on in the pipe, never written again."""
        if self.libc.madvise(self.addr + i * REGION_BYTES, REGION_BYTES, _MADV_DONTNEED):
            err = ctypes.get_errno()
            raise OSError(err, f"madvise(MADV_DONTNEED): {os.strerror(err)}")

    def _top_up(self) -> None:
        """Fault dropped regions in afresh until :data:`AHEAD` have pages (the kernel
        zeroes them here, not in the generating thread; without MADV_POPULATE_WRITE the
        first write does it)."""
        while True:
            with self.free:
                if len(self.fresh) >= AHEAD or not self.dropped:
                    return
                i = self.dropped.popleft()
            self.libc.madvise(self.addr + i * REGION_BYTES, REGION_BYTES,
                              _MADV_POPULATE_WRITE)
            with self.free:
                self.fresh.append(i)
                self.free.notify()

    def finish(self) -> None:
        """Lend what is queued, then stop the helper."""
        self.full.put(None)
        self.helper.join()

    def close(self) -> None:
        """Stop the helper; unmap the ring only once it can no longer lend from it."""
        self.stopping = True
        self.full.put(None)
        self.helper.join(timeout=0.5)  # Ctrl-C with a reader that stopped reading
        self.view.release()
        if not self.helper.is_alive():  # else it waits in vmsplice: the process exits
            with contextlib.suppress(BufferError):  # a traceback holds a region: at exit
                self.map.close()


def _lend(libc: Any, fd: int, addr: int, n: int) -> None:
    """vmsplice [addr, addr + n) into the pipe, waiting while it is full."""
    iov = _Iovec(addr, n)
    while iov.len:
        done = libc.vmsplice(fd, ctypes.byref(iov), 1, _SPLICE_F_GIFT)
        if done >= 0:
            iov.base += done
            iov.len -= done
            continue
        err = ctypes.get_errno()
        if err == errno.EINTR:
            continue
        if err == errno.EAGAIN:  # a non-blocking pipe, where vmsplice honours it
            select.select([], [fd], [])
            continue
        if err == errno.EPIPE:
            raise BrokenPipeError(err, os.strerror(err))
        raise OSError(err, f"vmsplice: {os.strerror(err)}")


def stream_lending_pages(source: Filler, fd: int, total: int | None) -> None:
    """Write ``total`` bytes (None: until the reader goes away, BrokenPipeError) of the
    source's stream into the pipe ``fd``: each region generated into here, then lent,
    dropped and refilled by the helper thread."""
    ring = _Ring(fd)
    try:
        left = total
        while left is None or left > 0:
            i = ring.next_free()
            n = REGION_BYTES if left is None else min(left, REGION_BYTES)
            source.stream_into(ring.region(i, n))
            ring.full.put((i, n))
            if left is not None:
                left -= n
        ring.finish()
        if ring.failure is not None:
            raise ring.failure
    finally:
        ring.close()
