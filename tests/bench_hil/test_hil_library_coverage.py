"""issue 10 §3: the scenario library covers every lettered clause of the seed sections,
every baseline point, every shoe fault of the ICD and the console's void — checked from
the files' own citations and fault lines, so a clause that loses its last scenario fails
here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "scenarios"

#: seed section -> its lettered clauses, as in the sections of the regulation (docs/games.md)
SEEDS = {
    "633b.26": "abcdefghij", "633b.28": "abcdefgh", "635a.10": "abcd", "672a.10": "abcd",
}
#: clauses no scenario can reach with the shipped Rules Submissions, and where they are tested
UNREACHABLE = {
    "635a.10(b)": "the dealer checks the hole card first (baseline §1.4, `dealer_check` is a "
    "game key, not a setting), so no double can precede a dealer Blackjack; "
    "tests/variants/test_variant_spanish21.py proves it on a no-check table",
}
BASELINE = [f"§1.{n}" for n in range(1, 14)] + ["§2", "§3", "§4", "§5"]
#: baseline §6 (layout inscriptions) is the display's: tests/ui checks it, not a scenario
FAULTS = ("ERR,MISREAD", "ERR,DOUBLE", "ERR,JAM", "ERR,LID", "ERR,SENSOR", "LINK-DOWN",
          "CRD,", "HEL,", "CUT", "EMP")


def _library() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(SCENARIOS.rglob("*.toml")))


def test_hil_library_has_100_scenarios() -> None:
    assert len(list(SCENARIOS.rglob("*.toml"))) >= 100


def test_hil_library_cites_every_lettered_seed_clause() -> None:
    text = _library()
    for section, letters in SEEDS.items():
        for c in letters:
            clause = f"{section}({c})"
            if clause in UNREACHABLE:
                continue
            assert f"§ {clause}" in text or f"§{clause}" in text, f"no scenario cites § {clause}"


def test_hil_library_cites_every_baseline_point() -> None:
    text = _library()
    for point in BASELINE:
        assert re.search(rf"baseline {re.escape(point)}(?![0-9])", text), \
            f"no scenario cites baseline {point}"


def test_hil_library_injects_every_icd_shoe_fault_and_the_void() -> None:
    text = _library()
    shoe_lines = re.findall(r'^\s*shoe = "([^"]*)"', text, re.M)
    for fault in FAULTS:
        assert any(line.startswith(fault) for line in shoe_lines), f"no scenario injects {fault}"
    assert re.search(r'^\s*press = "VOID"', text, re.M)
