"""The table carries only what it needs: a started table imports none of the lab's or
the math workstation's libraries, and the package says so in its dependencies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

from waiting import DEADLINE_S, Lines, stopped_at_exit

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "scipy", "matplotlib", "numba", "tqdm", "dask", "distributed")

# Runs `etg` in this interpreter with an import hook that records (and refuses) any
# import of a heavy library, then, at exit, writes what was imported.
WRAPPER = r"""
import atexit, json, sys
heavy, out = set(sys.argv[1].split(",")), sys.argv[2]
attempts = []

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in heavy:
            attempts.append(name)
            raise ImportError(f"{name}: the table must not import it")
        return None

sys.meta_path.insert(0, Refuse())

def report():
    import deploy.fingerprint, deploy.manifest  # the production start-up checks too
    with open(out, "w") as f:
        json.dump({"modules": sorted(sys.modules), "attempts": attempts}, f)

atexit.register(report)
from firmware.cli import main
sys.exit(main(sys.argv[3:]))
"""


def test_a_started_table_imports_no_lab_or_math_library(tmp_path: Path) -> None:
    """As `etg run` starts on a table (the simulated shoe and panel standing in for the
    devices, no automatic players: those are the bench's and use the math's strategy)."""
    report = tmp_path / "modules.json"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env.pop("DISPLAY", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", WRAPPER, ",".join(HEAVY), str(report),
         "run", "--headless", "--shoe", "sim", "--panel", "sim",
         "--journal", str(tmp_path / "j.sqlite")],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=REPO, env=env)
    assert proc.stderr is not None
    with stopped_at_exit(proc, signal.SIGKILL):
        err = Lines(proc.stderr)
        err.wait_for("the table to be ready", lambda line: "table ready" in line)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(DEADLINE_S) == 0, err.text()[-2000:]
    got = json.loads(report.read_text())
    assert got["attempts"] == []
    loaded = {m.partition(".")[0] for m in got["modules"]}
    assert not loaded & set(HEAVY)
    assert ({"firmware.table.service.run", "drivers.panel.panel", "rng.table_rng"}
            <= set(got["modules"]))


def test_the_package_installs_the_table_alone_and_dev_everything() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    names = {d.split(">")[0].split("=")[0].split("[")[0].strip().lower()
             for d in project["dependencies"]}
    assert names == {"pyserial", "pygame", "cryptography"}
    extras = project["optional-dependencies"]
    dev = " ".join(extras["dev"])
    for extra in extras:
        if extra not in ("dev", "pi"):  # RPi.GPIO installs and runs only on a Pi
            assert extra in dev, f"extra {extra!r} is not part of dev"
