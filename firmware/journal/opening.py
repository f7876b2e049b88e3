"""Which journal a table may write, and when a new one may begin.

The journal is the table's critical memory. In production a missing, empty or unreadable
journal is a fault — the table refuses to play and says why — because silently starting
afresh would erase the evidence of every round and every credit (a "RAM clear" on a gaming
device is a deliberate act). A new journal is begun only by a technician, with a reason
that the new journal's first record keeps: ``etg journal init --reason ...``. Bench mode
creates one (and its secret) freely.

Whatever the mode, the journal is verified — keyed chain, head file, meters — before the
first write: a journal that fails is refused untouched, its refusal going to the system
log and the screen, never into the journal it distrusts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import getpass
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from etgcore.errors import UserError
from firmware.journal import key as journal_key
from firmware.journal.archive import move_aside, move_back
from firmware.journal.chain import GENESIS
from firmware.journal.errors import JournalDamaged, JournalKeyError, JournalRefused
from firmware.journal.files import JournalFileError, check_is_journal, make_writable_private
from firmware.journal.proven_index import ProvenIndex
from firmware.journal.refusal import refused_starts
from firmware.journal.schema import BlankJournal, OldJournalFormat
from firmware.journal.start_guard import JournalChangedDuringStart, file_identity
from firmware.journal.store import BESIDE, Journal, JournalError, VerifyResult, _Beside
from firmware.journal.succession import can_retire, retire, superseded_result
from firmware.journal.witness import Witness
from firmware.journal.write_hold import HeldUntilWritten, take_write_lock

log = logging.getLogger("etg.table.journal")



#: the table's meter proof (firmware.table.meter_proof.prove, handed in by the command
#: line): run on the verified journal, read-only, before the table writes anything
Prove = Callable[[Journal], VerifyResult]
#: what a start's proof found: the last record, its hash, the meters, the walk's note of
#: every record (firmware.journal.proven_index), which the writer reads by
Proven = tuple[int, str, dict[Any, int], ProvenIndex | None]


def table_key(journal_path: str | Path, key_path: str, bench: bool, *, new: bool) -> bytes:
    """The table's secret: the configured one. Bench mode creates it with a new journal,
    and never beside a journal that exists without one: a new secret could never verify
    that journal, and would hide that its own secret went missing."""
    path = journal_key.key_path_for(journal_path, key_path)
    if bench and new and not Path(path).exists():
        return journal_key.create(path)
    try:
        return journal_key.load(path)
    except journal_key.JournalKeyError as exc:
        if bench and not new and not Path(path).exists():
            raise journal_key.JournalKeyError(
                f"{exc}; the journal {journal_path} exists without it, so it cannot be "
                "verified: keep it as evidence and begin a new one (etg journal init "
                "--reason ... --archive)") from None
        raise


def system_log(message: str) -> None:
    """Put a refusal into the system log (syslog, i.e. journald on the Pi) without a
    second line on stderr: the command line prints the refusal there once."""
    import syslog

    syslog.openlog("etg", syslog.LOG_PID, syslog.LOG_DAEMON)
    syslog.syslog(syslog.LOG_CRIT, message)


def _refuse(message: str) -> JournalRefused:
    system_log(message)
    return JournalRefused(message)


def open_for_table(journal_path: str | Path, key_path: str, *, bench: bool,
                   who: str = "etg run", prove: Prove | None = None,
                   hold: bool = False) -> Journal:
    """The journal a table (or an offline credit transfer) writes, verified first.

    An existing journal is verified through a read-only connection before the writer
    opens it at all — from its last checkpoint: the schema, the keyed chain and commit
    markers, the head, the meters, then ``prove`` (the engine replay) — so a refused
    journal is left exactly as it was found. SQLite's write lock is taken before the
    proof and held until the writer has opened and taken its baseline, and from then on
    every reading of the start is checked against that baseline
    (:mod:`firmware.journal.start_guard`): nobody commits between the proof and what the
    start reads unnoticed. ``hold`` (an offline transfer: it decides about money on what
    it reads): the lock is held on until the writer's first write
    (:mod:`firmware.journal.write_hold`)."""
    path = Path(journal_path)
    try:
        check_existing(path)
        exists = True
    except JournalError as exc:
        if not bench:
            raise _refuse(
                f"{exc}: a production table never begins a new journal by itself; a "
                "technician begins one with `etg journal init --reason ...` (docs/table.md)"
            ) from None
        exists = False
    try:
        key = table_key(path, key_path, bench, new=not exists or _blank(path))
    except UserError as exc:
        raise _refuse(f"{exc}; the table will not start") from None
    proven_from, proven = 1, None
    try:  # every plain descriptor of its files before SQLite's first (make_writable_private)
        if exists:
            make_writable_private(path)
    except JournalError as exc:
        raise _refuse(f"{exc}; the table will not start") from None
    locked = take_write_lock(path) if exists else None
    before = file_identity(path)  # under the lock: a raw write during the proof shows
    try:
        if exists:
            proven_from, proven = _verify_before_writing(
                path, key, bench, prove, journal_key.key_path_for(path, key_path))
    except OldJournalFormat:
        _let_go(locked)
        locked = None
        kept = move_aside(path)
        log.warning("bench mode: a journal of an older format was moved aside to %s", kept)
    except BlankJournal:  # bench: its creation was cut short; it is created now
        _let_go(locked)
        locked = None
    except BaseException:
        _let_go(locked)
        raise
    journal = _open_writer(path, key, proven, locked, hold, before)
    if journal.created and not bench:
        journal.close()
        raise _refuse(f"{path}: the journal holds no record: a production table never begins "
                      "a new journal by itself (etg journal init --reason ...)")
    if journal.created:
        try:
            _begin(journal, "bench mode creates its journal freely", who)
        except JournalError as exc:
            journal.close()
            raise _refuse(f"{exc}; the table will not start") from None
    journal.proven_from = proven_from
    return journal


def _open_writer(path: Path, key: bytes | None, proven: Proven | None,
                 locked: sqlite3.Connection | None, hold: bool,
                 before: tuple[int, int, int, int] | None) -> Journal:
    """The writer, opened while ``locked`` (our write lock) keeps everyone out, its
    baseline taken (:mod:`firmware.journal.start_guard`), its view held to the proof's
    end; then the lock is let go (``hold``: at the writer's first write)."""
    try:
        checked = proven is not None  # opened while our lock's connection lives
        journal = HeldUntilWritten(path, key, gated=True, checked=True) if hold and locked \
            else Journal(path, key, gated=True, checked=checked)
        if isinstance(journal, HeldUntilWritten):
            journal.held_lock, locked = locked, None
        if journal.start_guard is not None:
            journal.start_guard.since(before)
        journal.mark_proven(*proven) if proven else journal.mark_proven(
            0, GENESIS, {}) if journal.created else _unproven(journal)
        _let_go(locked)  # the writer's baseline is taken: the start's readings check it
        locked = None
        refused_starts(journal)
    except JournalChangedDuringStart as exc:
        _let_go(locked)
        journal.close()
        raise _refuse(str(exc)) from None
    except JournalError as exc:
        _let_go(locked)
        with contextlib.suppress(NameError):
            journal.close()
        raise _refuse(f"{exc}; the table will not start (call a technician)") from None
    return journal


def _let_go(locked: sqlite3.Connection | None) -> None:
    if locked is not None:
        locked.close()


def _unproven(journal: Journal) -> None:
    raise JournalError(f"{journal.path}: a journal with records that were not proven")


def _blank(path: Path) -> bool:
    """An SQLite file without any table: a journal whose creation was cut short."""
    try:
        Journal(path, None, readonly=True).close()
    except BlankJournal:
        return True
    except JournalError:
        return False
    return False


def _verify_before_writing(path: Path, key: bytes, bench: bool, prove: Prove | None,
                           keyfile: Path) -> tuple[int, Proven]:
    """The start's one gate (issue 42): refuse (JournalRefused) a journal whose schema,
    WHOLE keyed chain with its commit markers, head or meters (counted from the last
    checkpoint) do not verify, or whose meters the engine's replay from the last
    checkpoint does not prove — all in one read transaction, the head file read once
    inside it (the caller holds the journal's lock and SQLite's write lock: nobody writes
    beside the start, so the one-transaction rule is applied exactly).
    OldJournalFormat passes through in bench mode (the caller moves it aside). Returns the
    record the engine's replay began at (the last checkpoint; what lies before it is
    replayed beside the table, firmware.table.service.prefix_audit) and what was proven
    (the last record, its hash, the meters): the writer must open exactly that."""
    try:
        ro = Journal(path, key, readonly=True, checked=True)
    except (OldJournalFormat, BlankJournal) as exc:
        if bench:
            raise
        raise _refuse(f"{exc}: a production table never begins a new journal by itself "
                      "(etg journal init --reason ...)") from None
    except JournalError as exc:
        raise _refuse(f"{exc}; the table will not start (call a technician)") from None
    ro.key_path = keyfile
    try:
        with ro.reading():
            res = ro.verify(full=True, live=False, start_meters=True)
            if res.ok:
                res = superseded_result(ro, res)
            if res.ok and prove is not None:
                replay = prove(ro)
                res = replay if not replay.ok else dataclasses.replace(res, since=replay.since)
            end = ro.record(res.records) if res.records else None
            proven = (res.records, end.hash if end else GENESIS, ro.meters(), res.index)
    except JournalError as exc:
        res = VerifyResult(False, ro.last_seq, None, f"the journal cannot be read: {exc}")
    finally:
        ro.close()
    if not res.ok:
        where = "" if res.first_bad is None else f" at record {res.first_bad}"
        raise _refuse(f"{path}: journal integrity check failed{where}: {res.problem}; the "
                      "table will not start and writes nothing into this journal (call a "
                      "technician)")
    return res.since, proven


def _begin(journal: Journal, reason: str, who: str,
           follows: list[dict[str, Any]] | None = None) -> None:
    body: dict[str, Any] = {"journal": {
        "begun": reason, "by": who, "user": _user(), "key_id": journal_key.key_id(
            journal.key) if journal.key else None}}
    if follows:
        body["journal"]["follows"] = follows
    journal.append_one("meta", body)
    (log.info if who == "etg run" else log.warning)(
        "new journal %s begun by %s: %s", journal.path, who, reason)


def _user() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = str(os.getuid())
    sudo = os.environ.get("SUDO_USER")
    return f"{name} (sudo by {sudo})" if sudo else name


def _end_of(kept: Path) -> dict[str, Any] | None:
    """Where a journal moved aside ends (its last record and outbox number), as read."""
    try:
        old = Journal(kept, None, readonly=True)
    except JournalError as exc:
        log.warning("the journal moved aside cannot be read (%s): the new one names no "
                    "predecessor", exc)
        return None
    try:
        first = old.record(1)
        return {"journal": kept.name, "seq": old.last_seq, "hash": old.head,
                "n": old.outbox_last_n(), "first": first.hash if first else None}
    finally:
        old.close()


def init_journal(journal_path: str | Path, key_path: str, reason: str, *,
                 bench: bool, archive: bool, witness: Witness | None = None
                 ) -> tuple[Journal, Path | None]:
    """``etg journal init``: begin a new journal with the technician's reason.

    An existing journal is never overwritten: with ``archive`` it (with its -wal, -shm and
    head file) is moved aside under a time-stamped name first, else the init is refused.
    The new journal's first record names what it follows (firmware.journal.witness): the
    end of the journal moved aside and ``witness``, the floor's acknowledgement for the
    table; its floor outbox numbers go on after theirs."""
    path = Path(journal_path)
    if not reason.strip():
        raise UserError("--reason: say why a new journal begins (it is kept in its first record)")
    kept = None
    if path.exists() or path.with_name(path.name + ".head").exists():
        if not archive:
            raise UserError(
                f"{path}: a journal (or its head file) exists; a new journal never overwrites "
                "one: give --archive to move it aside (kept as evidence) first")
        try:
            can_retire(journal_key.key_path_for(path, key_path))  # before anything moves
        except JournalError as exc:
            raise UserError(str(exc)) from None
        try:
            kept = move_aside(path)
        except OSError as exc:
            raise UserError(f"{path}: cannot move the old journal aside: {exc.strerror}") from None
    end = _end_of(kept) if kept else None
    ident = end.pop("first", None) if end else None
    follows = [f for f in (end, {"floor": True, **witness.to_json()} if witness else None)
               if f]
    try:
        key = table_key(path, key_path, bench, new=True)
        if ident and end and kept:  # the old one is superseded before the new one begins
            try:
                retire(journal_key.key_path_for(path, key_path), key, ident,
                       {k: end[k] for k in ("journal", "seq", "hash")})
            except JournalError:
                move_back(kept, path)  # not named: nothing changes (red team F6)
                raise
        journal = Journal(path, key)
    except JournalError as exc:
        raise UserError(str(exc)) from None
    try:
        journal.continue_outbox_after(max((int(f.get("n") or 0) for f in follows),
                                          default=0))
        _begin(journal, reason.strip(), "etg journal init", follows)
    except JournalError as exc:
        journal.close()
        raise UserError(str(exc)) from None
    return journal, kept


def open_existing(path: str | Path, key: bytes | _Beside | None = BESIDE, *,
                  proven: bool = True, need_key: bool = False) -> Journal:
    """Open a journal a read-only command reads: nothing is created or changed; a
    missing, empty or foreign file is a clear user error (exit 2). ``proven`` (every
    reader but the audit itself): nothing is read before the journal is proven
    (:func:`prove_for_reading`); ``need_key``: a reader that decides about money refuses a
    journal it cannot prove with the secret."""
    try:
        journal = Journal(path, key, readonly=True, gated=proven)
    except JournalDamaged as exc:  # the evidence is broken: exit 1
        raise JournalError(f"BROKEN: {exc}") from None
    except JournalError as exc:
        raise UserError(str(exc)) from None
    if proven:
        try:
            prove_for_reading(journal, need_key=need_key)
        except BaseException:
            journal.close()
            raise
    return journal


def prove_for_reading(journal: Journal, *, need_key: bool = False) -> None:
    """The one gate of an offline reader (issue 42, finding 2): the schema, the WHOLE
    chain with its commit markers, the head file and the meters verified (a table may be
    writing beside: a consistent reading, firmware.journal.consistent), an archived
    journal refused; then the gate opens up to the record the proof ended at and no
    further. A broken journal is JournalError (exit 1): nothing in it is read. Without
    the secret the chain's links and markers are still checked (not its keyed hashes):
    said on stderr, and refused with ``need_key``. The proof and every read after it are
    ONE reading: the reader holds its read transaction from before the proof until it
    closes (:meth:`Journal.hold_snapshot`), so nothing edited after the proof is read."""
    journal.hold_snapshot()
    res = journal.verify(full=True, live=True)
    if res.ok:  # the gate opens up to the proof's end: the register reads its record 1
        journal.mark_proven(res.records, journal.head, index=res.index)
        res = superseded_result(journal, res)
    if not res.ok:
        journal.mark_proven(-1, "")
        where = f" at record {res.first_bad}" if res.first_bad is not None else ""
        raise JournalError(f"{journal.path}: BROKEN{where}: {res.problem}; nothing in it is "
                           "read (etg audit verify says the same; call a technician)")
    if res.unchecked:
        why = journal.key_problem or "no secret"
        if need_key:
            raise JournalKeyError(f"{journal.path}: cannot be proven without the journal's "
                                  f"secret ({why}): run as the table's service user")
        log.warning("%s: proven without the secret (%s): its keyed hashes are not checked",
                    journal.path, why)


def check_existing(path: str | Path) -> None:
    """Raise JournalError unless ``path`` is an existing, non-empty SQLite file."""
    try:
        check_is_journal(Path(path))
    except JournalFileError as exc:
        raise JournalError(str(exc)) from None
