"""`etg credits add|out|status`: credit transfers to the table, whether or not its process
runs, each applied at most once per client-chosen id (firmware.table.requests.transfers).

With no table process the journal is recovered here and the transfer journaled through a
``Controller``; while the table runs it holds the journal, and the transfer goes to it
over the attendant socket.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from etgcore.errors import UserError
from firmware.config import TableConfig
from firmware.engine.rules import load_rules
from firmware.journal.lock import JournalLock, TableRunning
from firmware.journal.opening import open_for_table
from firmware.table.controller import Controller
from firmware.table.meter_proof import start_proof
from firmware.table.recovery import open_table
from firmware.table.requests.transfers import CreditLimits, TransferLedger


def _limits(cfg: TableConfig) -> CreditLimits:
    return CreditLimits(cfg.table.max_transfer_cents, cfg.table.max_seat_credits)


def _lock(jpath: Path) -> JournalLock:
    try:
        return JournalLock(jpath)
    except OSError as exc:
        raise UserError(f"{jpath}: cannot use the journal's directory: "
                        f"{exc.strerror or exc}") from None


def add_credits_offline(cfg: TableConfig, seat: int, cents: int, journal_path: str,
                        tid: str | None = None) -> str:
    """``etg credits add`` while no table process runs: recover, apply, journal, meter.

    The transfer goes to the table as the journal last ran it (its epoch's rules, seats
    and mode), not as the configuration file now reads: an attendant's transfer never
    starts a new epoch, and works while a round is held after a power failure."""
    from firmware.table.recovery import replay

    jpath = Path(journal_path)
    kind = "credits-in" if cents >= 0 else "credits-out"
    args: dict[str, Any] = {"seat": seat, "cents": abs(cents)}
    if tid is not None:
        args["id"] = tid
    try:
        lock = _lock(jpath)
    except TableRunning:
        return _credits_to_running_table(jpath, kind, seat, abs(cents), tid)
    try:
        journal = open_for_table(jpath, cfg.journal.key_path, bench=cfg.bench,
                                 who="etg credits", prove=start_proof, hold=True)
        try:
            rec = replay(journal)
            if rec is None:  # a journal without a table yet (bench: credits first)
                rules = load_rules(cfg.table.variant, dict(cfg.rules), cfg.source)
                rec = open_table(journal, rules, cfg.table.seats, cfg.bench)
            ctl = Controller(rec.game, journal, finals_recorded=rec.finals_recorded,
                             round_first_seq=rec.round_first_seq, limits=_limits(cfg),
                             epoch_seq=rec.epoch_seq,
                             checkpoint_rounds=cfg.journal.checkpoint_rounds)
            ok, msg = ctl.request(kind, args)
        finally:
            journal.close()  # before the lock: see JournalLock.release
    finally:
        lock.release()
    if not ok:
        raise UserError(msg)
    return msg


def _credits_to_running_table(jpath: Path, kind: str, seat: int, cents: int,
                              tid: str | None) -> str:
    """The table holds the journal: hand the transfer to it (attendant socket)."""
    from firmware.table.requests.attendant_socket import transfer

    if tid is None:
        raise UserError("a transfer to a running table needs an id (--id)")
    try:
        ok, msg = transfer(jpath, kind, seat, cents, tid)
    except OSError as exc:
        raise UserError(
            f"{jpath}: the table is running on this journal but its attendant channel "
            f"does not answer ({exc.strerror or exc}); the transfer {tid} may or may not "
            f"have reached it: ask with `etg credits status --id {tid}`"
        ) from None
    if not ok:
        raise UserError(msg)
    return msg


def transfer_status(journal_path: str, tid: str, key_path: str = "") -> dict[str, Any]:
    """What became of transfer ``tid``: asked of the running table, else read from the
    journal (read-only)."""
    from firmware.journal import open_existing

    jpath = Path(journal_path)
    from firmware.table.requests.attendant_socket import socket_path, status

    if socket_path(jpath).is_socket():
        try:
            reply = status(jpath, tid)
        except OSError:
            reply = None  # a socket left by a table that is gone: the journal says it all
        if reply is not None:
            if not reply.get("ok"):
                raise UserError(str(reply.get("error")))
            return {k: v for k, v in reply.items() if k != "ok"}
    from firmware.journal import BESIDE
    from firmware.journal import key as journal_key

    key = journal_key.load(key_path) if key_path else BESIDE
    journal = open_existing(jpath, key, need_key=True)  # proven: the 801s are evidence
    try:
        return TransferLedger.from_journal(journal).status(tid)
    finally:
        journal.close()
