"""issue 10 §2: every scenario gives the same result at both depths.

The whole library runs in engine mode here; a subset chosen across the variants, the
shoe faults and the console's void runs in hil mode (the real `etg run` process, the
bench shoe on a pty, presses on the simulated key matrix) and is compared observation by
observation with its engine run (`firmware.bench.hil_compare`). `make test-hil` runs the
rest: `ETG_HIL_ALL=1` parametrizes this test over every file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from firmware.bench.hil_compare import compare_depths
from firmware.bench.runner import run_one
from firmware.bench.scenario import find_scenarios
from firmware.bench.target import EngineTarget

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "scenarios"

#: the hil scenarios of `make test`: every variant, every shoe fault kind, the void
HIL_SUBSET = (
    "blackjack/02-misread-void.toml",
    "blackjack/05-insurance-wins-2-to-1.toml",
    "blackjack/09-split-eights-633a11b.toml",
    "blackjack/16-cut-card-new-shoe-burn.toml",
    "blackjack/18-shoe-restart-tilt-resume.toml",
    "blackjack/20-impossible-card-tilts.toml",
    "blackjack/22-surrender-refused-after-hit.toml",
    "blackjack/26-leftover-cards-next-round.toml",
    "split-to-double/04-double-four-times.toml",
    "split-to-double/05-split-hand-double-initial-wager.toml",
    "split-to-double/08-bob-dealer-busts.toml",
    "split-to-double/18-double-5x-refused.toml",
    "bingo/01-blackjack-on-21-at-10x.toml",
    "bingo/08-multiplier-on-double.toml",
    "free-bet/01-free-split-lammer-wins.toml",
    "free-bet/05-dealer-22-pushes.toml",
    "free-bet/16-push22-wager.toml",
    "spanish21/05-rescue.toml",
    "spanish21/06-no-rescue-before-double.toml",
    "spanish21/20-21-beside-bust-surrender-rescue.toml",
    "spanish21/21-unscripted-double-kept.toml",
    "spanish21/23-rescue-a-doubled-21.toml",
    "faults/01-double-card-void.toml",
    "faults/03-jam-cleared-resume.toml",
    "faults/05-sensor-void.toml",
    "faults/06-link-down-resume.toml",
    "faults/08-unexpected-card-resume.toml",
    "faults/10-empty-mid-round-void.toml",
    "faults/12-void-before-the-deal.toml",
)


#: files a player cannot play on the panel: known gaps, reported, failing visibly here
PANEL_GAPS: dict[str, str] = {}


def _hil_files() -> list[object]:
    files = ([str(p.relative_to(SCENARIOS)) for p in find_scenarios([str(SCENARIOS)])]
             if os.environ.get("ETG_HIL_ALL") else
             [f for f in HIL_SUBSET if (SCENARIOS / f).is_file()])
    return [pytest.param(f, marks=pytest.mark.xfail(reason=PANEL_GAPS[f], strict=True))
            if f in PANEL_GAPS else f for f in files]


def test_hil_subset_spans_variants_and_faults() -> None:
    """The subset is at least 20 files, from every variant directory and the faults."""
    present = [f for f in HIL_SUBSET if (SCENARIOS / f).is_file()]
    assert len(present) >= 20
    assert {f.split("/")[0] for f in present} >= {
        "blackjack", "split-to-double", "bingo", "free-bet", "spanish21", "faults"}


def test_hil_whole_library_passes_in_engine_mode() -> None:
    files = find_scenarios([str(SCENARIOS)])
    assert len(files) >= 100
    failed = [r.line() for r in (run_one(str(f), EngineTarget) for f in files) if not r.passed]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("rel", _hil_files())
def test_hil_same_result_as_engine(rel: str) -> None:
    c = compare_depths(str(SCENARIOS / rel))
    assert c.engine.passed, c.engine.line()
    assert c.hil.passed, c.hil.line()
    assert c.same, "\n".join(c.differences)
