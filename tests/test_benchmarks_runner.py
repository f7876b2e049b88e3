"""`make bench`'s runner (benchmarks/runner.py): each benchmark of a full run in a fresh
process, so none times what an earlier one left in the heap; a wrong name is one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import runner as benchmarks

REPO = Path(__file__).resolve().parents[1]


def test_an_unknown_benchmark_is_one_line_and_exit_2() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks", "ui", "nosuch"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "unknown benchmark(s): nosuch (python -m benchmarks --help lists them)"]
    assert done.stdout == ""  # nothing run


@pytest.mark.parametrize("argv, code", [(["floor", "--help"], 0), (["floor", "--fast"], 2)])
def test_help_is_an_answer_and_an_option_is_one_line(argv: list[str], code: int) -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks", *argv], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == code
    if code == 0:
        assert done.stdout.startswith("usage: python -m benchmarks") and "floor-scale" in \
            done.stdout and not done.stderr
    else:
        assert done.stderr.splitlines() == ["unknown option --fast (python -m benchmarks "
                                            "--help)"] and not done.stdout


def test_several_benchmarks_run_each_in_a_process_of_its_own(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[list[str]] = []
    real = subprocess.run

    def child(argv: list[str], **kw: Any) -> Any:
        if "benchmarks" not in argv:  # e.g. platform's `uname -p`
            return real(argv, **kw)
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 1 if argv[-1] == "release" else 0)

    monkeypatch.setattr(subprocess, "run", child)
    assert benchmarks.run(["release", "ui"]) == 1  # a failed section fails the run
    assert calls == [[sys.executable, "-m", "benchmarks", ":section", name]
                     for name in ("ui", "release")]  # in the registry's order
    out = capsys.readouterr().out
    assert "## ui" in out and "## release" in out



def test_the_files_benchmarks_read_from_the_checkout_are_there() -> None:
    """benchmarks/ sits at the top of the checkout: what it reads from there (the hil
    scenarios, the release it builds) must be found, never silently skipped."""
    from benchmarks import CHECKOUT, hil

    assert Path(__file__).resolve().parents[1] == CHECKOUT
    assert (CHECKOUT / "pyproject.toml").is_file()
    assert len(hil.scenario_files()) == len(hil.SCENARIOS)
