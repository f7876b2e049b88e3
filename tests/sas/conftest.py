"""The SAS tests use the table's process helpers (tests/table) and their own rig."""

from __future__ import annotations

import sys
from pathlib import Path

for _d in (Path(__file__).parent, Path(__file__).resolve().parents[1] / "table"):
    if str(_d) not in sys.path:
        sys.path.insert(0, str(_d))
