"""The `etg` command line: help, one-line errors, exit codes (issue 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from firmware.cli import COMMANDS, main

REPO = Path(__file__).resolve().parents[1]


def etg(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "firmware", *args],
        capture_output=True, text=True, cwd=cwd or REPO, timeout=120,
    )


def test_help_lists_every_subcommand() -> None:
    out = etg("--help")
    assert out.returncode == 0
    for name, _module in COMMANDS:
        assert name in out.stdout


@pytest.mark.parametrize("name", [n for n, _ in COMMANDS])
def test_each_subcommand_has_help(name: str) -> None:
    out = etg(name, "--help")
    assert out.returncode == 0, out.stderr
    assert "usage:" in out.stdout


def test_unknown_subcommand_is_one_line_exit_2() -> None:
    out = etg("frobnicate")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1
    assert "invalid choice" in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_option_is_one_line_exit_2() -> None:
    out = etg("config", "check", "--no-such-option")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1


def test_unknown_config_key_names_the_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--set", "nosuchkey=1", "config", "check"]) == 2
    err = capsys.readouterr().err
    assert "nosuchkey" in err and "Traceback" not in err


def test_set_after_subcommand_also_works(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", "--set", "table.variant=bingo"]) == 0
    assert "bingo" in capsys.readouterr().out


def test_config_show_and_keys(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["--config", str(REPO / "table.toml"), "config", "show"]) == 0
    assert '"variant": "blackjack"' in capsys.readouterr().out
    assert main(["config", "keys"]) == 0
    assert "panel.pins.rows" in capsys.readouterr().out


def test_missing_config_file_is_one_line(tmp_path: Path) -> None:
    out = etg("--config", str(tmp_path / "nope.toml"), "config", "check")
    assert out.returncode == 2
    assert "no such file" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_log_json_writes_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import logging

    from firmware.logsetup import setup_logging

    setup_logging(json_lines=True)
    logging.getLogger("etg.test").info("hello", extra={"seat": 3})
    line = capsys.readouterr().err.strip().splitlines()[-1]
    obj = json.loads(line)
    assert obj["msg"] == "hello" and obj["seat"] == 3 and obj["level"] == "info"
    setup_logging()
