"""The bench service's configuration, built from the table's own (issue 48, finding 4:
the HIL bench wrote its own shoe settings and service configuration, so a table setting
never reached it). :class:`~firmware.bench.hil_target.HilTarget` takes the table's
configuration sections and changes only what a bench run must.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware.bench.scenario import Scenario

#: the sections of a table's configuration a bench run takes over; the rest (its journal,
#: its floor, its display, its RNG source, its SAS link) stay the table's and never reach
#: a bench service, which has its own journal in a scratch directory
TAKEN = ("table", "shoe", "panel", "rules")


def service_sections(table: Mapping[str, Mapping[str, Any]], scenario: Scenario, seats: int,
                     shoe_port: str) -> dict[str, dict[str, Any]]:
    """The bench service's configuration: the table's own sections (:data:`TAKEN`), with
    only what a bench must change: the scenario's game, seats and rules (over the
    table's), the simulated shoe's port, the simulated panel."""
    out = {name: dict(table.get(name, {})) for name in TAKEN}
    out["table"].update(variant=scenario.variant, seats=seats)
    out["shoe"]["port"] = shoe_port
    out["panel"].update(backend="sim", scan_period_ms=1.0)
    out["rules"].update(scenario.rules)
    return out
