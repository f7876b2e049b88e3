"""What a start finds of the last stop, and what it does about a round the stop cut.

The journal says how the table last stopped (a clean stop's POWER_DOWN, or none: the
power failed or the process was killed); recovery replays the journal; a round the stop
interrupted resumes held in a tilt that says which stop it was. The demo, whose shoe is a
new simulator at every start, resolves that tilt at once, as its dealer.
"""

from __future__ import annotations

from typing import Any

from firmware.engine import phases as P
from firmware.engine.inputs import Console, Fault
from firmware.journal import EventCode, Journal
from firmware.table.controller import Controller
from firmware.table.recovery import Recovered


def find_last_stop(journal: Journal) -> dict[str, Any] | None:
    """How the table last stopped: the POWER_DOWN body of a clean stop, or None when the
    last start has no POWER_DOWN after it (the power failed, or kill -9)."""
    codes = (int(EventCode.POWER_UP), int(EventCode.POWER_DOWN))
    last = None
    for r in journal.records(kinds=["event"]):
        if r.code in codes:
            last = r
    if last is None or last.code != int(EventCode.POWER_DOWN):
        return None
    return dict(last.body)


def interrupted_fault(stop: dict[str, Any] | None) -> Fault:
    """The tilt a round interrupted by the last stop starts in: a clean stop (SIGTERM,
    Ctrl-C, the window closed) says which it was; after a power failure (or kill -9)
    nothing says what the dealer did meanwhile, so the cards on the layout are checked
    against the display before the round goes on."""
    if stop is None:
        return Fault("POWER", "check the cards on the layout against the display")
    return Fault("STOPPED", str(stop.get("reason", "stopped")))


def resume(ctl: Controller, rec: Recovered, last_stop: dict[str, Any] | None) -> None:
    """Journal what recovery found; a round cut by the stop is held (a tilt)."""
    table = rec.game
    if rec.finals > rec.finals_recorded:
        ctl.record_round()  # the power failed between a round's last input and its record
    if rec.in_round:
        ctl.event(EventCode.RECOVERED, table.round_no, inputs=rec.inputs)
        ctl.event(EventCode.RECOVERY_HELD, table.round_no, phase=table.phase)
        if table.tilt is None:
            ctl.take(interrupted_fault(last_stop), "recovery")
    elif rec.inputs:
        ctl.event(EventCode.RECOVERED, table.round_no, inputs=rec.inputs)


def new_shoe_for_the_demo(ctl: Controller, last_stop: dict[str, Any] | None,
                           window: bool, quiet: bool) -> None:
    """`make run` again: the demo's shoe is a new simulator at every start, never the shoe
    the table accounted for, which the table would find out at the shoe's first report
    and hold in a red SHOE tilt. The demo's dealer does at once what the dealer of such a
    tilt does (each a journaled input from the source ``demo``): the shoe is taken out
    of play, a round the stop interrupted is voided (its wagers returned) and one line
    says so; then the table simply waits for a new shoe (SHUFFLE)."""
    table = ctl.game
    if not table.shoe.in_play:
        return  # a new shoe is due anyway
    number, in_round = table.round_no, table.phase in P.IN_ROUND or (
        table.phase == P.TILT and table.tilt is not None
        and table.tilt.resume_phase in P.IN_ROUND)
    if not ctl.take(Fault("SHOE", "the demo's shoe is a new simulator at every start"),
                    "demo"):
        return
    if not in_round:
        ctl.take(Console("DEAL"), "demo")
        return
    why = (last_stop or {}).get("reason") or "the power failed or the table was killed"
    then = ("load a new shoe: press F9 (SHUFFLE)" if window
            else "the automatic dealer loads a new shoe")
    if not quiet:  # before the round's own line ("round 3 voided: ...") says the rest
        print(f"round {number}, interrupted by the last stop ({why}), is voided and its "
              f"wagers returned; {then}", flush=True)
    ctl.take(Console("VOID"), "demo")
