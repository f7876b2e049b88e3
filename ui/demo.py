"""`etg ui demo`: a window cycling through the table's states, fed like the real table.

A feeder thread plays the controller's part: it puts public views (recorded by the bench
from the engine playing the variation's sample scenario, handed in by the command) and
screen messages into the UI's inbox on a timer, while the UI runs in the main thread.
Space skips to the next state, Esc quits.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from etgcore.view import PublicView
from ui.layout_source import layout_for_rules, rules_for
from ui.window import UiInbox, UiWindow

Step = tuple[PublicView | None, list[Mapping[str, Any]]]


def demo_steps(rules: Any, views: list[PublicView]) -> list[Step]:
    """The states the demo cycles through: attract, betting, each card of ``views``
    (one recorded round), its recall, and a tilt."""
    from ui.snapshot import empty_table_view

    empty = empty_table_view(rules)
    steps: list[Step] = [(empty, [{"kind": "recall", "entries": None},
                                  {"kind": "screen", "screen": "attract"}])]
    steps.append((empty, [{"kind": "screen", "screen": "auto"},
                          {"kind": "betting", "closes_in": 9.0}]))
    cards_only = [v for i, v in enumerate(views) if i == 0 or v != views[i - 1]]
    for v in cards_only:
        steps.append((v, [{"kind": "betting", "closes_in": None}]))
    if views:
        steps.append((views[-1], [{"kind": "recall", "index": 0, "entries": [
            {"view": views[-1], "ended": "just now"}]}]))
        steps.append((views[-1], [{"kind": "recall", "entries": None}]))
    steps.append((empty_table_view(rules, tilt=True), []))
    return steps


def run_demo(cfg: Any, variant: str, views: list[PublicView], seconds: float,
             frames: int) -> int:
    """The demo window for ``variant``; ``views`` is one recorded round (may be empty)."""
    rules = rules_for(variant, cfg.rules, cfg.source)
    layout = layout_for_rules(rules, cfg.table.certificate_holder)
    steps = demo_steps(rules, views)
    inbox = UiInbox()
    skip = threading.Event()
    stop = threading.Event()

    def feeder() -> None:  # the controller's part: put, never wait for the UI
        i = 0
        while not stop.is_set():
            view, messages = steps[i % len(steps)]
            for m in messages:
                inbox.put(m)
            if view is not None:
                inbox.put_view(view)
            i += 1
            # the attract screen is what an idle table shows: stay on it a little longer
            skip.wait(seconds * (2 if i % len(steps) == 1 else 1))
            skip.clear()

    def on_key(event: Any) -> bool:
        import pygame

        if event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE:
            skip.set()
            return True
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            inbox.put({"kind": "quit"})
            return True
        return False

    runner = UiWindow(layout, inbox, (cfg.display.width, cfg.display.height), cfg.display.fps,
                      on_key=on_key)
    thread = threading.Thread(target=feeder, name="ui-demo-feeder", daemon=True)
    thread.start()
    try:
        runner.run(fullscreen=cfg.display.fullscreen, max_frames=frames,
                   title=f"ETG demo: {layout.title}")
    finally:
        stop.set()
        skip.set()
        thread.join(timeout=2)
    return 0
