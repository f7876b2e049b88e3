"""Journals kept as evidence: a journal is moved aside, never deleted.

A new journal (``etg journal init --archive``) or a bench table meeting a journal of an
older format moves the old one, with its write-ahead log, shared memory, head file and a
refused start's note, to a time-stamped name beside it, where the audit commands can
still read it. The note goes with its journal: left behind, it was the new journal's
first tamper alarm (717, red team r42 F5) and the old journal's refusal was lost.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

#: the journal and the files that belong to it (the refused start's note included)
SIDE_FILES = ("", "-wal", "-shm", ".head", ".refused")


def move_aside(path: Path) -> Path:
    """Move a journal (and its side files) aside, never deleting evidence."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.{stamp}")
    for suffix in SIDE_FILES:
        src = path.with_name(path.name + suffix)
        if src.exists():
            src.rename(target.with_name(target.name + suffix))
    return target


def move_back(kept: Path, path: Path) -> None:
    """Undo :func:`move_aside` (an init that could not complete changes nothing)."""
    for suffix in SIDE_FILES:
        src = kept.with_name(kept.name + suffix)
        if src.exists():
            src.rename(path.with_name(path.name + suffix))
