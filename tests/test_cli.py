"""The `etg` command line: help, one-line errors, exit codes (issue 2)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

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

    from firmware.cli.logsetup import setup_logging

    setup_logging(json_lines=True)
    logging.getLogger("etg.test").info("hello", extra={"seat": 3})
    line = capsys.readouterr().err.strip().splitlines()[-1]
    obj = json.loads(line)
    assert obj["msg"] == "hello" and obj["seat"] == 3 and obj["level"] == "info"
    setup_logging()


def _parsers() -> list[tuple[str, Any]]:
    """Every (sub)command parser of `etg`, with its full name."""
    from firmware.cli import build_parser

    found: list[tuple[str, Any]] = []

    def walk(parser: Any, name: str) -> None:
        found.append((name, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    walk(sub, f"{name} {sub_name}")

    walk(build_parser(), "etg")
    return found


def test_every_subcommand_and_action_explains_itself() -> None:
    """`etg SUB --help` and `etg SUB ACTION --help` say what the command does."""
    for name, parser in _parsers():
        assert parser.prog == name
        assert parser.description and len(parser.description) > 15, name
        assert "usage:" in parser.format_help()


@pytest.mark.parametrize(
    ("argv", "prog", "words"),
    [
        (["--bogus"], "etg", "unrecognized arguments: --bogus"),
        (["shoe", "frobnicate"], "etg shoe", "invalid choice: 'frobnicate'"),
        (["rng", "--bogus"], "etg rng", "unrecognized arguments: --bogus"),
        (["rng", "kat", "--bogus"], "etg rng kat", "unrecognized arguments: --bogus"),
        (["bench", "run", "--mode", "nope", "x"], "etg bench run", "invalid choice: 'nope'"),
        (["config", "check", "--nope=3"], "etg config check", "unrecognized arguments: --nope=3"),
        (["ui", "snapshot", "--size"], "etg ui snapshot", "expected one argument"),
        (["credits", "add", "--seat", "x"], "etg credits add", "takes a whole number"),
    ],
)
def test_nested_usage_errors_are_one_line_naming_the_command(
    argv: list[str], prog: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2  # main returns the exit code of a usage error too
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"{prog}: error: ") and words in err, err
    assert f"(see {prog} --help)" in err and "Traceback" not in err


def test_set_nosuchkey_run_names_the_key() -> None:
    """Done-when of issue 2: `etg --set nosuchkey=1 run` fails with the key named."""
    out = etg("--set", "nosuchkey=1", "run")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "etg: error: --set: nosuchkey: unknown section "
        "(allowed: display, floor, journal, panel, rng, rules, sas, shoe, table)"
    ]


def test_log_json_reaches_the_processes_etg_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--log-json` is exported so that a started process (the simulated shoe of `etg run`)
    logs JSON too, and a process started with it inherited logs JSON without the flag."""
    import json
    import logging
    import os

    from firmware.cli.logsetup import ENV_JSON, setup_logging

    monkeypatch.delenv(ENV_JSON, raising=False)
    try:
        assert main(["--log-json", "config", "check"]) == 0
        assert os.environ.get(ENV_JSON) == "1"
        setup_logging()
        assert ENV_JSON not in os.environ
        monkeypatch.setenv(ENV_JSON, "1")
        assert main(["config", "check"]) == 0
        capsys.readouterr()
        logging.getLogger("etg.test").info("inherited")
        assert json.loads(capsys.readouterr().err.strip().splitlines()[-1])["msg"] == "inherited"
    finally:
        setup_logging()
