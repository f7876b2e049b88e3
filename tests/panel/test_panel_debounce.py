"""Panel ICD debounce, at pin level on the electrical simulator (and the pure debouncer).

ICD: "a switch changes state only after 2 consecutive scans agree and at least 20 ms
have passed since its last accepted change. A press is reported on the change to
pressed. Holding a button does not repeat it."
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from panel_rig import make_rig, presses

from drivers.panel.debounce import GroupDebouncer


def play(pattern: str, seat: int = 2, button: str = "HIT") -> list[tuple[str, int | None, str]]:
    """One scan per character: '#' the switch is closed during that scan, '.' open."""
    rig = make_rig()
    events = []
    for ch in pattern:
        if ch == "#":
            rig.sim.press(seat, button)
        else:
            rig.sim.release(seat, button)
        events += rig.scan()
    return presses(events)


def test_chatter_shorter_than_debounce_gives_one_press() -> None:
    """ICD debounce: contact bounce on press and on release makes one press, one release."""
    bounce_in = "#.#.##" + ".." + "#" * 12  # two open scans inside the 20 ms guard
    bounce_out = ".#.#.." + "#" + "." * 12
    got = play(bounce_in + bounce_out)
    assert got == [("press", 2, "HIT"), ("release", 2, "HIT")]


def test_real_double_press_gives_two_presses() -> None:
    """ICD debounce: a second press 50 ms later is a second press."""
    got = play("#" * 10 + "." * 10 + "#" * 10 + "." * 10)
    assert got == [("press", 2, "HIT"), ("release", 2, "HIT")] * 2


def test_quick_double_press_just_past_the_guard_counts_twice() -> None:
    """Pressed ~27 ms, open ~27 ms, pressed again: both presses are real."""
    got = play("#####" + "....." + "#####" + ".....")
    assert [k for k, _, _ in got] == ["press", "release", "press", "release"]


def test_one_scan_glitch_is_ignored() -> None:
    """ICD debounce: one disagreeing scan is not two consecutive scans."""
    got = play("#" * 8 + "." + "#" * 8 + ".#.#.#" + "#" * 4)
    assert got == [("press", 2, "HIT")]


def test_press_is_reported_on_the_second_agreeing_scan() -> None:
    """ICD: the press is reported on the change to pressed, not on the release."""
    rig = make_rig()
    rig.sim.press(5, "STAND")
    assert rig.scan() == []
    second = rig.scan()
    assert presses(second) == [("press", 5, "STAND")]


def test_change_waits_for_20_ms_since_last_accepted_change() -> None:
    """ICD debounce: release sampled twice 10 ms after the press waits for 20 ms."""
    rig = make_rig()
    rig.sim.press(1, "BET")
    rig.scan()
    t_press = rig.scan()[0].t
    rig.sim.release(1, "BET")
    released = []
    while not released:
        released = rig.scan()
    assert released[0].kind == "release"
    assert released[0].t - t_press >= 0.020


def test_holding_does_not_repeat() -> None:
    """ICD: holding a button does not repeat it (held 10 s: one press)."""
    rig = make_rig()
    rig.sim.press(7, "DOUBLE")
    events = rig.run(10.0)
    rig.sim.release(7, "DOUBLE")
    events += rig.run(0.1)
    assert presses(events) == [("press", 7, "DOUBLE"), ("release", 7, "DOUBLE")]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=80), st.floats(0.001, 0.010))
def test_debouncer_invariants(samples: list[bool], period: float) -> None:
    """Any sample pattern: changes alternate, are >= 20 ms apart, each follows 2 agreeing
    samples, and a settled input is followed."""
    deb = GroupDebouncer(1, 0.020, 30.0)
    t, last, state, history = 0.0, float("-inf"), False, []
    for s in [*samples, samples[-1], samples[-1]] + [samples[-1]] * 30:
        history.append(s)
        for ch in deb.update(int(s), t):
            assert ch.kind == ("release" if state else "press")
            assert t - last >= 0.020
            assert history[-1] == history[-2] == (ch.kind == "press")
            state, last = not state, t
        t += period
    assert state == samples[-1]
