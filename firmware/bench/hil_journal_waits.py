"""What the HIL bench waits for in the table's journal before its next step.

The bench drives a real table process; some of the table's reactions come from devices
on their own time (the shoe's answers to the table's queries), so counters of handled
happenings cannot say which frame was taken. The journal can: every input the table
took is there, in order, with its source. Each predicate here reads the table's input
records and says whether the awaited one is among them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from firmware.bench.hil_service import ACT_TIMEOUT_S, ServiceError

#: the table's input records, oldest first: ``{"seq", "code", "round", "body"}``
Records = list[dict[str, Any]]


def _shoe_inputs(records: Records) -> list[str]:
    return [r["body"]["input"].get("type", "") for r in records
            if r["body"].get("source") == "shoe"]


def shoe_greeted(records: Records) -> bool:
    """The shoe's HEL and, after it, its status (STA READY/LOCKED: a fault-cleared input):
    the table compares that status with its own shoe at power-up. A scenario racing that
    comparison would have it made against a scripted STA later in the round instead (a
    false "not the same shoe" tilt)."""
    kinds = _shoe_inputs(records)
    return "hello" in kinds and "fault-cleared" in kinds[kinds.index("hello"):]


def fault_cleared(records: Records) -> bool:
    """A clearing shoe status among the records (those since the bench's own STA)."""
    return "fault-cleared" in _shoe_inputs(records)


def until_journaled(journal: Any, seen: Callable[[Records], bool], what: str,
                    since_seq: int = 0) -> None:
    """Wait until ``seen`` holds for the table's input records after ``since_seq``;
    :class:`ServiceError` saying ``what`` after :data:`ACT_TIMEOUT_S`."""
    deadline = time.monotonic() + ACT_TIMEOUT_S
    while not seen(journal.records("input", since_seq)):
        if time.monotonic() > deadline:
            raise ServiceError(what)
        time.sleep(0.005)
