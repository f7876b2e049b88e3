"""Every wager the layout data declares gets its betting spot and its printed name
(issue 48, finding 2: ``ui/geometry.py``'s ``SIDE_KINDS`` gave a wager missing from it no
spot, silently, and ``ui/layout_data.py`` held every area's name). The UI names no wager:
a new one is drawn from its declaration alone, and two optional wagers sit on one seat."""

from __future__ import annotations

from typing import Any

from conftest import HOLDER, load_json

from ui.geometry import build_geometry
from ui.layout_data import parse_layout
from ui.renderer import Renderer, new_surface
from ui.state import ScreenState
from ui.units import Metrics

#: a layout as ``layout_for`` gives it for a game with two optional wagers no list knows
LAYOUT: dict[str, Any] = {
    "title": "Blackjack", "max_seats": 3,
    "inscriptions": ["Blackjack pays 3 to 2"],
    "paytables": [],
    "betting_areas": ["blackjack", "insurance", "lucky_ladies", "twenty_one_plus_3"],
    "wagers": [
        {"name": "blackjack", "label": "BLACKJACK", "optional": False},
        {"name": "insurance", "label": "INSURANCE", "optional": False},
        {"name": "lucky_ladies", "label": "LUCKY LADIES", "optional": True},
        {"name": "twenty_one_plus_3", "label": "21+3", "optional": True},
    ],
    "draw_panel": False,
}


def test_finding_2_a_wager_no_list_knows_gets_its_spot_on_every_seat() -> None:
    layout = parse_layout(LAYOUT, HOLDER)
    assert layout.side_areas == ("lucky_ladies", "twenty_one_plus_3")
    g = build_geometry(Metrics(1280, 720), 3, list(layout.betting_areas), False)
    for sg in g.seats.values():
        assert set(sg.spots) == {"blackjack", "lucky_ladies", "twenty_one_plus_3"}
        a, b = sg.spots["lucky_ladies"], sg.spots["twenty_one_plus_3"]
        assert a[0] != b[0]  # two spots, not one drawn over the other
        assert set(sg.tags) == {"lucky_ladies", "twenty_one_plus_3"}  # room for each result


def test_finding_2_each_declared_wager_is_labelled_as_declared() -> None:
    layout = parse_layout(LAYOUT, HOLDER)
    assert layout.label("twenty_one_plus_3") == "21+3"
    view = load_json("blackjack-betting")
    view["limits"]["seats"] = 3
    view["seats"] = view["seats"][:3]
    r = Renderer((1280, 720), layout, animate=False)
    r.render(new_surface((1280, 720)), view, ScreenState("table"), 0.0)
    texts = r.model.texts()
    assert texts.count("21+3") == 3 and texts.count("LUCKY LADIES") == 3, texts


def test_a_layout_without_declarations_still_names_its_areas() -> None:
    """Layout data recorded before the declarations travelled with it."""
    old = {k: v for k, v in LAYOUT.items() if k not in ("wagers", "draw_panel")}
    layout = parse_layout(old, HOLDER)
    assert layout.label("lucky_ladies") == "LUCKY LADIES" and not layout.draw_panel
