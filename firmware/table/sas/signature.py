"""The SAS ROM signature (long poll 21): the host's 16-bit seed as the initial value of
the SAS CRC over the installed release, file by file in the order and framing of
``etg verify --seed`` (deploy.seeded_hmac: each file's path, a newline, its size, a
newline, its content; paths sorted by their UTF-8 bytes).

It runs on a worker thread of its own, never on the controller's (play goes on) nor the
link's (other polls are answered meanwhile): the first poll with a seed starts it, the
host's repeat of the poll gets the answer once it is ready. One computation at a time;
a result is answered only for :attr:`Signer.FRESH_S` after it was computed (red team F3:
a cached value would hide a file changed since).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from pathlib import Path

from deploy.manifest import installed_root
from deploy.program import MANIFEST_NAME, read_chunks, release_files, tree_files
from drivers.sas.crc import Crc16

log = logging.getLogger("etg.sas")


def program_files(root: Path) -> list[str]:
    """An installed release's files (what ``etg verify`` covers); a source checkout's
    program files on a bench."""
    if (root / MANIFEST_NAME).is_file():
        return tree_files(root)
    return release_files(root)


def rom_signature(root: Path, seed: int) -> int:
    crc = Crc16(seed)
    for rel in sorted(program_files(root), key=lambda p: p.encode("utf-8")):
        path = root / rel
        crc.update(rel.encode("utf-8") + b"\n" + str(path.stat().st_size).encode() + b"\n")
        for chunk in read_chunks(path):
            crc.update(chunk)
    return crc.value


class Signer:
    #: at most one new computation per this many seconds (a host flooding fresh seeds
    #: costs the table one short computation a second, not a core)
    MIN_INTERVAL_S = 1.0

    def __init__(self, root: Path | None = None, wait_s: float = 0.01) -> None:
        self.root = root or installed_root()
        self.wait_s = wait_s
        self._started = -1e9
        self._done: OrderedDict[int, tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    #: a result is answered only this long after its computation ended: a host asking
    #: again later (the same seed or not) gets the files as they are then, never a value
    #: computed before a change
    FRESH_S = 3.0

    def signature(self, seed: int) -> int | None:
        """The signature for ``seed`` if computed moments ago; otherwise start it (if
        nothing else is running) and wait a moment, then None: the host polls again."""
        with self._lock:
            done = self._done.get(seed)
            if done is not None and time.monotonic() - done[1] <= self.FRESH_S:
                return done[0]
            self._done.pop(seed, None)
            if self._worker is not None and self._worker.is_alive():
                return None  # one at a time; a flood of seeds waits for nothing
            now = time.monotonic()
            if now - self._started < self.MIN_INTERVAL_S:
                return None
            self._started = now
            self._worker = threading.Thread(target=self._run, args=(seed,),
                                            name="sas-signature", daemon=True)
            self._worker.start()
            worker = self._worker
        worker.join(self.wait_s)  # a small release is done at once
        with self._lock:
            done = self._done.get(seed)
            return None if done is None else done[0]

    def fresh_left(self, seed: int) -> float:
        """How much longer the computed signature of ``seed`` may be answered (the link
        process is told it with the value)."""
        with self._lock:
            done = self._done.get(seed)
            return 0.0 if done is None else max(0.0, self.FRESH_S - (time.monotonic() - done[1]))

    def ready(self, seed: int) -> int | None:
        """The signature for ``seed`` if a computation has it fresh; never starts one
        (the link asks this while a host waits for its answer)."""
        with self._lock:
            done = self._done.get(seed)
            if done is not None and time.monotonic() - done[1] <= self.FRESH_S:
                return done[0]
            return None

    def _run(self, seed: int) -> None:
        try:
            value = rom_signature(self.root, seed)
        except Exception:
            log.exception("SAS ROM signature failed")
            return
        with self._lock:
            self._done[seed] = (value, time.monotonic())
            while len(self._done) > 8:
                self._done.popitem(last=False)
