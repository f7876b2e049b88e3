"""`etg floor serve`: the floor service — subscriber, database and pit view in one process.

Composition only: an :class:`~firmware.floor.ingest.Ingest` writes what tables report into
the database (its own connection); the pit view (:mod:`firmware.floor.web`, served by
uvicorn) reads through another and is told of changes by the :class:`~firmware.floor.hub.Hub`.
With ``--start-broker`` the service also runs and supervises Mosquitto on the generated
configuration (a laptop or a test; a property runs its broker as a system service).

Everything that can be refused is refused before anything starts, in one line each: the
pit view's port (taken here, then handed to uvicorn, so nothing can take it meanwhile),
the database, the broker's port.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from etgcore.errors import UserError
from firmware.floor.broker import local_plugin_file
from firmware.floor.broker_process import BrokerSupervisor, why_not_bound
from firmware.floor.certs import FLOOR_SERVICE, identity
from firmware.floor.command_auth import new_command
from firmware.floor.db import Database
from firmware.floor.escape import one_line_logs
from firmware.floor.health import Health
from firmware.floor.hub import Hub
from firmware.floor.ingest import Ingest
from firmware.floor.ledger import FloorLedger
from firmware.floor.software_check import AutomaticChecks, SoftwareChecks
from firmware.floor.supervise import EXIT_FAULT, GRACE_S, LOOP_STUCK_S, Supervisor

log = logging.getLogger("etg.floor")


@dataclass(frozen=True)
class ServeOptions:
    floor_dir: Path
    broker_host: str
    broker_port: int
    db_url: str
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    start_broker: bool = False
    #: minutes after midnight the gaming day starts
    day_start_minutes: int = 360
    #: bad messages within a minute that quarantine a table
    quarantine_after: int = 20
    #: ``approved(seed)``: the approved release's seeded signature (None: not compared)
    approved: Callable[[bytes], str] | None = None
    approved_name: str = ""
    #: seconds between automatic software checks of every online table (0: never)
    check_software_every_s: float = 0.0
    #: seconds a table has to answer a software check before it is an alarm
    check_deadline_s: float = 120.0


def http_socket(host: str, port: int) -> socket.socket:
    """The pit view's listening socket, bound now: a port in use is one line, before the
    broker or the database is touched."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UserError(f"--http {host}:{port}: the pit view cannot listen there: "
                        f"{why_not_bound(exc)} (another floor service running? stop it, or "
                        "give --http HOST:PORT with a free port)") from None
    sock.listen(128)
    sock.set_inheritable(False)
    return sock


def serve(opts: ServeOptions) -> int:
    """Run until SIGTERM or Ctrl-C (0), or a fault of one of its threads
    (:data:`~firmware.floor.supervise.EXIT_FAULT`, for systemd to restart it); the broker
    it started (if any) stops with it."""

    fault = threading.Event()

    def stop(signum: int, frame: Any) -> None:
        # uvicorn takes SIGTERM while it runs and raises it again once it has shut down;
        # this handler then unwinds the rest (the broker below) instead of dying, with the
        # fault's status when a fault sent that SIGTERM
        raise SystemExit(EXIT_FAULT if fault.is_set() else 0)

    signal.signal(signal.SIGTERM, stop)
    one_line_logs()  # a table's text in a log line never makes another line
    sock = http_socket(opts.http_host, opts.http_port)
    broker: BrokerSupervisor | None = None
    try:
        ingest_db, web_db = Database(opts.db_url), Database(opts.db_url)
        if opts.start_broker:
            broker = BrokerSupervisor(opts.floor_dir, opts.broker_host, opts.broker_port)
            broker.start()
        faulted = _serve(opts, sock, ingest_db, web_db, fault, broker)
    finally:
        if broker is not None:
            broker.stop()
        sock.close()
    return EXIT_FAULT if faulted else 0


def _on_fault(health: Health, faulted: threading.Event) -> Any:
    def fault(why: str) -> None:
        """The banner first (pages see why), then the process stops: uvicorn's own
        shutdown on SIGTERM, and if even that hangs (a stuck thread holding a lock), a
        hard exit after a while."""
        health.faulted(why)
        faulted.set()

        def stop() -> None:
            signal.raise_signal(signal.SIGTERM)
            hard = threading.Timer(20.0, os._exit, (EXIT_FAULT,))
            hard.daemon = True
            hard.start()

        later = threading.Timer(GRACE_S, stop)
        later.daemon = True
        later.start()
    return fault


async def _loop_beats(supervisor: Supervisor) -> None:
    while True:
        supervisor.beat("event loop")
        await asyncio.sleep(1.0)


def _ticker(ingest: Ingest, health: Health,
            broker: BrokerSupervisor | None) -> Callable[[], None]:
    """The watchdog's once a second: the ingest's heartbeat and deadlines, the health's
    review, and the broker's ACL refusals of each table handed to the ledger."""
    if broker is not None:
        broker.watch.report = ingest.broker_refused

    def tick() -> None:
        ingest.tick()
        health.review()
        if broker is not None:
            broker.watch.flush(time.monotonic())
    return tick


def _serve(opts: ServeOptions, sock: socket.socket, ingest_db: Database,
           web_db: Database, fault: threading.Event,
           broker: BrokerSupervisor | None = None) -> bool:
    """The service until it stops; True when a fault stopped it. ``broker``: the floor's
    own, whose ACL refusals of a table become that table's ``acl`` alarm."""
    import uvicorn

    from firmware.floor.web import log_command, make_app

    health = Health()
    hub = Hub(web_db, health)
    supervisor = Supervisor(_on_fault(health, fault))
    ledger = FloorLedger(ingest_db, day_start_minutes=opts.day_start_minutes,
                         quarantine_after=opts.quarantine_after,
                         approved_name=opts.approved_name,
                         check_deadline_s=opts.check_deadline_s)
    ingest = Ingest(ledger, opts.floor_dir, opts.broker_host, opts.broker_port,
                    on_applied=hub.applied, health=health, supervisor=supervisor)
    if broker is not None:  # the broker's plugin file is the one this floor wrote
        ingest.cutoff.state_file = local_plugin_file(opts.floor_dir, opts.broker_host)
    health.beats = supervisor.ages
    health.expecting = lambda: any(st.online for st in list(ledger.tables.values()))

    supervisor.tick = _ticker(ingest, health, broker)
    key_pem = identity(opts.floor_dir, FLOOR_SERVICE).key.read_bytes()

    def send_command(tid: str, action: str, staff: str, **extra: Any) -> str:
        cmd = new_command(tid, action, staff, key_pem, **extra)
        log_command(web_db, cmd["id"], tid, action, staff, extra.get("reason"))
        ingest.publish_command(tid, cmd)
        log.info("floor command %s %s by %s (%s)%s", action, tid, staff, cmd["id"],
                 f": {extra['reason']}" if extra.get("reason") else "")
        return str(cmd["id"])

    checks = SoftwareChecks(web_db, send_command, opts.approved, opts.approved_name)
    auto = None
    if opts.check_software_every_s > 0:
        auto = AutomaticChecks(checks, lambda: sorted(
            t for t, st in ledger.tables.items() if st.online and not st.quarantined),
            opts.check_software_every_s)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        hub.attach(asyncio.get_running_loop())
        ingest.start()
        beats = asyncio.get_running_loop().create_task(_loop_beats(supervisor))
        supervisor.watch("event loop", LOOP_STUCK_S)
        supervisor.start()
        if auto is not None:
            auto.start()
        try:
            yield
        finally:
            supervisor.stop()
            beats.cancel()
            if auto is not None:
                auto.stop()
            ingest.stop()

    app = make_app(web_db, hub, send_command, lifespan=lifespan, checks=checks,
                   pit_action=ingest.pit_action, day_start_minutes=opts.day_start_minutes)
    # proxy_headers off: the login throttle's address is the socket's peer, never an
    # X-Forwarded-For any local process may write (behind a reverse proxy every login
    # then shares the proxy's address: docs/floor.md)
    config = uvicorn.Config(app, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=1, proxy_headers=False)
    log.info("pit view on http://%s:%d (database %s)", opts.http_host, opts.http_port,
             ingest_db.safe_url)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        ingest_db.close()
        web_db.close()
    return supervisor.fault is not None
