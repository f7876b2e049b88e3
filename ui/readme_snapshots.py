"""The README's pictures: each variation's layout mid-round, from real engine output.

Each variation has a bench scenario in ``ui/scenarios/<variant>.toml`` (seven seats where
the game allows, splits, doubles, lammers, a Bingo draw); its first round is fed into the
engine up to the card named here (by the bench, whose player the command hands in:
:func:`firmware.bench.screen_views.scenario_view`) and drawn at 1920x1080.
``etg ui readme`` rewrites ``docs/snapshots/<variant>.png``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from etgcore.view import PublicView
from ui.layout_source import layout_for_rules
from ui.snapshot import render_png
from ui.state import ScreenState

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
#: Cards into the first round at which each README snapshot is taken.
AFTER_CARD = {
    "blackjack": 19,
    "split-to-double": 19,
    "bingo": 19,
    "free-bet": 18,
    "spanish21": 19,
}


def scenario_for(variant: str) -> Path:
    return SCENARIOS / f"{variant}.toml"


#: (scenario file, cards into the first round) -> (public view, rules) at that card
ScenarioPlayer = Callable[[str, int | None], tuple[PublicView, Any]]


def write_readme_snapshots(out_dir: str | Path, size: tuple[int, int],
                           certificate_holder: str, play: ScenarioPlayer) -> Iterator[str]:
    """Render every variation whose rules exist; yields one line per picture."""
    from firmware.engine import available_variants

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    have = set(available_variants())
    for variant, after in AFTER_CARD.items():
        if variant not in have:
            yield f"skipped {variant}: no Rules Submission firmware/rules/{variant}.toml yet"
            continue
        view, rules = play(str(scenario_for(variant)), after)
        path = out / f"{variant}.png"
        render_png(view, layout_for_rules(rules, certificate_holder), ScreenState(), size, path)
        yield f"wrote {path} ({variant}, after card {after}, phase {view.get('phase')})"
