"""`etg bench run --mode hil --sas-host`: the HIL bench with a slot system's host on the line.

Each scenario's table starts with its SAS link on a pseudo-terminal (``sas.port = "pty"``),
and, from its start to its stop, a host (:class:`~firmware.bench.soak_sas.SoakHost`) polls
every seat at a real host's pace: a general poll and a current-credits poll (1A) per
machine, each machine every 200 ms, every answer timed. It only reads: the scenario's
credits, wagers and outcomes stay the scenario's, so every scenario must still PASS as it
does without a host, and on top a scenario FAILs when the table's answers missed the
protocol's deadline at p99 or no poll was answered at all. The kills and restarts with a
host polling (and sending transfers) are the soak's: ``etg bench soak --sas-host``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

from drivers.sas.ports import SasPortError
from firmware.bench.hil_service import ServiceError
from firmware.bench.hil_target import HilTarget
from firmware.bench.report import Result
from firmware.bench.runner import run_one
from firmware.bench.scenario import Scenario
from firmware.bench.soak_checks import Check
from firmware.bench.soak_sas import DEADLINE_MS, SoakHost
from firmware.bench.target import TableTarget


class SasHilTarget(HilTarget):
    """:class:`HilTarget` whose table has a SAS link a polling host is attached to."""

    extra_sections: ClassVar[dict[str, dict[str, Any]]] = {"sas": {"port": "pty"}}
    #: the protocol's response deadline the answers are held to (p99)
    deadline_ms: ClassVar[float] = DEADLINE_MS

    def __init__(self, pace_s: float = 0.0) -> None:
        super().__init__(pace_s)
        self.sas: SoakHost | None = None
        self.sas_problems: list[str] = []
        self.sas_checks: list[Check] = []  # one per table started (a scenario file)

    def start(self, scenario: Scenario) -> None:
        super().start(scenario)
        assert self.rules is not None and self.svc is not None
        self.sas = SoakHost(self.rules.max_seats, self.svc.log_path, transfers=False)
        try:
            self.sas.attach()
        except SasPortError as exc:  # the file's FAIL line says it, never a traceback
            self.stop()
            raise ServiceError(f"the SAS host could not attach: {exc}") from exc
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Detach the host before the table stops; its timing becomes a problem of the
        scenario when it missed the deadline."""
        if self.sas is not None:
            self.sas.detach()
            check = self.sas.timing_check(self.deadline_ms)
            self.sas_checks.append(check)
            if not check.ok:
                self.sas_problems.append(f"{check.name}: {check.detail}")
            self.sas = None
        super().stop()


def run_one_with_host(path: str, make: Callable[[], SasHilTarget] = SasHilTarget) -> Result:
    """One scenario file on the HIL bench with a host polling; its SAS timing's failure is
    one more problem of the file's result."""
    target = make()

    def factory() -> TableTarget:
        return target

    result = run_one(path, factory)
    return dataclasses.replace(result, problems=result.problems + tuple(target.sas_problems))
