"""The felt carries what the rules say: inscriptions, paytables, areas, the holder's name.

baseline §6: each variant's layout carries its regulated inscriptions word for word and
every paytable in force, drawn from the rules configuration, never typed in the UI.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import HOLDER, VARIANTS, engine_variants, layout_of, load_json

from ui.layout_data import parse_layout
from ui.layout_source import layout_for_variant
from ui.renderer import PAYTABLE_PAGE_S, Renderer, new_surface
from ui.state import ScreenState

UI_DIR = Path(__file__).resolve().parents[2] / "ui"


def _texts(layout: Any, view: Any, size: tuple[int, int] = (1280, 720)) -> list[str]:
    """Everything written on the table, over every page of paged paytables."""
    r = Renderer(size, layout, animate=True)
    surf = new_surface(size)
    r.render(surf, view, ScreenState("table"), 0.0)
    texts = r.model.texts()
    plan = r._paytables
    for k in range(1, len(plan.pages) if plan else 1):
        r.render(surf, view, ScreenState("table"), k * PAYTABLE_PAGE_S + 0.01)
        texts += [d.value for d in r.model.of_kind("text") if d.region.startswith("paytables-")]
    return texts


def _engine_view(variant: str) -> dict[str, Any]:
    from ui.layout_source import rules_for
    from ui.snapshot import empty_table_view

    return empty_table_view(rules_for(variant))


@pytest.mark.parametrize("variant", VARIANTS)
def test_baseline_6_every_inscription_and_paytable_is_drawn_word_for_word(variant: str) -> None:
    """baseline §6; § 633b.26(b)(4), (b)(6); § 633b.28(b)(4), (b)(6); § 672a.2(b)(3)."""
    layout = layout_of(variant)
    texts = _texts(layout, load_json(f"{variant}-betting"))
    for inscription in layout.inscriptions:
        assert inscription in texts, inscription
    for table in layout.paytables:
        assert table.title in texts
        for hand, odds in table.rows:
            assert hand in texts and odds in texts, (hand, odds)


@pytest.mark.parametrize("size", [(1920, 1080), (800, 480)], ids=["1920", "800"])
def test_baseline_6_inscriptions_follow_the_rules_submission(size: tuple[int, int]) -> None:
    """A rules override changes the felt: the text comes from the rules, not the UI."""
    plain = layout_for_variant("blackjack", HOLDER)
    six_five = layout_for_variant("blackjack", HOLDER, {"blackjack_pays": "6:5"})
    view = _engine_view("blackjack")
    assert "Blackjack pays 3 to 2" in _texts(plain, view, size)
    texts = _texts(six_five, view, size)
    assert "Blackjack pays 6 to 5" in texts
    assert "Blackjack pays 3 to 2" not in texts
    soft = layout_for_variant("blackjack", HOLDER, {"dealer_hits_soft_17": True})
    rule = [s for s in soft.inscriptions if s.startswith("Dealer")]
    assert rule and rule[0] in _texts(soft, view, size)


def test_baseline_6_layout_data_is_read_from_layout_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Monkeypatch the engine's layout data: the rendered text model changes with it."""
    import firmware.engine

    real = firmware.engine.layout_for

    def patched(rules: Any) -> dict[str, Any]:
        data = real(rules)
        data["inscriptions"] = [*data["inscriptions"], "Inscription from the patched rules"]
        data["paytables"] = [*data["paytables"],
                             {"title": "Patched paytable", "rows": [["Patched hand", "7 to 3"]]}]
        return data

    monkeypatch.setattr(firmware.engine, "layout_for", patched)
    texts = _texts(layout_for_variant("blackjack", HOLDER), _engine_view("blackjack"))
    for s in ("Inscription from the patched rules", "Patched paytable", "Patched hand",
              "7 to 3"):
        assert s in texts


def test_no_regulated_inscription_is_typed_in_the_ui_code() -> None:
    """baseline §6: inscriptions and odds live in the Rules Submission, not in ui/."""
    phrases = [r"pays \d+ to \d+", r"Dealer shall", r"stand on all 1[78]s",
               r"is not available", r"total point count", r"\d+ to 1\b"]
    for path in UI_DIR.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        for phrase in phrases:
            assert not re.search(phrase, source), f"{path.name}: {phrase}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_certificate_holder_and_a_betting_area_per_seat_and_wager(variant: str) -> None:
    """§ 633b.26(b)(1)-(3), (5); § 633b.28(b)(1)-(3), (5); § 672a.2(b)(1), (2), (4)."""
    layout = layout_of(variant, holder="Commonwealth Downs Casino")
    view = load_json(f"{variant}-betting")
    texts = _texts(layout, view)
    assert "Commonwealth Downs Casino" in texts
    assert layout.title in texts
    seats = view["limits"]["seats"]
    for kind in layout.betting_areas:
        label = layout.label(kind)
        assert texts.count(label) == seats, (kind, texts.count(label))


def test_633b28_b7_bingo_target_and_multiplier_are_indicated() -> None:
    """§ 633b.28(b)(7): a means of indicating the Bingo target and multiplier."""
    r = Renderer((1280, 720), layout_of("bingo"), animate=False)
    r.render(new_surface((1280, 720)), load_json("bingo-decisions"), ScreenState(), 0.0)
    texts = r.model.texts()
    assert "TARGET" in texts and "MULTIPLIER" in texts
    assert "17" in texts and "10x" in texts


@pytest.mark.parametrize("variant", VARIANTS)
def test_layout_data_of_the_engine_has_the_interface_shape(variant: str) -> None:
    """docs/interfaces.md: layout_for gives title, inscriptions, paytables, areas, seats."""
    if variant in engine_variants():
        from firmware.engine import layout_for
        from ui.layout_source import rules_for

        data = layout_for(rules_for(variant))
    else:  # the variation's rules are not in yet: its fixture must have the same shape
        data = load_json(f"layout-{variant}")
    layout = parse_layout(data, HOLDER)
    assert layout.title and layout.inscriptions and "blackjack" in layout.betting_areas


def test_a_malformed_layout_is_one_clear_error() -> None:
    from etgcore.errors import UserError

    with pytest.raises(UserError, match="inscriptions"):
        parse_layout({"title": "x", "inscriptions": "not a list", "betting_areas": []}, HOLDER)
    with pytest.raises(UserError, match=r"paytables\[0\]\.rows"):
        parse_layout({"title": "x", "inscriptions": [], "betting_areas": [],
                      "paytables": [{"title": "t", "rows": [["only one"]]}]}, HOLDER)


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (800, 480)], ids=str)
def test_baseline_6_every_paytable_is_shown_on_small_screens_a_page_at_a_time(
        size: tuple[int, int]) -> None:
    """A screen too small for every paytable at a readable size shows them in turn."""
    layout = layout_of("bingo")
    view = dict(load_json("bingo-decisions"))
    view["bingo"] = {"target": None, "multiplier": None}  # before the draw: pages rotate
    r = Renderer(size, layout, animate=True)
    surf = new_surface(size)
    r.render(surf, view, ScreenState(), 0.0)
    plan = r._paytables
    assert plan is not None
    shown: set[str] = set()
    for k in range(len(plan.pages)):
        dirty = r.render(surf, view, ScreenState(), k * PAYTABLE_PAGE_S + 0.01)
        assert (dirty != []) == (k > 0)  # a new page redraws only its panels
        shown |= {t.title for t in layout.paytables if t.title in r.model.texts()}
    assert shown == {t.title for t in layout.paytables}
    if size == (800, 480):
        assert plan.paged


def test_672a2_b4_push22_area_per_seat_only_when_offered() -> None:
    """§ 672a.2(b)(4): a Push 22 area for each player if the certificate holder offers it."""
    view = _engine_view("free-bet")
    off = _texts(layout_for_variant("free-bet", HOLDER), view)
    on_layout = layout_for_variant("free-bet", HOLDER, {"push22": True})
    assert on_layout.label("push22") == "PUSH 22"  # the wager's own declaration
    assert on_layout.label("push22") not in off
    on = _texts(on_layout, view)
    assert on.count(on_layout.label("push22")) == view["limits"]["seats"]
    for table in on_layout.paytables:
        assert table.title in on


def test_finding_9_bingo_paytable_page_shows_the_multiplier_just_drawn() -> None:
    """§ 633b.28(e)(2): once the multiplier is drawn, the rotating paytable stays on the
    page with that multiplier's lines (800x480 pages the Bingo table)."""
    size = (800, 480)
    layout = layout_of("bingo")
    base = load_json("bingo-decisions")
    for m in (2, 5, 10, 25, 50, 100):
        view = dict(base)
        view["bingo"] = {"target": 17, "multiplier": m}
        r = Renderer(size, layout, animate=True)
        surf = new_surface(size)
        plan = None
        for k in range(6):  # whatever the time, the drawn multiplier's page
            r.render(surf, view, ScreenState(), k * PAYTABLE_PAGE_S + 0.01)
            plan = r._paytables
            texts = " ".join(r.model.texts())
            assert f"{m}x" in texts, (m, k)
        assert plan is not None and plan.paged
