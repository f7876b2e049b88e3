"""Table configuration checks that need the Rules Submission.

Registered with :func:`firmware.config.register_validator` when this module is imported
(``firmware.engine`` imports it): the ``[rules]`` overrides (and ``--set rules.KEY=VALUE``)
are validated against the Rules Submission of the configured variant, and ``table.seats``
may not exceed the variant's maximum. Errors name the file, the key and what is allowed.
"""

from __future__ import annotations

from firmware.config import TableConfig, register_validator
from firmware.engine.rules import load_rules, rules_path
from firmware.errors import ConfigError


def check_rules_config(cfg: TableConfig) -> None:
    variant = cfg.table.variant
    if not rules_path(variant).is_file():
        # The variant's Rules Submission is not written yet: nothing to check against;
        # a table of that variant cannot start anyway (load_rules refuses it).
        return
    rules = load_rules(variant, dict(cfg.rules), source=cfg.source)
    if cfg.table.seats > rules.max_seats:
        raise ConfigError(
            cfg.source, "table.seats",
            f"{rules.title} seats at most {rules.max_seats} players, got {cfg.table.seats}",
        )


register_validator(check_rules_config)
