"""A clock set back is an event (issue 42, finding 7).

Records carry the wall-clock time they were written. A clock stepped backwards (set by
hand, a bad time source) makes later records older than earlier ones: a filter by time
would miss them and an investigator would read a history out of order. The journal
notices it at the append that meets it: the transaction then ends with a
``CLOCK_BACKWARDS`` event naming both times, so the step is itself evidence. Readers that
select by time (``etg events --since``) start at the first record at or after the time and
then follow record order, never the clock.
"""

from __future__ import annotations

from firmware.journal.codes import EventCode

#: a step smaller than this is jitter between clocks, not an event (nanoseconds)
TOLERANCE_NS = 1_000_000_000


def clock_step(last_ts_ns: int, now_ns: int) -> dict[str, int] | None:
    """The event body when the clock reads earlier than the journal's last record."""
    if last_ts_ns - now_ns <= TOLERANCE_NS:
        return None
    return {"last_ns": last_ts_ns, "now_ns": now_ns, "back_s": (last_ts_ns - now_ns) // 10**9}


CODE = int(EventCode.CLOCK_BACKWARDS)
