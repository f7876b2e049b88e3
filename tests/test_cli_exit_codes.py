"""Exit codes a script can rely on: bad input is one line on stderr and exit 2 everywhere
(an output path that exists as a file, a path the system refuses); exit 1 means only what
a command documents (a test failed, a check failed); Ctrl-C is one line and exit 130."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware.cli import main


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("etg: error: "), err
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("argv", [
    ["cert", "run", "--draws", "1000", "--out", "{file}"],
    ["cert", "analyze", "{csv}", "--what", "target", "--out", "{file}"],
    ["par", "--variant", "blackjack", "--out", "{file}"],
    ["ui", "readme", "--out", "{file}"],
], ids=["cert-run", "cert-analyze", "par", "ui-readme"])
def test_an_output_directory_that_is_a_file_is_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    file = tmp_path / "FILE"
    file.write_text("x")
    csv = tmp_path / "targets.csv"
    csv.write_text("\n".join(str(12 + i % 10) for i in range(200)) + "\n")
    argv = [a.format(file=file, csv=csv) for a in argv]
    line = _one_line_exit_2(capsys, argv)
    assert "exists and is not a directory" in line


def test_a_path_the_system_refuses_is_exit_2_not_internal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    line = _one_line_exit_2(capsys, ["rng", "draws", "--what", "card", "--draws", "5",
                                     "--out", str(blocker / "under-a-file.csv")])
    assert "under-a-file" in line


def test_keyboard_interrupt_is_one_line_and_130(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import firmware.cli.config as config_cli

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(config_cli, "cmd_check", interrupted, raising=False)
    import argparse

    real = argparse.ArgumentParser.parse_known_args

    def parse(self: argparse.ArgumentParser, *a: object, **k: object) -> object:
        ns, extra = real(self, *a, **k)  # type: ignore[arg-type]
        if getattr(ns, "func", None) is not None:
            ns.func = interrupted
        return ns, extra

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", parse)
    assert main(["config", "check"]) == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["etg: interrupted"]


def test_recall_json_on_an_empty_journal_is_an_empty_list_not_a_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    j = tmp_path / "j.sqlite"
    assert main(["credits", "add", "--journal", str(j), "--seat", "1", "--cents", "100",
                 "--id", "T-1"]) == 0
    capsys.readouterr()
    assert main(["recall", "--journal", str(j), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_the_key_map_names_no_insurance(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["panel", "keys"]) == 0
    out = capsys.readouterr().out
    assert "NO INSURANCE" in out and "RESCUE" in out


def test_strategy_bingo_needs_the_bingo_variant(capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line_exit_2(capsys, ["strategy", "--variant", "blackjack", "--bingo", "17:10"])
    assert "--variant bingo" in line
