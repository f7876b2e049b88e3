"""`etg ui snapshot` and `etg ui readme`: PNGs without a display (issue 8 §6)."""

from __future__ import annotations

from pathlib import Path

import pygame
import pytest
from conftest import SIZES, engine_variants

from firmware.cli import main
from ui.readme_snapshots import AFTER_CARD, scenario_for

ROOT = Path(__file__).resolve().parents[2]


def _png_size(path: Path) -> tuple[int, int]:
    return pygame.image.load(str(path)).get_size()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_of_each_screen_of_the_layout(tmp_path: Path, size: tuple[int, int]) -> None:
    w, h = size
    for screen in ("auto", "attract", "betting", "recall", "tilt"):
        out = tmp_path / f"{screen}.png"
        assert main(["ui", "snapshot", "--variant", "blackjack", "--screen", screen,
                     "--size", f"{w}x{h}", "--out", str(out)]) == 0
        assert _png_size(out) == size


def test_snapshot_of_a_scenario_after_k_cards(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                              ) -> None:
    out = tmp_path / "k.png"
    scenario = str(scenario_for("blackjack"))
    assert main(["ui", "snapshot", "--scenario", scenario, "--after-card", "16",
                 "--size", "800x480", "--out", str(out)]) == 0
    assert "phase decisions" in capsys.readouterr().out
    assert _png_size(out) == (800, 480)
    assert main(["ui", "snapshot", "--scenario", scenario, "--out", str(out)]) == 0
    assert "phase settled" in capsys.readouterr().out


def test_snapshot_after_k_cards_is_the_engine_state_after_k_cards() -> None:
    from firmware.bench.screen_views import scenario_view

    view, _rules = scenario_view(str(scenario_for("blackjack")), 8)
    dealt = sum(len(h["cards"]) for s in view["seats"] for h in s["hands"])
    assert dealt + len(view["dealer"]["cards"]) == 8
    assert view["shoe"]["cards_dealt"] >= 8
    view0, _ = scenario_view(str(scenario_for("blackjack")), 0)
    assert view0["dealer"]["cards"] == []


@pytest.mark.parametrize(("argv", "message"), [
    (["--size", "big"], "size must be WIDTHxHEIGHT"),
    (["--size", "100x100"], "out of range"),
    (["--after-card", "3"], "--after-card needs --scenario"),
    (["--variant", "nosuchgame"], "nosuchgame"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          argv: list[str], message: str) -> None:
    args = ["ui", "snapshot", "--out", str(tmp_path / "x.png")]
    if "--variant" not in argv:
        args += ["--variant", "blackjack"]
    assert main(args + argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_output_and_bad_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ui", "snapshot", "--variant", "blackjack", "--out",
                 str(tmp_path / "x.jpg")]) == 2
    # a missing directory is made (README examples write under out/); a file in the way
    # of the directory is one line and exit 2
    assert main(["ui", "snapshot", "--variant", "blackjack", "--out",
                 str(tmp_path / "nodir" / "x.png")]) == 0
    (tmp_path / "afile").write_text("x")
    assert main(["ui", "snapshot", "--variant", "blackjack", "--out",
                 str(tmp_path / "afile" / "x.png")]) == 2
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nvariant = "blackjack"\n', encoding="utf-8")
    assert main(["ui", "snapshot", "--scenario", str(bad), "--out",
                 str(tmp_path / "y.png")]) == 2
    too_far = str(scenario_for("blackjack"))
    assert main(["ui", "snapshot", "--scenario", too_far, "--after-card", "500", "--out",
                 str(tmp_path / "z.png")]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert "Traceback" not in err and len(lines) == 5
    assert f"etg: --out: created the folder {tmp_path / 'nodir'}" in lines  # said, once
    assert sum(line.startswith("etg: error: ") for line in lines) == 4


def test_principle_7_scenario_snapshots_are_a_bench_power(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    production = ["--set", "table.mode=production", "--set", "shoe.port=/dev/null",
                  "--set", "panel.backend=gpio"]  # what else production mode insists on
    assert main([*production, "ui", "snapshot", "--scenario",
                 str(scenario_for("blackjack")), "--out", str(tmp_path / "p.png")]) == 2
    assert "bench power" in capsys.readouterr().err


@pytest.mark.parametrize("variant", list(AFTER_CARD))
def test_readme_snapshot_is_committed_for_every_variation_with_rules(variant: str) -> None:
    """The README shows a snapshot of each variation's layout (docs/snapshots)."""
    if variant not in engine_variants():
        assert scenario_for(variant).exists()  # ready for when the rules arrive
        return
    png = ROOT / "docs" / "snapshots" / f"{variant}.png"
    assert png.exists(), f"run: etg ui readme ({png} missing)"
    assert _png_size(png) == (1920, 1080)
    assert f"docs/snapshots/{variant}.png" in (ROOT / "README.md").read_text(encoding="utf-8")
