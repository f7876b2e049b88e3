"""`etg run` freezes the heap its start built before it serves (firmware.table.service.run).

A full collection of the cyclic garbage collector walks every object with the GIL held,
stopping every thread of the table: tens of milliseconds with the start's objects in view
(the card benchmark's worst card). Frozen, they are out of its sight.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

from firmware.table.service.run import freeze_startup_heap

REPO = Path(__file__).resolve().parents[2]

_RUN = """
import gc, sys
import firmware.table.service.run as service
from firmware.cli import main

loop = service._loop

def serving(*args):
    frozen = gc.get_freeze_count()
    assert frozen > 10_000, f"only {frozen} objects frozen when the table serves"
    print(f"frozen {frozen}", file=sys.stderr)
    return loop(*args)

service._loop = serving
sys.exit(main(sys.argv[1:]))
"""


def test_the_table_serves_with_its_start_frozen(tmp_path: Path) -> None:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    env.pop("DISPLAY", None)
    done = subprocess.run(
        [sys.executable, "-c", _RUN, "run", "--headless", "--auto-play", "--rounds", "1",
         "--shoe", "sim", "--journal", str(tmp_path / "j.sqlite")], cwd=REPO, env=env,
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "frozen " in done.stderr


def test_freezing_keeps_no_garbage() -> None:
    """What is unreachable when the table freezes is collected, not kept for good."""

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    before = gc.get_freeze_count()
    gone = weakref.ref(Cycle())  # unreachable at once: a cycle only the collector frees
    try:
        freeze_startup_heap()
        assert gc.get_freeze_count() > before
        assert gone() is None
    finally:
        gc.unfreeze()
