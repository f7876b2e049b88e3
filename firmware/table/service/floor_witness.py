"""At start, before anything is written: the journal checked against the floor's witness.

The rule is the journal's (:mod:`firmware.journal.witness`); the table asks the floor
through what the command line handed in (:data:`~firmware.table.ports.ReadWitness`) and
refuses a journal that is behind the floor or disagrees with it, as it refuses a tampered
one: one line on stderr and in the system log, the screen, exit 2, nothing written. No
answer within the deadline (no broker, no floor, nothing held for this table) is not a
refusal, and is journaled with the power-up (event 711), as an answer that agreed is
(710). With ``floor.witness = required`` (production's default when a floor is
configured, issue 42 finding 4) the table then holds play — the round in play finishes, no
new one is dealt — until the floor link brings the floor's acknowledgement and it agrees
with the journal (event 710, play goes on); one that contradicts it stops the table as a
refused start would, and nothing more is written into the journal. So a journal put back
while the floor is unreachable plays no round before the floor has seen it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from firmware.journal import EventCode, Journal
from firmware.journal.opening import JournalRefused, system_log
from firmware.journal.witness import WitnessRead, parse_ack, witness_problem
from firmware.table.floor_gate import WITNESS_HOLD
from firmware.table.happenings import RequestHappening
from firmware.table.ports import FloorPort, ReadWitness, RequestHost

if TYPE_CHECKING:
    from firmware.table.happenings import Happening


class Controller(RequestHost, Protocol):
    """What the wait for the witness uses of the controller (which satisfies it; the
    controller's request desk calls :func:`witness_arrived`, so this names only the
    request host's powers and the inbox)."""

    def put(self, h: Happening) -> None: ...

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


def await_witness(ctl: Controller, link: FloorPort | None, got: WitnessRead | None,
                  required: bool) -> None:
    """Every acknowledgement the link brings is held against the journal (red team F7: a
    table started without its witness learned from the link that its journal is behind
    the floor, and played on); with no witness at start and one required, play is held
    until one agrees."""
    if required and got is not None and got.witness is None:
        ctl.floor_gate.holds[WITNESS_HOLD] = "waiting for the floor's witness"
    if link is None:
        return
    last: list[Any] = [None]

    def arrived(body: dict[str, Any]) -> None:
        if body != last[0]:  # the same acknowledgement again changes nothing
            last[0] = body
            ctl.put(RequestHappening("floor-witness", {"ack": body}))

    link.on_witness = arrived


def witness_arrived(ctl: Any, journal: Journal, body: Any) -> tuple[bool, str]:
    """The floor's acknowledgement, brought by the link while the table holds for it
    (the controller's thread): agreeing, play goes on; contradicting, the table stops."""
    w = parse_ack(body)
    if w is None:
        return False, "not an acknowledgement"
    if ctl.failure:
        return False, "the table has stopped"
    problem = witness_problem(journal, w)
    if problem is not None:
        why = f"journal refused by the floor's witness: {problem}"
        system_log(f"{journal.path}: {why}; the table takes no more input (call a technician)")
        journal.refused = why
        ctl.fail(why, None)
        return False, why
    if WITNESS_HOLD not in ctl.floor_gate.holds:
        return True, "agrees"
    ctl.event(EventCode.JOURNAL_WITNESSED, None, **w.to_json(), late=True)
    ctl.floor_gate.holds.pop(WITNESS_HOLD, None)
    log.info("%s: the floor's witness agrees (record %s, message %d): play goes on",
             journal.path, w.seq, w.n)
    return True, "witnessed"
