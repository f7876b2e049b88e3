"""Fixtures of the UI tests: public views and layout data, off-screen surfaces.

The JSON views under fixtures/ follow docs/interfaces.md; the layouts there stand in for
variations whose Rules Submission is not in firmware/rules yet. Wherever the engine can
give the real thing (its public view, ``layout_for``), the tests use the engine.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygame
import pytest

from ui.layout_data import Layout, parse_layout

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SIZES = [(1920, 1080), (1280, 720), (800, 480)]
VARIANTS = ["blackjack", "split-to-double", "bingo", "free-bet", "spanish21"]
HOLDER = "Keystone Riverside Casino"


def load_json(name: str) -> Any:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def engine_variants() -> list[str]:
    from firmware.engine import available_variants

    return [v for v in VARIANTS if v in available_variants()]


def layout_of(variant: str, holder: str = HOLDER) -> Layout:
    """The engine's layout of ``variant`` when its rules exist, else the fixture's."""
    if variant in engine_variants():
        from ui.layout_source import layout_for_variant

        return layout_for_variant(variant, holder)
    return parse_layout(load_json(f"layout-{variant}"), holder)


@pytest.fixture(scope="session", autouse=True)
def _pygame() -> Any:
    pygame.display.init()
    pygame.font.init()
    yield
    pygame.display.quit()


@pytest.fixture
def fixture_view() -> Callable[[str], Any]:
    return load_json


@functools.cache
def engine_round(variant: str) -> tuple[tuple[dict[str, Any], dict[str, Any]], ...]:
    """(public, private) views after every input of the variation's sample round (engine,
    bench mode). Cached: callers must not modify them."""
    from firmware.bench.playback import play_scenario
    from firmware.bench.scenario import load_scenario
    from firmware.bench.target import EngineTarget
    from ui.readme_snapshots import scenario_for

    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []

    class Both(EngineTarget):
        def _send(self, inp: Any) -> str | None:
            why = super()._send(inp)
            if why is None:
                t = self._t()
                pairs.append((t.public_view(), t.private_view()))
            return why

    sc = load_scenario(scenario_for(variant))
    assert play_scenario(dataclasses.replace(sc, rounds=sc.rounds[:1]), Both()) == []
    return tuple(pairs)
