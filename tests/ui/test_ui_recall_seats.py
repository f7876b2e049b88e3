"""Game recall of a round some seats sat out (issue 38, item 9): the round's view holds only
the seats that played; the others say "did not play" where their credits would be, not a
bare "SEAT n · CREDITS" with no amount. A snapshot of the recall screen has no end time to
show and shows none (it said "ended snapshot")."""

from __future__ import annotations

from pathlib import Path

from conftest import layout_of, load_json

from ui.renderer import Renderer, new_surface
from ui.seats import DID_NOT_PLAY
from ui.state import RecallEntry, ScreenState


def test_seats_that_did_not_play_say_so() -> None:
    view = load_json("blackjack-settled")
    view["seats"] = [s for s in view["seats"] if s["seat"] not in (2, 5)]
    r = Renderer((1280, 720), layout_of("blackjack"), animate=False)
    surf = new_surface((1280, 720))
    state = ScreenState("recall", recall=(RecallEntry(view, "2026-05-01 14:03:22"),))
    r.render(surf, view, state, 0.0)
    absent = {d.region for d in r.model.of_kind("text") if d.value == DID_NOT_PLAY}
    assert absent == {"seat-2", "seat-5"}
    for seat in (1, 3, 4, 6, 7):  # the others show their credits
        texts = r.model.texts(f"seat-{seat}")
        assert any(t.startswith("$") for t in texts), (seat, texts)
    subtitle = [t for t in r.model.texts("overlay") if t.startswith("round ")]
    assert subtitle == ["round 43  ·  ended 2026-05-01 14:03:22  ·  1 of 1 (newest first)"]


def test_a_recall_snapshot_claims_no_end_time(tmp_path: Path) -> None:
    from firmware.engine.rules import load_rules
    from ui.snapshot import empty_table_view, render_png, screen_state

    view = empty_table_view(load_rules("blackjack", {}))
    model = render_png(view, layout_of("blackjack"), screen_state("recall", view, 15.0),
                       (800, 480), tmp_path / "recall.png")
    subtitle = [t for t in model.texts("overlay") if t.startswith("round ")]
    assert subtitle == ["round 0  ·  1 of 1 (newest first)"]
