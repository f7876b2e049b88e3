"""Production mode refuses bench powers at `etg run` (guide principle 7; issue 9 point 3)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_production_refuses_auto_play(tmp_path: Path) -> None:
    """Automatic players press a simulated panel: a bench power; one clear line, exit 2."""
    out = subprocess.run(
        [sys.executable, "-m", "firmware", "--set", "table.mode=production",
         "--set", "panel.backend=gpio", "run", "--headless", "--auto-play",
         "--shoe", "/dev/etg-no-such-shoe", "--journal", str(tmp_path / "j.sqlite")],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 2
    assert "bench power" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "j.sqlite").exists()  # refused before the journal is touched
