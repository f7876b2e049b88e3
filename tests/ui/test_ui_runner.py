"""The runner: public snapshots in, button events out, and the controller never waits."""

from __future__ import annotations

import threading
from typing import Any

import pygame
from conftest import layout_of, load_json

from drivers.panel.buttons import PanelReport
from ui.renderer import new_surface
from ui.window import UiInbox, UiWindow


def test_inbox_keeps_the_newest_view_and_every_message() -> None:
    inbox = UiInbox()
    a, b = load_json("blackjack-betting"), load_json("blackjack-decisions")
    inbox.put_view(a)
    inbox.put_view(b)
    inbox.put({"kind": "betting", "closes_in": 5})
    view, messages = inbox.take()
    assert view is b and messages == [{"kind": "betting", "closes_in": 5}]
    assert inbox.take() == (None, [])


def test_a_slow_frame_never_delays_the_controller() -> None:
    """The controller's puts complete while a frame is still being drawn."""
    inbox = UiInbox()
    runner = UiWindow(layout_of("blackjack"), inbox, (640, 360))
    in_frame, release = threading.Event(), threading.Event()
    real = runner.renderer.render

    def slow_render(*args: Any, **kw: Any) -> Any:
        in_frame.set()
        release.wait(30)
        return real(*args, **kw)

    runner.renderer.render = slow_render  # type: ignore[method-assign]
    inbox.put_view(load_json("blackjack-betting"))
    ui = threading.Thread(target=runner.step, args=(new_surface((640, 360)), 1.0))
    ui.start()
    assert in_frame.wait(30)
    for _ in range(100):  # the frame is stuck; the controller goes on regardless
        inbox.put_view(load_json("blackjack-decisions"))
        inbox.put({"kind": "betting", "closes_in": None})
    assert ui.is_alive()  # still drawing: none of the puts waited for it
    release.set()
    ui.join(30)
    view, messages = inbox.take()
    assert view is not None and view["phase"] == "decisions" and len(messages) == 100


def test_runner_applies_controller_messages() -> None:
    inbox = UiInbox()
    runner = UiWindow(layout_of("bingo"), inbox, (640, 360), clock=lambda: 100.0)
    surf = new_surface((640, 360))
    inbox.put_view(load_json("bingo-betting"))
    inbox.put({"kind": "betting", "closes_in": 7.5})
    runner.step(surf, 100.0)
    assert runner.state.betting_closes_at == 107.5
    assert "8" in runner.renderer.model.texts("overlay")
    settled = load_json("bingo-settled")
    inbox.put({"kind": "recall", "entries": [{"view": settled, "ended": "14:00"}]})
    runner.step(surf, 101.0)
    assert "GAME RECALL" in runner.renderer.model.texts("overlay")
    inbox.put({"kind": "recall", "entries": None})
    inbox.put({"kind": "failure", "failure": {"kind": "rng", "message": "stuck output"}})
    runner.step(surf, 102.0)
    assert "RNG FAILURE" in runner.renderer.model.texts("overlay")
    inbox.put({"kind": "failure", "failure": None})
    inbox.put({"kind": "screen", "screen": "attract"})
    runner.step(surf, 103.0)
    # the game's title on every slide (a paytable's slide: in its foot line)
    assert any(runner.renderer.layout.title in text
               for text in runner.renderer.model.texts("overlay"))
    inbox.put({"kind": "quit"})
    runner.step(surf, 104.0)
    assert not runner.running


def test_touching_a_lit_button_presses_the_panel_button() -> None:
    events: list[PanelReport] = []
    inbox = UiInbox()
    runner = UiWindow(layout_of("split-to-double"), inbox, (1280, 720),
                      on_button=lambda *a: events.append(PanelReport(*a)), clock=lambda: 5.0)
    inbox.put_view(load_json("split-to-double-decisions"))
    runner.step(new_surface((1280, 720)), 1.0)
    rect, _seat, _decision = next(b for b in runner.renderer.buttons if b[2] == "double")
    assert runner.touch(rect.center)
    assert [(e.kind, e.button, e.seat) for e in events] == [
        ("press", "DOUBLE", 3), ("release", "DOUBLE", 3)]
    assert not runner.touch((1, 1))



def test_touching_no_insurance_presses_stand() -> None:
    """The panel convention (firmware/table/devices/translate.py): STAND declines insurance when
    insurance is offered, so the on-screen NO INSURANCE button presses STAND, and the
    table reads that press as declining insurance."""
    from firmware.engine.inputs import Decision
    from firmware.table.devices.translate import press_input

    view = load_json("blackjack-insurance")
    events: list[PanelReport] = []
    inbox = UiInbox()
    runner = UiWindow(layout_of("blackjack"), inbox, (1280, 720),
                      on_button=lambda *a: events.append(PanelReport(*a)), clock=lambda: 5.0)
    inbox.put_view(view)
    runner.step(new_surface((1280, 720)), 1.0)
    seat = view["expecting"]["seat"]
    pressed: list[tuple[str, str, int]] = []
    for decision in ("no-insurance", "insurance"):
        rect, _seat, _ = next(b for b in runner.renderer.buttons if b[2] == decision)
        assert runner.touch(rect.center), decision
        press, release = events[-2:]
        pressed += [(press.kind, press.button, press.seat), (release.kind, release.button,
                                                              release.seat)]
        assert press_input(press.button, press.seat, view) == Decision(seat, 1, decision)
    assert pressed == [("press", "STAND", seat), ("release", "STAND", seat),
                       ("press", "INSURANCE", seat), ("release", "INSURANCE", seat)]

def test_keys_go_to_the_panel_keyboard_backend() -> None:
    from drivers.panel.keyboard import KeyboardPanel

    events: list[PanelReport] = []
    panel = KeyboardPanel(7, on_report=events.append)
    panel.start()
    runner = UiWindow(layout_of("blackjack"), UiInbox(), (640, 360), on_key=panel.handle_event)
    for kind, key in ((pygame.KEYDOWN, pygame.K_3), (pygame.KEYUP, pygame.K_3),
                      (pygame.KEYDOWN, pygame.K_h), (pygame.KEYUP, pygame.K_h)):
        runner.handle_event(pygame.event.Event(kind, key=key))
    assert [(e.kind, e.button, e.seat) for e in events] == [
        ("press", "HIT", 3), ("release", "HIT", 3)]


def test_the_loop_sleeps_on_the_inbox_and_a_new_view_wakes_it() -> None:
    """No fixed tick: the frame with a new view follows a wait the view cut short."""
    pygame.display.init()
    try:
        inbox = UiInbox()
        runner = UiWindow(layout_of("blackjack"), inbox, (640, 360), fps=1)
        first, second = load_json("blackjack-betting"), load_json("blackjack-decisions")
        waits: list[tuple[float | None, bool]] = []
        real_wait = inbox.wait

        def wait(timeout: float | None) -> bool:
            woke = real_wait(timeout)
            waits.append((timeout, woke))
            return woke

        inbox.wait = wait  # type: ignore[method-assign]
        shown: list[int] = []

        def on_frame() -> None:
            if runner.view is second and not shown:
                shown.append(len(waits))
                inbox.put({"kind": "quit"})
            elif len(waits) == 1 and runner.view is first:
                inbox.put_view(second)  # as the controller would, from any thread

        inbox.put_view(first)
        runner.loop(new_surface((640, 360)), lambda dirty: None, on_frame=on_frame,
                    max_frames=50)
        assert shown, "the new view was never drawn"
        timeout, woke = waits[shown[0] - 1]
        assert timeout == 1.0 and woke  # would sleep a whole frame period: the view woke it
    finally:
        pygame.display.quit()


def test_an_unchanged_frame_lets_the_loop_sleep_longer() -> None:
    """After a frame that changed nothing the loop waits IDLE_WAIT_S, not a frame period."""
    from ui.window import IDLE_WAIT_S

    pygame.display.init()
    try:
        inbox = UiInbox()
        runner = UiWindow(layout_of("blackjack"), inbox, (640, 360), fps=100)
        timeouts: list[float | None] = []
        inbox.wait = lambda t: timeouts.append(t) or False  # type: ignore[method-assign]
        inbox.put_view(load_json("blackjack-betting"))
        runner.loop(new_surface((640, 360)), lambda dirty: None, max_frames=4)
        assert timeouts[0] == 0.01  # the first frame drew: the next one a period later
        assert timeouts[-1] == IDLE_WAIT_S  # nothing moved since
    finally:
        pygame.display.quit()
