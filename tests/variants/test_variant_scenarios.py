"""The variations' scenario files run in engine mode (`etg bench run --mode engine`), as
`make test` must: at least 12 per variation, each citing its clause, all passing; and the
whole tests/scenarios tree prints `N passed, 0 failed`."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.cli import main

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
VARIANTS = ("split-to-double", "bingo", "free-bet", "spanish21")


def _present() -> list[str]:
    return [v for v in VARIANTS if (SCENARIOS / v).is_dir()]


@pytest.mark.parametrize("variant", _present())
def test_variant_scenarios_pass_in_engine_mode(
    variant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    files = sorted((SCENARIOS / variant).glob("*.toml"))
    assert len(files) >= 12
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert "§" in text, f"{f} cites no clause"
        assert f'variant = "{variant}"' in text, f
    rc = main(["bench", "run", "--mode", "engine", str(SCENARIOS / variant)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0, "\n".join(line for line in out if line.startswith("FAIL"))
    assert out[-1] == f"{len(files)} passed, 0 failed"


def test_variant_whole_scenario_tree_passes(capsys: pytest.CaptureFixture[str]) -> None:
    """issue 4 'done when': `etg bench run --mode engine tests/scenarios` prints N passed."""
    files = sorted(SCENARIOS.rglob("*.toml"))
    rc = main(["bench", "run", "--mode", "engine", str(SCENARIOS)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0, "\n".join(line for line in out if line.startswith("FAIL"))
    assert out[-1] == f"{len(files)} passed, 0 failed"
