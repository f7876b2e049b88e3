"""What the first `make run` on a fresh clone prints and installs (issue 38, items 5, 6).

The install of the project itself must print nothing of setuptools' (its deprecation
notices were ~40 lines before any output of ours), and `make run` installs only what the
demo needs: the table and the `bench` extra into .venv, never the system packages of the
floor's tests (Mosquitto, PostgreSQL, Chromium), which `make test` installs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_the_license_is_an_spdx_string_and_the_build_backend_knows_it() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["license"] == "Apache-2.0"
    # the string form needs setuptools 77 (PEP 639); the table form is what warned
    assert "setuptools>=77" in meta["build-system"]["requires"]
    # the repository root is the package root: the editable install is one .pth line,
    # which setuptools installs without its "meta path finder" notice
    assert meta["tool"]["setuptools"]["package-dir"] == {"": "."}


def test_the_editable_install_prints_no_setuptools_warning(tmp_path: Path) -> None:
    """The install `make` does (`pip install -q -e .`), into a scratch environment (never
    the one running this test: pip would replace its install), prints not one line:
    setuptools' warnings reach the terminal through pip as BuildBackendWarning."""
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install",
         "-q", "--no-deps", "--disable-pip-version-check", "-e", str(REPO)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    ours = [line for line in proc.stderr.splitlines()
            # the machine's own pip configuration may name an index that is not there
            if not line.startswith("WARNING: Location ")]
    if proc.returncode != 0 and "No matching distribution" in proc.stderr:
        pytest.skip("no package index to build with (setuptools>=77 not found)")
    assert proc.returncode == 0, proc.stderr
    assert not [line for line in ours if "Warning" in line or "deprecated" in line], ours
    assert proc.stdout.strip() == ""


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_run_installs_only_what_the_demo_needs(tmp_path: Path) -> None:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(REPO / name, tmp_path / name)

    # (under `make test` this is a sub-make: no parent's flags, no "Entering directory")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}

    def dry(target: str) -> str:
        return subprocess.run(["make", "--no-print-directory", "-n", target], cwd=tmp_path,
                              capture_output=True, text=True, check=True, env=env).stdout

    run = dry("run")
    assert "system-packages" not in run and "apt-get" not in run
    assert "pip install -q -e '.[bench]'" in run and "[dev]" not in run
    assert run.strip().endswith("run --demo")
    test = dry("test")
    assert "deploy/system-packages.sh" in test and "pip install -q -e '.[dev]'" in test
