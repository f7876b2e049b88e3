"""The table configuration's checks that need the Rules Submission.

The configuration loader calls :func:`check_rules_config` (it is in the loader's explicit
list of checks): the ``[rules]`` overrides (and ``--set rules.KEY=VALUE``) are validated
against the Rules Submission of the configured variant, and ``table.seats`` may not exceed
the variant's maximum. Errors name the file, the key and what is allowed. The engine takes
the values, not the table configuration, so it needs nothing outside itself and the core.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from etgcore.errors import ConfigError
from firmware.engine.rules import load_rules, rules_path


def check_rules_config(variant: str, seats: int, overrides: Mapping[str, Any], source: str) -> None:
    """Raise :class:`ConfigError` if the overrides or the seat count do not fit ``variant``."""
    if not rules_path(variant).is_file():
        # The variant's Rules Submission is not written yet: nothing to check against;
        # a table of that variant cannot start anyway (load_rules refuses it).
        return
    rules = load_rules(variant, dict(overrides), source=source)
    if seats > rules.max_seats:
        raise ConfigError(
            source, "table.seats",
            f"{rules.title} seats at most {rules.max_seats} players, got {seats} (set "
            f"table.seats, or give --seats {rules.max_seats} to etg run)",
        )
