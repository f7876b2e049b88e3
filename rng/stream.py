"""`etg rng stream` to a file descriptor: raw DRBG output at the mechanism's own speed.

Into a pipe (the lab's case: ``etg rng stream | dieharder ...``) the DRBG generates
straight into pages that are then lent to the pipe with vmsplice(2) and never written
again (:mod:`rng.pipe_pages`): no copy on the writer's side, and the kernel's work for
it runs on a helper thread, off the generating one.

Anywhere else (``--out FILE``, a socket, a system without vmsplice) two processes share
the work. This one runs the DRBG and generates straight into a ring of :data:`SLOTS`
shared slots of :data:`SLOT_BYTES`; a *pump*, forked before the DRBG is instantiated,
writes each full slot to the output with write(2) and hands it back.

WHY: write(2) copies every byte into the kernel; in one process that copy takes turns
with the generation (the stream then ran at about half the in-process rate). With the
pump the copy runs on another core while the next slot is generated.

What the pump can see: its memory is a copy of this process from *before* the entropy
source was opened and the DRBG instantiated, plus the ring, which only ever holds output
(the DRBG keeps its Key and V in its own buffers). The ring is wiped at the end.

Protocol: this process sends ``(slot, length)`` on one pipe for each slot filled, the
pump answers with the slot's number on another once it is written. A reader that goes
away (EPIPE) makes the pump exit with :data:`_GONE`, which this process turns into
``BrokenPipeError`` for the caller, as a direct write would be.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import signal
import struct
import sys
from collections.abc import Callable
from typing import Protocol

from etgcore.child import signals_held
from rng.pipe_pages import Filler, can_lend_pages, stream_lending_pages

#: One slot: 16 generate requests of 2^19 bits, written with one write(2).
SLOT_BYTES = 1 << 20
#: Slots in the ring: the generator runs up to this far ahead of the pump.
SLOTS = 4
_MESSAGE = struct.Struct("<BI")  # slot, length: one atomic pipe write (< PIPE_BUF)
_GONE = 3  # the pump's exit status when the reader closed the output


class StreamSource(Filler, Protocol):
    def close(self) -> None: ...


def stream_to_fd(open_source: Callable[[], StreamSource], fd: int,
                 total: int | None) -> None:
    """Write ``total`` bytes (None: until the reader goes away) of the source's stream to
    ``fd``, in the same order as consecutive 2^19-bit requests written one by one."""
    if can_lend_pages(fd):  # a pipe: lend it the pages, no second process
        source = open_source()
        try:
            stream_lending_pages(source, fd, total)
        finally:
            source.close()
        return
    ring = mmap.mmap(-1, SLOTS * SLOT_BYTES)  # MAP_SHARED: the pump sees what we write
    full_r, full_w = os.pipe()
    free_r, free_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    with signals_held():  # a Ctrl-C in Python's at-fork hooks would be dropped there
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # the pump: Ctrl-C ends it quietly
    if pid == 0:  # the pump: never returns
        os.close(full_w)
        os.close(free_r)
        _pump(memoryview(ring), fd, full_r, free_w)
    os.close(full_r)
    os.close(free_w)
    gone = False
    try:
        source = open_source()
        try:
            gone = not _generate(source, memoryview(ring), full_w, free_r, total)
        finally:
            source.close()
    finally:
        with contextlib.suppress(OSError):
            os.close(full_w)  # end of stream: the pump writes what is queued, then exits
        status = os.waitpid(pid, 0)[1]
        os.close(free_r)
        ring[:] = bytes(len(ring))
        ring.close()
    if gone or os.waitstatus_to_exitcode(status) == _GONE:
        raise BrokenPipeError("the reader closed the stream")
    if os.waitstatus_to_exitcode(status) != 0:
        raise OSError(f"etg rng stream: the writer process failed (status {status})")


def _generate(source: StreamSource, ring: memoryview, full_w: int, free_r: int,
              total: int | None) -> bool:
    """Fill free slots and pass them on; False when the pump has gone (reader closed)."""
    free = list(range(SLOTS))
    left = total
    while left is None or left > 0:
        if not free:
            back = os.read(free_r, SLOTS)
            if not back:
                return False
            free = list(back)
        slot = free.pop()
        n = SLOT_BYTES if left is None else min(left, SLOT_BYTES)
        view = ring[slot * SLOT_BYTES:slot * SLOT_BYTES + n]
        source.stream_into(view)
        try:
            os.write(full_w, _MESSAGE.pack(slot, n))
        except BrokenPipeError:
            return False
        if left is not None:
            left -= n
    return True


def _pump(ring: memoryview, fd: int, full_r: int, free_w: int) -> None:
    """Write each slot named on ``full_r`` to ``fd`` and give it back on ``free_w``."""
    code = 0
    try:
        pending = b""
        while True:
            data = os.read(full_r, 16 * _MESSAGE.size)
            if not data:
                break
            pending += data
            whole = len(pending) - len(pending) % _MESSAGE.size
            for slot, n in _MESSAGE.iter_unpack(pending[:whole]):
                view = ring[slot * SLOT_BYTES:slot * SLOT_BYTES + n]
                while view:
                    view = view[os.write(fd, view):]
                with contextlib.suppress(BrokenPipeError):  # the generator has stopped
                    os.write(free_w, bytes([slot]))
            pending = pending[whole:]
    except BrokenPipeError:
        code = _GONE
    except BaseException as exc:  # report, never unwind into the parent's code
        with contextlib.suppress(Exception):
            os.write(2, f"etg rng stream: write failed: {exc}\n".encode())
        code = 1
    os._exit(code)
