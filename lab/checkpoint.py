"""The checkpoint of a run: an append-only file of finished task results.

The first record names the run (what it computes, its seed, its size); each further
record is ``(task index, result)``, appended and fsynced as the task is folded, so a
run killed anywhere resumes from the tasks it had finished: :meth:`Checkpoint.open`
reads them back, and the run submits only the others. A record cut short by the kill
is ignored (that task is simply run again); a task index found twice is read once, so
nothing is counted twice. A checkpoint of another run (different rules, size or seed)
is refused rather than mixed in.

Records are pickles, so a checkpoint is trusted like the program itself: it is written
0600 and only ever read from the path the operator gave. It holds counts and sums,
never RNG state.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

from etgcore.errors import UserError

MAGIC = "etg-checkpoint/1"


class Checkpoint:
    """Finished task results of one run, on disk."""

    def __init__(self, path: Path, identity: Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.identity = dict(identity)
        self.done: dict[int, Any] = {}
        self._fh: BinaryIO | None = None

    def open(self, adopt: tuple[str, ...] = ()) -> dict[str, Any]:
        """Read what an earlier attempt finished; returns the run identity in force.

        Keys in ``adopt`` whose value is ``None`` here take the checkpoint's value (a run
        resumed without ``--seed`` continues with the seed the checkpoint recorded).
        """
        good_end = 0
        if self.path.exists() and self.path.stat().st_size:
            with self.path.open("rb") as fh:
                try:
                    head = pickle.load(fh)
                except (pickle.UnpicklingError, EOFError, ValueError):
                    raise UserError(f"{self.path}: not an etg checkpoint") from None
                if not isinstance(head, dict) or head.get("magic") != MAGIC:
                    raise UserError(f"{self.path}: not an etg checkpoint")
                recorded = dict(head["run"])
                for key in adopt:
                    if self.identity.get(key) is None:
                        self.identity[key] = recorded.get(key)
                if recorded != self.identity:
                    diff = sorted(k for k in set(recorded) | set(self.identity)
                                  if recorded.get(k) != self.identity.get(k))
                    raise UserError(f"{self.path}: a checkpoint of another run (differs in "
                                    f"{', '.join(diff)}); give another --checkpoint file "
                                    "or remove it to start again")
                good_end = fh.tell()
                while True:
                    try:
                        index, result = pickle.load(fh)
                    except (EOFError, pickle.UnpicklingError, ValueError, TypeError):
                        break  # the record a kill cut short: that task runs again
                    self.done.setdefault(int(index), result)
                    good_end = fh.tell()
            fd = os.open(self.path, os.O_WRONLY)
            os.ftruncate(fd, good_end)
            os.lseek(fd, good_end, os.SEEK_SET)
            self._fh = os.fdopen(fd, "ab")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            self._fh = os.fdopen(fd, "ab")
            self._write({"magic": MAGIC, "run": self.identity})
        return self.identity

    def append(self, index: int, result: Any) -> None:
        """Record task ``index`` as finished with ``result`` (durable when this returns)."""
        self._write((index, result))

    def _write(self, record: Any) -> None:
        assert self._fh is not None, "open() the checkpoint first"
        self._fh.write(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
