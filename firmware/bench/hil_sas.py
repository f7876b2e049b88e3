"""`etg bench run --mode hil --sas-host`: the HIL bench with a slot system's host on the line.

Each scenario's table starts with its SAS link on a pseudo-terminal (``sas.port = "pty"``),
and, from its start to its stop, a host (:class:`~firmware.bench.soak_sas.SoakHost`) polls
every seat at a real host's pace: a general poll and a current-credits poll (1A) per
machine, each machine every 200 ms, every answer timed, every exception kept.

Before each round (the table stands still: the bench presses nothing) the host reads
every meter of every seat and holds it to the journal's. With ``--kill-every N`` the
table is also killed with SIGKILL before every N-th round, just after the host sent a
transfer to a seat (whose answer it does not wait for), and started again on the same
journal; the host comes back, sends that transfer again with the same transaction id
until it has the final status, takes the same amount back out (so the scenario's
credits stay its own; a table that refuses that, e.g. tilted by the restart, keeps it:
scenarios judge each round's differences) and reads every meter again. Every scenario
must still PASS as it does without a host; on top, a scenario FAILs on any of the host's
checks (:meth:`SoakHost.checks`): answers that missed the protocol's deadline at p99, a
meter different from ``etg meters``, an exception received twice, out of order or not taken, a
transfer applied twice or not at all.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from drivers.sas import codes as C
from drivers.sas.ports import SasPortError
from firmware.bench.hil_journal_waits import shoe_greeted, until_journaled
from firmware.bench.hil_service import ServiceError
from firmware.bench.hil_target import HilTarget
from firmware.bench.report import Result
from firmware.bench.runner import run_one
from firmware.bench.scenario import Scenario
from firmware.bench.soak_checks import Check
from firmware.bench.soak_sas import DEADLINE_MS, SoakHost
from firmware.bench.target import TableTarget

#: the transfer the host sends into a seat before each kill (and takes back after)
KILL_TRANSFER_CENTS = 2500
#: the pause between that request and the kill, in turn: the kill lands before the
#: controller took the request, while it journals it, or after
KILL_DELAYS_S = (0.0, 0.003, 0.008, 0.02)


class SasHilTarget(HilTarget):
    """:class:`HilTarget` whose table has a SAS link a polling host is attached to;
    ``kill_every``: kill -9 and restart the table before every N-th round (0: never)."""

    extra_sections: ClassVar[dict[str, dict[str, Any]]] = {"sas": {"port": "pty"}}
    #: the protocol's response deadline the answers are held to (p99)
    deadline_ms: ClassVar[float] = DEADLINE_MS

    def __init__(self, pace_s: float = 0.0, kill_every: int = 0,
                 table: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        super().__init__(pace_s, table)
        self.kill_every = kill_every
        self.kills = 0
        self.outs_refused = 0  # transfers back out the table refused (87), its right
        self.sas: SoakHost | None = None
        self.sas_problems: list[str] = []
        self.sas_latencies: list[float] = []  # every general poll's answer, ms
        self.sas_checks: list[Check] = []  # the host's checks of the table (a scenario file)

    def start(self, scenario: Scenario) -> None:
        super().start(scenario)
        assert self.rules is not None and self.svc is not None
        self.sas = SoakHost(self.rules.max_seats, self.svc.log_path, transfers=False)
        self.kills = 0
        self._attach()

    def _attach(self) -> None:
        assert self.sas is not None
        try:
            self.sas.attach()
        except SasPortError as exc:  # the file's FAIL line says it, never a traceback
            self.stop()
            raise ServiceError(f"the SAS host could not attach: {exc}") from exc
        except BaseException:
            self.stop()
            raise

    def between_rounds(self, index: int) -> None:
        """Before round ``index`` (0: the first): the meters at a still instant, and a
        kill -9 with a transfer in flight when one is due."""
        svc, sas = self._svc(), self.sas
        if sas is None:
            return
        sas.read_meters(svc.journal_path)
        if not self.kill_every or index % self.kill_every:
            return
        self.kills += 1
        seat = 1 + (self.kills - 1) % sas.seats
        txid = f"HIL{svc.starts}K{self.kills}"
        sas.send_only(seat, KILL_TRANSFER_CENTS, txid)
        sas.detach()
        time.sleep(KILL_DELAYS_S[self.kills % len(KILL_DELAYS_S)])  # before, in, after
        since = svc.journal.last_seq()
        svc.kill9()
        svc.start()
        until_journaled(svc.journal, shoe_greeted,
                        "after the kill -9 the table never had the shoe's status after "
                        "its hello", since_seq=since)
        self._attach()
        sas.resolve_open()
        if txid in sas.open_tx or txid not in sas.told_ok:
            raise ServiceError(f"the host's transfer {txid} sent again after the restart "
                               "did not end in success")
        with sas.quiet() as host:
            status = sas.transfer(host, seat, KILL_TRANSFER_CENTS, f"{txid}-OUT",
                                  to_machine=False)
        if status == C.AFT_UNABLE:  # the table's right (e.g. tilted after the restart):
            self.outs_refused += 1  # the seat keeps the amount; scenarios judge differences
        elif status != C.AFT_FULL_SUCCESS:
            raise ServiceError(f"the host's transfer {txid}-OUT ended with {status}")
        sas.read_meters(svc.journal_path)
        self._status()  # the new process's counts of handled happenings, for the next waits

    def stop(self) -> None:
        """The meters once more, the host detached, the table stopped; then the host's
        checks on the journal, each failed one a problem of the scenario."""
        sas, svc = self.sas, self.svc
        self.sas = None
        if sas is not None and svc is not None:
            try:
                sas.read_meters(svc.journal_path)
            except (OSError, SasPortError) as exc:
                sas.meter_mismatches.append(f"the last reading failed: {exc}")
            sas.detach()
            self.sas_latencies += sas.latencies
            if svc.proc is not None:
                svc.stop()
            checks = sas.checks(svc.journal_path, self.deadline_ms)
            self.sas_checks.extend(checks)
            self.sas_problems += [f"{c.name}: {c.detail}" for c in checks if not c.ok]
        elif sas is not None:
            sas.detach()
        super().stop()


def run_one_with_host(path: str, make: Callable[[], SasHilTarget] = SasHilTarget) -> Result:
    """One scenario file on the HIL bench with a host polling; each of the host's failed
    checks is one more problem of the file's result."""
    target = make()

    def factory() -> TableTarget:
        return target

    result = run_one(path, factory)
    return dataclasses.replace(result, problems=result.problems + tuple(target.sas_problems))
