"""issue 10 §1/§5: `etg bench run --mode hil` prints the engine mode's lines, exit code and
JUnit report; bad input is one clear line; production refuses the bench's powers."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from firmware.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "tests" / "scenarios" / "blackjack" / "07-double-down-one-card.toml"


def test_hil_pass_fail_lines_exit_code_and_junit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(GOOD.read_text(encoding="utf-8").replace("net = 2000", "net = 1999"),
                     encoding="utf-8")
    assert "net = 1999" in wrong.read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nvariant = "blackjack"\n[[round]]\nshoe = ["ZZ"]\n',
                   encoding="utf-8")
    junit = tmp_path / "out" / "hil.xml"
    rc = main(["bench", "run", "--mode", "hil", str(GOOD), str(wrong), str(bad),
               "--junit", str(junit)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 1
    assert out[0].startswith(f"PASS {GOOD}: ")
    assert out[1].startswith(f"FAIL {wrong}: ") and "net 2000, expected 1999" in out[1]
    assert out[2].startswith(f"FAIL {bad}: ") and "shoe[0]" in out[2]
    assert out[-1] == "1 passed, 2 failed"
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("name") == "etg bench (hil)"
    assert suite.get("tests") == "3" and suite.get("failures") == "2"


def test_hil_production_configuration_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Principle 7: the control channel is a bench power; production says so in one line."""
    rc = main(["--set", 'table.mode="production"', "bench", "run", "--mode", "hil", str(GOOD)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "production" in err[0]


def test_hil_rules_override_refused_like_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "decks.toml"
    f.write_text(GOOD.read_text(encoding="utf-8").replace(
        'variant = "blackjack"', 'variant = "blackjack"\n[rules]\ndecks = 99'), encoding="utf-8")
    assert main(["bench", "run", "--mode", "hil", str(f)]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("FAIL") and "rules.decks" in line
