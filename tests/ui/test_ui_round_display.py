"""The round on the table: wagers, doubles, lammers, turn, legal buttons, results, Bingo."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from conftest import layout_of, load_json

from ui.bingo import REVEAL_S
from ui.renderer import Renderer, new_surface
from ui.state import ScreenState, resolve_screen


def _draw(variant: str, view: Any, state: ScreenState | None = None) -> Renderer:
    r = Renderer((1280, 720), layout_of(variant), animate=False)
    r.render(new_surface((1280, 720)), view, state or ScreenState(), 0.0)
    return r


def test_672a10_free_bet_lammers_are_shown_as_lammers_not_money() -> None:
    """§ 672a.10(b)(2)(i)-(ii): the lammer is the second split hand's wager."""
    view = load_json("free-bet-decisions")
    r = _draw("free-bet", view)
    seat1 = r.model.regions()
    assert "seat-1" in seat1
    lammers = [d for d in r.model.of_kind("lammer") if d.region == "seat-1"]
    assert len(lammers) == 2  # the split hand's wager and its free double
    texts = r.model.texts("seat-1")
    # money: the first hand's real wager and the Blackjack betting area; the lammer
    # hand's nominal amount is not written as money anywhere
    assert texts.count("$10") == 2
    assert not any(t.startswith("DOUBLE $") for t in texts)


def test_633b26_e2_doubles_show_their_multiple_and_amount() -> None:
    """§ 633b.26(e)(2)(i): a Double Down wager of 1x to 4x the initial wager."""
    r = _draw("split-to-double", load_json("split-to-double-decisions"))
    assert "DOUBLE x3 $30" in r.model.texts("seat-1")


def test_whose_turn_and_the_legal_buttons() -> None:
    view = load_json("split-to-double-decisions")
    r = _draw("split-to-double", view)
    labels = r.model.texts("status")
    for decision in view["expecting"]["legal"]:
        assert decision.upper() in labels
    assert "HIT" not in labels  # § 633b.26(e): no hitting, so no HIT button
    assert {seat for _r, seat, _d in r.buttons} == {3}
    assert view["expecting"]["why"] in labels



@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (800, 480)])
@pytest.mark.parametrize(("variant", "fixture"), [("split-to-double", "split-to-double-decisions"),
                                                  ("blackjack", "blackjack-insurance")])
def test_button_labels_fit_their_buttons(size: tuple[int, int], variant: str,
                                         fixture: str) -> None:
    """SURRENDER and NO INSURANCE stay whole at 800x480: a button is as wide as its label
    at the status font size, and the buttons stay on the rail, clear of each other."""
    from ui.status import decision_label

    r = Renderer(size, layout_of(variant), animate=False)
    r.render(new_surface(size), load_json(fixture), ScreenState(), 0.0)
    font = r.painter.texts.font(r.metrics.font(20))
    assert r.buttons
    for rect, _seat, decision in r.buttons:
        inner = rect.width - rect.height // 2  # the label box inside the rounded ends
        assert font.size(decision_label(decision))[0] <= inner, (size, decision)
        assert rect.left >= 0 and rect.right <= size[0]
    lefts = sorted(r.buttons, key=lambda b: b[0].left)
    assert all(a[0].right <= b[0].left for a, b in itertools.pairwise(lefts))


def test_results_and_payouts_per_hand() -> None:
    view = load_json("blackjack-settled")
    r = _draw("blackjack", view)
    texts = " ".join(r.model.texts())
    for seat in view["seats"]:
        for hand in seat["hands"]:
            assert hand["result"].upper() in texts
    # a 20 against 19 on $25 is paid $50: the badge says what was won, +$25 (issue 20)
    assert "WIN  +$25" in r.model.texts("seat-2")
    assert not any(t.startswith("WIN  $50") for t in r.model.texts("seat-2"))
    assert "+$25" in r.model.texts("seat-2")      # the seat's net


def test_633b28_e_bingo_display_before_and_during_the_draw() -> None:
    before = _draw("bingo", load_json("bingo-betting"))
    texts = before.model.texts("bingo")
    assert "TARGET" in texts and "drawn when wagers close" in texts
    drawing = _draw("bingo", load_json("bingo-rng"))
    assert "drawing..." in drawing.model.texts("bingo")


def test_633b28_e_bingo_target_is_revealed_with_an_animation_then_stays() -> None:
    view = load_json("bingo-decisions")
    r = Renderer((1280, 720), layout_of("bingo"), animate=True)
    surf = new_surface((1280, 720))
    r.render(surf, load_json("bingo-rng"), ScreenState(), 10.0)
    r.render(surf, view, ScreenState(), 11.0)         # the draw arrives: reveal starts
    assert "17" not in r.model.texts("bingo")          # the balls are still growing
    r.render(surf, view, ScreenState(), 11.0 + REVEAL_S / 2)
    mid = r.model.texts("bingo")
    r.render(surf, view, ScreenState(), 11.0 + REVEAL_S + 0.01)
    assert "17" in r.model.texts("bingo") and "10x" in r.model.texts("bingo")
    assert "17" in mid  # visible part way through
    later = load_json("bingo-decisions")
    later["seats"][2]["hands"][0]["cards"].append("2D")
    assert r.render(surf, later, ScreenState(), 30.0) != []
    assert "17" in r.model.texts("bingo")  # shown through the round, no second reveal


def test_633b28_g_bingo_hit_is_highlighted() -> None:
    r = _draw("bingo", load_json("bingo-settled"))
    assert "HIT!" in r.model.texts("bingo")
    hit_seats = [d.region for d in r.model.of_kind("text") if d.value == "BINGO!"]
    assert hit_seats == ["seat-2"]


def test_insurance_wager_is_on_the_insurance_spot() -> None:
    """baseline §1.5: insurance offered on an ace up; a taken insurance wager is shown."""
    view = load_json("blackjack-insurance")
    r = _draw("blackjack", view)
    assert "$5" in r.model.texts("seat-1")
    assert {"INSURANCE", "NO INSURANCE"} <= set(r.model.texts("status"))


@pytest.mark.parametrize(("phase", "screen"), [
    ("idle", "attract"), ("betting", "betting"), ("rng", "table"), ("dealing", "table"),
    ("decisions", "table"), ("settled", "table"), ("voided", "void"), ("tilt", "tilt"),
    ("new-shoe", "table"),
])
def test_screen_follows_the_phase(phase: str, screen: str) -> None:
    view = {"phase": phase, "tilt": {"cause": "x"} if phase == "tilt" else None}
    assert resolve_screen(view, ScreenState()) == screen


def test_controller_screens_override_the_phase() -> None:
    view = {"phase": "decisions", "tilt": None}
    assert resolve_screen(view, ScreenState("attract")) == "attract"
    assert resolve_screen(view, ScreenState(failure={"kind": "rng"})) == "failure"
    assert resolve_screen(view, ScreenState("recall")) == "table"  # nothing to recall
    with pytest.raises(ValueError, match="unknown screen"):
        ScreenState("nonsense")


def test_tilt_shows_the_cause_and_what_the_dealer_must_do() -> None:
    view = load_json("split-to-double-tilt")
    r = _draw("split-to-double", view)
    texts = r.model.texts("overlay")
    assert view["tilt"]["cause"] in texts and view["tilt"]["resolve"] in texts
    assert "TABLE PAUSED  ·  MISREAD" in texts


def test_tilt_from_the_engine_itself() -> None:
    from ui.layout_source import layout_for_variant, rules_for
    from ui.snapshot import empty_table_view

    view = empty_table_view(rules_for("blackjack"), tilt=True)
    r = Renderer((800, 480), layout_for_variant("blackjack", "H"), animate=False)
    r.render(new_surface((800, 480)), view, ScreenState(), 0.0)
    texts = r.model.texts("overlay")
    assert view["tilt"]["cause"] in texts and view["tilt"]["resolve"] in texts


def test_void_and_recall_banners() -> None:
    from ui.state import RecallEntry

    void = _draw("free-bet", load_json("free-bet-voided"))
    assert "Every wager of round 43 has been returned." in void.model.texts("overlay")
    views = [load_json("bingo-settled") for _ in range(12)]
    for i, v in enumerate(views):
        v["round"] = 100 - i
    entries = tuple(RecallEntry(v, f"14:{i:02d}") for i, v in enumerate(views[:10]))
    rec = _draw("bingo", views[0], state=ScreenState("recall", recall=entries, recall_index=2))
    texts = rec.model.texts()
    assert "GAME RECALL" in texts and "NOT THE CURRENT GAME" in texts
    assert "round 98  ·  ended 14:02  ·  3 of 10 (newest first)" in texts
    assert [t for t in rec.model.texts("recall-frame") if t.startswith("R")][1:] == [
        f"R{100 - i}" for i in range(10)]


def test_betting_countdown_counts_down() -> None:
    view = load_json("bingo-betting")
    r = Renderer((1280, 720), layout_of("bingo"))
    surf = new_surface((1280, 720))
    state = ScreenState(betting_closes_at=20.0, betting_opened_at=5.0)
    r.render(surf, view, state, 10.0)
    assert "10" in r.model.texts("overlay")
    dirty = r.render(surf, view, state, 14.5)
    assert dirty and "6" in r.model.texts("overlay")
    r.render(surf, view, state, 25.0)
    assert "betting is closed" in r.model.texts("overlay")
