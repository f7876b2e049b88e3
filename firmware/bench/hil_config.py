"""The bench service's configuration, built from the table's own (issue 48, finding 4:
the HIL bench wrote its own shoe settings and service configuration, so a table setting
never reached it).

``etg [--config FILE] [--set k=v ...] bench run --mode hil`` loads the table's
configuration like every command (the file, its overrides, every check), and
:func:`table_sections` turns the sections a bench takes over back into the keys a
configuration file holds; :class:`~firmware.bench.hil_target.HilTarget` receives them and
:func:`service_sections` changes only what a bench run must. The scenario's rules go
over the table's; of the table's, only the keys the scenario's game has are kept (a
Free Bet table's ``push22`` means nothing to a Blackjack scenario, and the service
would refuse it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware.bench.scenario import Scenario
    from firmware.table.settings import TableSetup

#: the sections of a table's configuration a bench run takes over; the rest (its journal,
#: its floor, its display, its RNG source, its SAS link) stay the table's and never reach
#: a bench service, which has its own journal in a scratch directory
TAKEN = ("table", "shoe", "panel", "rules")


def _plain(value: Any) -> Any:
    """A settings value as a configuration file spells it (None: the key left out)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not f.metadata.get("internal") and getattr(value, f.name) is not None}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def table_sections(cfg: TableSetup) -> dict[str, dict[str, Any]]:
    """The :data:`TAKEN` sections of a loaded table configuration, every key in force
    (the file's, its ``--set`` overrides, the defaults), as a configuration file holds
    them: what ``--mode hil`` hands the bench target."""
    return {name: dict(_plain(getattr(cfg, name))) for name in TAKEN}


def bench_rules(table: Mapping[str, Mapping[str, Any]], scenario: Scenario) -> dict[str, Any]:
    """The rules a bench service plays ``scenario`` under: the table's overrides the
    scenario's game has, the scenario's over them."""
    from firmware.engine.rules import read_rules_file

    game = read_rules_file(scenario.variant).specs
    out = {k: v for k, v in table.get("rules", {}).items() if k in game}
    out.update(scenario.rules)
    return out


def service_sections(table: Mapping[str, Mapping[str, Any]], scenario: Scenario, seats: int,
                     shoe_port: str) -> dict[str, dict[str, Any]]:
    """The bench service's configuration: the table's own sections (:data:`TAKEN`), with
    only what a bench must change: the scenario's game, seats and rules (over the
    table's, :func:`bench_rules`), the simulated shoe's port, the simulated panel."""
    out = {name: dict(table.get(name, {})) for name in TAKEN}
    out["table"].update(variant=scenario.variant, seats=seats)
    out["shoe"]["port"] = shoe_port
    out["panel"].update(backend="sim", scan_period_ms=1.0)
    out["rules"] = bench_rules(table, scenario)
    return out
