"""The README is the manual: every shell block that needs no hardware runs as written.

Blocks that need hardware, a window, a server that runs until stopped, or minutes of
computation are marked just above them with ``<!-- readme-test: skip (why) -->``; this test
skips exactly those, says why, and runs every other ``sh`` block with bash (``set -e``:
each command must succeed) in a scratch directory that sees the repository's scenario
and rules files, with the environment's ``etg`` on the PATH. Blocks run in README order,
as a reader would type them (the attendant commands read the journal the table wrote).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SKIP = re.compile(r"<!--\s*readme-test:\s*skip\s*\((?P<why>[^)]*)\)\s*-->")
#: what the examples read from the working tree
SHARED = ("tests", "ui", "firmware", "table.toml")


def blocks() -> list[tuple[int, str, str | None]]:
    """(line, script, why skipped or None) of every ``sh`` block of the README."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    out: list[tuple[int, str, str | None]] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            start = i
            body = []
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            prev = next((x for x in reversed(lines[:start]) if x.strip()), "")
            m = SKIP.search(prev)
            out.append((start + 1, "\n".join(body), m.group("why") if m else None))
        i += 1
    return out


def test_the_readme_marks_what_it_cannot_run_and_says_why() -> None:
    found = blocks()
    assert len(found) >= 20
    skipped = [b for b in found if b[2] is not None]
    assert skipped and all(why.strip() for _l, _s, why in skipped if why is not None)
    assert len(skipped) < len(found)  # most of the manual is checked


def cases() -> list[tuple[str, ...]]:
    """The runnable blocks, each its own case (they run in parallel), except that the
    blocks reading the journal an earlier block wrote run after it, in one case."""
    runnable = [(line, script) for line, script, why in blocks() if why is None]
    journal = [b for b in runnable if "var/j.sqlite" in b[1]]
    rest = [b for b in runnable if b not in journal]
    out = [tuple(f"{line}\n{script}" for line, script in journal)] if journal else []
    return out + [(f"{line}\n{script}",) for line, script in rest]


@pytest.fixture(scope="module")
def env() -> dict[str, str]:
    e = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
             PYGAME_HIDE_SUPPORT_PROMPT="1",
             PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    e.pop("DISPLAY", None)
    e.pop("ETG_CONFIG", None)
    return e


def test_most_of_the_manual_runs() -> None:
    assert sum(len(c) for c in cases()) >= 10


@pytest.mark.parametrize("case", cases(), ids=lambda c: "line-" + "+".join(
    x.split("\n", 1)[0] for x in c))
def test_every_runnable_readme_block_succeeds(tmp_path: Path, env: dict[str, str],
                                              case: tuple[str, ...]) -> None:
    for name in SHARED:
        (tmp_path / name).symlink_to(REPO / name)
    for block in case:
        line, script = block.split("\n", 1)
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (
            f"README.md line {line}: exit {done.returncode}\n{script}\n"
            f"--- stderr ---\n{done.stderr[-2000:]}")
    # the examples wrote only where .gitignore covers them
    stray = [p.name for p in tmp_path.iterdir() if p.name not in (*SHARED, "out", "var")]
    assert not stray, stray
