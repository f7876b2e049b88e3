"""A table controller on its own thread with the SAS link on a real pseudo-terminal, and
a host attached to it: the rig of the seat-level tests."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.sas.host import Host, HostPort
from drivers.sas.ports import PtyPort
from drivers.sas.settings import SasSettings
from firmware.engine import load_rules
from firmware.journal import EventCode, Journal
from firmware.journal.meters import summarize
from firmware.table.controller import Controller
from firmware.table.happenings import RequestHappening, StopHappening
from firmware.table.recovery import open_table
from firmware.table.sas.service import SasService, start_sas
from firmware.table.sas.signature import Signer

SEATS = 2


@dataclass
class Rig:
    ctl: Controller
    svc: SasService
    host: Host
    port: PtyPort

    def request(self, name: str, **args: Any) -> tuple[bool, str]:
        import queue

        reply: queue.Queue[tuple[bool, str]] = queue.Queue()
        self.ctl.put(RequestHappening(name, args, reply))
        return reply.get(timeout=10)

    def meters(self) -> dict[str, Any]:
        return summarize(self.ctl.journal.meters())

    def settle(self) -> None:
        """Wait until the controller handled everything put so far (a status request
        goes behind them in the inbox; a link process first passes on what it sent)."""
        for link in self.svc.links:
            sync = getattr(link, "sync", None)
            if sync is not None:
                sync()
        self.request("status")


def wait_until(what: str, cond: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


@contextlib.contextmanager
def sas_table(tmp_path: Path, settings: SasSettings | None = None, *,
              power_up: bool = True, signer: Signer | None = None,
              own_ports: bool = False) -> Iterator[Rig]:
    journal = Journal(tmp_path / "j.sqlite")
    if power_up:
        journal.append_one("event", {"mode": "bench"}, code=int(EventCode.POWER_UP))
    rec = open_table(journal, load_rules("blackjack", {}), SEATS, True)
    ctl = Controller(rec.game, journal)
    from firmware.table.floor_gate import FloorGate

    ctl.floor_gate = FloorGate.from_journal(journal)
    port = PtyPort()
    svc = start_sas(settings or SasSettings(addresses=(1, 2), table_address=9), ctl,
                    port=None if own_ports else port, signer=signer)
    if own_ports:
        port.close()
        port = svc.links[0].port  # type: ignore[assignment]
    worker = threading.Thread(target=ctl.run, name="controller", daemon=True)
    worker.start()
    host = Host(HostPort.open(port.path), timeout=2.0)
    try:
        yield Rig(ctl, svc, host, port)
    finally:
        for link in svc.links:  # a link process's last requests into the inbox first
            getattr(link, "sync", lambda: None)()
        ctl.put(StopHappening("test over"))
        worker.join(10)
        svc.stop()
        host.port.close()
        journal.close()


def startup(rig: Rig, address: int) -> None:
    """A host's startup (02) to ``address``, carried out: a startup sooner than
    ENABLE_HOLDOFF_S after the machine's last shutdown or startup waits for it."""
    from firmware.table.sas.requests import ENABLE_HOLDOFF_S

    assert rig.host.ack_only(address, 0x02)
    rig.settle()  # the request is at the table's requests (a link process passed it on)
    wait_until("the held startup", lambda: address not in rig.svc.requests._held,
               timeout=ENABLE_HOLDOFF_S + 5)
    rig.settle()
