"""At start, before anything is written: the journal checked against the floor's witness.

The rule is the journal's (:mod:`firmware.journal.witness`); the table asks the floor
through what the command line handed in (:data:`~firmware.table.ports.ReadWitness`) and
refuses a journal that is behind the floor or disagrees with it, as it refuses a tampered
one: one line on stderr and in the system log, the screen, exit 2, nothing written. No
answer within the deadline (no broker, no floor, nothing held for this table) is not a
refusal — a table plays without its floor — and is journaled with the power-up
(event 711), as an answer that agreed is (710).
"""

from __future__ import annotations

import logging

from firmware.journal import EventCode, Journal
from firmware.journal.opening import JournalRefused, system_log
from firmware.journal.witness import WitnessRead, witness_problem
from firmware.table.ports import ReadWitness

log = logging.getLogger("etg.table.witness")


def check_witness(journal: Journal, read: ReadWitness | None) -> WitnessRead | None:
    """Ask the floor (when a floor is configured) and refuse a journal it contradicts;
    the reading, to be journaled once the table writes (None: no floor configured)."""
    if read is None:
        return None
    got = read()
    if got.witness is None:
        log.warning("%s: no witness from the floor: %s; the journal is not checked "
                    "against the floor at this start", journal.path, got.why)
        return got
    problem = witness_problem(journal, got.witness)
    if problem is not None:
        message = (f"{journal.path}: journal refused by the floor's witness: {problem}; the "
                   "table will not start and writes nothing into this journal (call a "
                   "technician)")
        system_log(message)
        raise JournalRefused(message)
    log.info("%s: the floor's witness agrees (record %s, message %d)", journal.path,
             got.witness.seq, got.witness.n)
    return got


def journal_witness(journal: Journal, got: WitnessRead | None) -> None:
    """The start's event saying how the journal stood against the floor."""
    if got is None:
        return
    if got.witness is None:
        journal.append_one("event", {"why": got.why}, code=int(EventCode.JOURNAL_UNWITNESSED))
    else:
        journal.append_one("event", got.witness.to_json(),
                           code=int(EventCode.JOURNAL_WITNESSED))
