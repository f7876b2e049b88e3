"""A refused start, kept as evidence (issue 42, red team s42 F2 and F3).

A start whose reading finds the journal changed after its proof
(:mod:`firmware.journal.start_guard`) writes nothing more into that journal: it leaves a
note beside it, ``<journal>.refused``, and the next start that proves the journal turns
the note into event 715. Two ways to defeat that, and what holds against each:

- **a forged note** (F2): the note is a plain file; anyone who can write the directory can
  put words into it. So the refusing start, which holds the table's secret, MACs every
  field of its note (HMAC-SHA256, its own domain string); a line that does not verify, or
  a verified line that was journaled before and put back, is journaled as what it is,
  event 717 "an unverified refusal note" with its bytes (bounded) as evidence, never as a
  genuine 715 with the writer's words.
- **a suppressed note** (F3): whoever made the edit undoes it and deletes the note. But a
  refused start has usually committed its power-up (event 100) already, a keyed record
  nobody can remove without cutting the chain. Every start looks at the journal's last
  power-up: with no READY (102) or stop (101) after it, that start did not finish, and
  event 716 names it ("a start that did not finish"), with the refusals journaled with
  it. A ``kill -9`` or a power cut during a start leaves exactly that too, so 716 is a
  fact, never a tamper alarm: the refusal's reason is in 715 when its note was kept, and
  in the system log (where the refused start put it) in any case. What a refusal that
  came before the start's first commit leaves is the note and the system log only:
  restoring every file as it was is a rollback, which only the floor's witness sees.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from firmware.journal.codes import EventCode

#: the fields of a note line, all MACed (``mac`` over the others)
FIELDS = ("ts_ns", "refused", "pid", "boot", "at")
#: bounds: the note read, the lines journaled, the evidence kept of a line
READ_MAX, LINES_MAX, EVIDENCE_MAX = 64_000, 20, 400
_DOMAIN = b"etg-refusal-note-v1|"


class _Appends(Protocol):
    """What :func:`refused_starts` needs of the journal it writes into (a Protocol: this
    module is below the store)."""

    path: Path
    key: bytes | None

    def append_one(self, kind: str, body: dict[str, Any], *, code: int | None = None
                   ) -> Any: ...
    def records(self, *, since_seq: int = 0, kinds: Iterable[str] | None = None,
                upto_seq: int | None = None, newest_first: bool = False,
                codes: Iterable[int] | None = None) -> Iterator[Any]: ...


def note_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".refused")


def _mac(key: bytes, fields: dict[str, Any]) -> str:
    msg = json.dumps([fields.get(f) for f in FIELDS], separators=(",", ":"))
    return hmac.new(key, _DOMAIN + msg.encode("utf-8"), hashlib.sha256).hexdigest()


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()[:64]
    except OSError:
        return ""


def note_refusal(journal: Path, message: str, key: bytes | None,
                 at: tuple[int, str] = (0, "")) -> None:
    """Keep a refused start's reason beside the journal (never in the journal it
    distrusts), MACed with the table's secret, with ``at``: the record its journal ended
    at then and its hash (a note of another journal under the same secret, an archived
    one's, names a record this journal does not hold). The next start that proves the
    journal journals it."""
    line: dict[str, Any] = {"ts_ns": time.time_ns(), "refused": message[:2000],
                            "pid": os.getpid(), "boot": _boot_id(), "at": [at[0], at[1]]}
    if key is not None:
        line["mac"] = _mac(key, line)
    with contextlib.suppress(OSError):
        fd = os.open(note_path(journal), os.O_WRONLY | os.O_CREAT | os.O_APPEND
                     | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")


def _evidence(line: str, why: str) -> tuple[int, dict[str, Any]]:
    raw = line.encode("utf-8", "surrogateescape")
    return int(EventCode.REFUSAL_NOTE_UNVERIFIED), {
        "why": why, "note": line[:EVIDENCE_MAX], "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest()}


def judge(line: str, key: bytes | None, seen: set[str],
          hash_of: Callable[[int], str | None]) -> tuple[int, dict[str, Any]]:
    """One line of the note: (715, the refusal) if its MAC verifies with ``key``, the
    record it names is this journal's (``hash_of(seq)``) and it was not journaled before
    (its MAC in ``seen``); else (717, the evidence)."""
    try:
        item = json.loads(line)
    except ValueError:
        return _evidence(line, "not a note a start wrote (not JSON)")
    if not isinstance(item, dict) or set(item) != {*FIELDS, "mac"} or not (
            type(item["ts_ns"]) is int and type(item["pid"]) is int
            and isinstance(item["refused"], str) and isinstance(item["boot"], str)
            and isinstance(item["mac"], str) and _is_end(item["at"])):
        return _evidence(line, "not a note a start wrote (its fields)")
    if key is None or not hmac.compare_digest(item["mac"], _mac(key, item)):
        return _evidence(line, "its MAC does not verify with this table's secret: not "
                         "written by a start of this table")
    seq, digest = item["at"]
    if seq and hash_of(seq) != digest:
        return _evidence(line, f"it names record {seq} with a hash this journal's record "
                         f"{seq} does not have: a note of another journal")
    if item["mac"] in seen:
        # a genuine refusal of this journal already in it as a 715: a start killed after
        # committing it and before removing the note leaves exactly this (red team r42
        # F7), and one put back adds no fact: nothing to write, never a tamper alarm
        return 0, {}
    seen.add(item["mac"])
    return int(EventCode.START_REFUSED), {f: item[f] for f in (*FIELDS, "mac")}


def _is_end(at: object) -> bool:
    return (isinstance(at, list) and len(at) == 2 and type(at[0]) is int and at[0] >= 0
            and isinstance(at[1], str))


def read_note(journal: Path) -> tuple[list[str], int, int]:
    """The note's last lines (at most :data:`LINES_MAX` of its first :data:`READ_MAX`
    bytes), how many lines more it held, and the file's size; a link or anything not a
    file reads as none."""
    try:
        fd = os.open(note_path(journal), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return [], 0, 0
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return [], 0, 0
        data = os.read(fd, READ_MAX)
    except OSError:
        return [], 0, 0
    finally:
        os.close(fd)
    lines = [ln for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
    return lines[-LINES_MAX:], max(0, len(lines) - LINES_MAX), st.st_size


def refused_starts(journal: _Appends) -> None:
    """At a start, once the journal is proven: the note's refusals (715, or 717 for a
    line that is not a genuine refusal), then the last start if it did not finish (716);
    the note goes once they are written."""
    lines, more, size = read_note(journal.path)
    written: list[int] = []
    if _not_a_file(note_path(journal.path)):  # where a start would write its note
        written.append(journal.append_one("event", {
            "why": f"{note_path(journal.path).name} is not a regular file (a link, a "
                   "directory or a FIFO): a refused start's note cannot be kept there",
            "note": "", "bytes": 0}, code=int(EventCode.REFUSAL_NOTE_UNVERIFIED)).seq)
    if lines:
        seen = {str(r.body.get("mac")) for r in journal.records(
            kinds=["event"], codes=[int(EventCode.START_REFUSED)]) if r.body.get("mac")}
        for i, line in enumerate(lines):
            code, body = judge(line, journal.key, seen, lambda s: _hash_of(journal, s))
            if not code:
                continue
            if i == 0 and more:
                body = {**body, "lines_not_journaled": more}
            if i == 0 and size > READ_MAX:  # what was not read is said, not hidden
                body = {**body, "note_file_bytes": size, "note_bytes_read": READ_MAX}
            written.append(journal.append_one("event", body, code=code).seq)
        remove_note(journal.path)
    unfinished = unfinished_start(journal)
    if unfinished is not None:
        journal.append_one("event", {**unfinished, "notes": written},
                           code=int(EventCode.START_UNFINISHED))


def _not_a_file(path: Path) -> bool:
    try:
        return not stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _hash_of(journal: _Appends, seq: int) -> str | None:
    found = next(journal.records(since_seq=seq - 1, upto_seq=seq), None)
    return None if found is None else str(found.hash)


def unfinished_start(journal: _Appends) -> dict[str, Any] | None:
    """The journal's last power-up, if no READY, no stop and no 716 came after it (an
    offline ``etg credits`` writes no power-up: it names an orphan once, not again)."""
    up = next(journal.records(kinds=["event"], codes=[int(EventCode.POWER_UP)],
                              newest_first=True), None)
    if up is None:
        return None
    ends = (int(EventCode.READY), int(EventCode.POWER_DOWN),
            int(EventCode.START_UNFINISHED))  # ready, stopped, or named already
    if next(journal.records(since_seq=up.seq, kinds=["event"], codes=ends), None):
        return None
    return {"power_up": up.seq, "pid": up.body.get("pid"),
            "what": "a start that did not finish: killed or powered off while starting, "
                    "or refused (event 715 says why when its note was kept; the system "
                    "log in any case)"}


def remove_note(journal: Path) -> None:
    with contextlib.suppress(OSError):
        note_path(journal).unlink()
