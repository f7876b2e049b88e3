"""The scanned key matrix on the electrical simulator: rows, columns, diodes, timing."""

from __future__ import annotations

import itertools

import pytest
from panel_rig import PERIOD_S, make_rig, presses

from drivers.panel import BUTTONS, CONSOLE_BUTTONS
from drivers.panel.pins import LOW
from drivers.panel.settings import PinMap


def test_many_keys_on_one_panel_all_reported() -> None:
    """Panel ICD: diode per switch, any number of keys at once on one panel."""
    rig = make_rig()
    for b in BUTTONS:
        rig.sim.press(4, b)
    got = presses(rig.run(0.05))
    assert sorted(got) == sorted(("press", 4, b) for b in BUTTONS)


def test_keys_on_several_panels_and_console_at_once_all_reported() -> None:
    rig = make_rig()
    rig.sim.press(1, "HIT")
    rig.sim.press(4, "STAND")
    rig.sim.press(7, "BET")
    rig.sim.press(7, "INSURANCE")
    rig.sim.press_console("DEAL")
    events = rig.run(0.05)
    assert sorted(presses(events), key=str) == sorted(
        [("press", 1, "HIT"), ("press", 4, "STAND"), ("press", 7, "BET"),
         ("press", 7, "INSURANCE"), ("press", None, "DEAL")], key=str)
    assert len({ev.t for ev in events}) == 1  # all accepted on the same scan


def test_all_56_keys_at_once_no_ghosts() -> None:
    """Every switch closed: 56 presses, and only those (the diodes block sneak paths)."""
    rig = make_rig()
    for seat in range(1, 8):
        for b in BUTTONS:
            rig.sim.press(seat, b)
    assert len(rig.run(0.05)) == 56


def test_three_corners_make_no_ghost_fourth() -> None:
    """Without diodes, (1,BET) (1,CLEAR) (2,BET) would make (2,CLEAR) read pressed."""
    rig = make_rig()
    for seat, b in ((1, "BET"), (1, "CLEAR"), (2, "BET")):
        rig.sim.press(seat, b)
    got = set(presses(rig.run(0.05)))
    assert got == {("press", 1, "BET"), ("press", 1, "CLEAR"), ("press", 2, "BET")}


def test_scan_never_drives_two_rows_low_and_settles_before_reading() -> None:
    """Panel ICD: one row low at a time; >= 50 us settling after driving a row."""
    rig = make_rig(record=200_000)
    rig.sim.press(3, "HIT")
    rig.sim.press(6, "SPLIT")
    rig.run(0.2)
    rows = set(PinMap().rows)
    cols = set(PinMap().columns)
    low: set[int] = set()
    driven_at = None
    reads = 0
    for op in rig.sim.ops:
        if op.op == "write" and op.pin in rows:
            if op.level == LOW:
                low.add(op.pin)
                driven_at = op.t
            else:
                low.discard(op.pin)
            assert len(low) <= 1, f"two rows low at t={op.t}: {sorted(low)}"
        if op.op == "read" and op.pin in cols:
            assert len(low) == 1, "a column read with no row driven"
            assert driven_at is not None and op.t - driven_at >= 50e-6 - 1e-12
            reads += 1
    assert reads > 0
    assert rig.sim.max_rows_low == 1 and rig.sim.row_overlaps == 0


def test_scan_period_at_most_10_ms_covering_every_row() -> None:
    """Panel ICD: scan period at most 10 ms for all rows."""
    rig = make_rig(record=200_000)
    rig.run(0.5)
    first_row = PinMap().rows[0]
    starts = [op.t for op in rig.sim.ops
              if op.op == "write" and op.pin == first_row and op.level == LOW]
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert len(starts) >= 45
    assert max(gaps) <= 0.010
    assert abs(sum(gaps) / len(gaps) - PERIOD_S) < 1e-6
    per_pass = {op.pin for op in rig.sim.ops if op.op == "write" and op.level == LOW}
    assert set(PinMap().rows) <= per_pass


def test_fewer_seats_scan_fewer_rows_and_idle_the_rest_high() -> None:
    rig = make_rig("table.seats=3", record=50_000)
    rig.sim.press(5, "HIT")  # a seat the table does not have
    rig.sim.press(2, "HIT")
    assert presses(rig.run(0.1)) == [("press", 2, "HIT")]
    unused = set(PinMap().rows[3:])
    assert not [op for op in rig.sim.ops if op.pin in unused and op.op == "write"]
    assert all(rig.sim.probe(p) == 1 for p in unused)


def test_stuck_key_reported_once_after_the_limit_then_released() -> None:
    """Issue 7 point 2: a key held past panel.stuck_key_s (default 30 s) is stuck."""
    rig = make_rig()
    rig.sim.press(2, "BET")
    assert presses(rig.run(29.9)) == [("press", 2, "BET")]
    stuck = rig.run(0.2)
    assert presses(stuck) == [("stuck", 2, "BET")]
    assert rig.run(60.0) == []
    rig.sim.release(2, "BET")
    assert presses(rig.run(0.1)) == [("release", 2, "BET")]


def test_stuck_limit_is_configurable() -> None:
    rig = make_rig("panel.stuck_key_s=2")
    rig.sim.press_console("DEAL")
    events = rig.run(2.1)
    assert presses(events) == [("press", None, "DEAL"), ("stuck", None, "DEAL")]
    assert 2.0 < events[1].t - events[0].t < 2.1


@pytest.mark.parametrize("key", ["VOID", "RECALL"])
def test_key_switches_are_never_stuck(key: str) -> None:
    """The supervisor's and the attendant's key switches are held on purpose."""
    rig = make_rig("panel.stuck_key_s=1")
    rig.sim.press_console(key)
    assert presses(rig.run(5.0)) == [("press", None, key)]


def test_console_press_and_release_each_input() -> None:
    """Panel ICD console: DEAL SHUFFLE VOID RECALL, active low, same debounce."""
    rig = make_rig()
    for name in CONSOLE_BUTTONS:
        rig.sim.press_console(name)
        pressed = rig.run(0.05)
        rig.sim.release_console(name)
        released = rig.run(0.05)
        assert presses(pressed + released) == [("press", None, name), ("release", None, name)]
        assert pressed[0].console and pressed[0].where() == f"console {name}"


def test_recall_held_reports_press_then_release() -> None:
    """RECALL shows the recall screen while held: the table needs both edges."""
    rig = make_rig()
    rig.sim.press_console("RECALL")
    first = rig.run(3.0)
    rig.sim.release_console("RECALL")
    last = rig.run(0.05)
    assert presses(first) == [("press", None, "RECALL")]
    assert presses(last) == [("release", None, "RECALL")]
    assert last[0].t - first[0].t > 2.9
