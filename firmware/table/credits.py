"""`etg credits add`: a credit transfer to the table, whether or not its process runs.

With no table process the journal is recovered here and the transfer journaled through a
``Controller``; while the table runs it holds the journal, and the transfer goes to it
over the attendant socket.
"""

from __future__ import annotations

from pathlib import Path

from firmware.config import TableConfig
from firmware.engine.rules import load_rules
from firmware.errors import UserError
from firmware.table.controller import Controller
from firmware.table.journal_lock import JournalLock, TableRunning
from firmware.table.journal_open import open_for_table
from firmware.table.recovery import open_table


def add_credits_offline(cfg: TableConfig, seat: int, cents: int, journal_path: str) -> str:
    """``etg credits add`` while no table process runs: recover, apply, journal, meter.

    The transfer goes to the table as the journal last ran it (its epoch's rules, seats
    and mode), not as the configuration file now reads: an attendant's transfer never
    starts a new epoch, and works while a round is held after a power failure."""
    from firmware.table.recovery import replay

    jpath = Path(journal_path)
    try:
        lock = JournalLock(jpath)
    except TableRunning:
        return _credits_to_running_table(jpath, seat, cents)
    try:
        journal = open_for_table(jpath, cfg.journal.key_path, bench=cfg.bench,
                                 who="etg credits")
        rec = replay(journal)
        if rec is None:  # a journal without a table yet (bench: credits before the first start)
            rules = load_rules(cfg.table.variant, dict(cfg.rules), cfg.source)
            rec = open_table(journal, rules, cfg.table.seats, cfg.bench)
        ctl = Controller(rec.table, journal, finals_recorded=rec.finals_recorded)
        ok, msg = ctl.command("credits-in" if cents >= 0 else "credits-out",
                              {"seat": seat, "cents": abs(cents)})
        journal.close()
    finally:
        lock.release()
    if not ok:
        raise UserError(msg)
    return msg


def _credits_to_running_table(jpath: Path, seat: int, cents: int) -> str:
    """The table holds the journal: hand the transfer to it (attendant socket)."""
    from firmware.table.attendant_socket import transfer

    try:
        ok, msg = transfer(jpath, "credits-in" if cents >= 0 else "credits-out", seat,
                           abs(cents))
    except OSError as exc:
        raise UserError(
            f"{jpath}: the table is running on this journal but its attendant channel "
            f"does not answer ({exc.strerror or exc})"
        ) from None
    if not ok:
        raise UserError(msg)
    return msg
