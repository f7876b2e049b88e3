"""`etg sas host` with a port that is not there: one line and exit 2 (a user's mistake)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_a_missing_port_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-pty"
    p = subprocess.run([sys.executable, "-m", "firmware", "sas", "host", str(missing), "poll"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "no such serial device or pty" in lines[0]
    assert "Traceback" not in p.stderr
