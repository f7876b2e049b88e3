"""The SAS tests use the table's process helpers (tests/table) and their own rig."""

from __future__ import annotations

import sys
from pathlib import Path

# appended, never put first: every test directory's helpers are imported by their bare
# names (tests/ui's ``conftest`` among them), and pytest puts each directory first itself
_TABLE = str(Path(__file__).resolve().parents[1] / "table")
if _TABLE not in sys.path:
    sys.path.append(_TABLE)
