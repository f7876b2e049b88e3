"""`etg floor serve`: the floor service — subscriber, database and pit view in one process.

Composition only: an :class:`~firmware.floor.ingest.Ingest` writes what tables report into
the database (its own connection); the pit view (:mod:`firmware.floor.web`, served by
uvicorn) reads through another and is told of changes by the :class:`~firmware.floor.hub.Hub`.
With ``--start-broker`` the service also runs Mosquitto on the generated configuration
(a laptop or a test; a property runs its broker as a system service).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware.floor.certs import FLOOR_SERVICE, identity
from firmware.floor.command_auth import new_command
from firmware.floor.db import Database
from firmware.floor.hub import Hub
from firmware.floor.ingest import Ingest
from firmware.floor.ledger import FloorLedger

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


def serve(opts: ServeOptions) -> int:
    """Run until SIGTERM or Ctrl-C; the broker it started (if any) stops with it."""

    def stop(signum: int, frame: Any) -> None:
        # uvicorn takes SIGTERM while it runs and raises it again once it has shut down;
        # this handler then unwinds the rest (the broker below) instead of dying
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    broker: subprocess.Popen[bytes] | None = None
    if opts.start_broker:
        from firmware.floor.broker import start_broker

        broker = start_broker(opts.floor_dir, opts.broker_port, opts.broker_host)
    try:
        _serve(opts)
    finally:
        if broker is not None:
            broker.send_signal(signal.SIGTERM)
            broker.wait(10)
    return 0


def _serve(opts: ServeOptions) -> None:
    import uvicorn

    from firmware.floor.web import log_command, make_app

    ingest_db = Database(opts.db_url)
    web_db = Database(opts.db_url)
    hub = Hub(web_db)
    ingest = Ingest(FloorLedger(ingest_db), opts.floor_dir, opts.broker_host, opts.broker_port,
                    on_applied=hub.applied)
    key_pem = identity(opts.floor_dir, FLOOR_SERVICE).key.read_bytes()

    def send_command(tid: str, action: str, staff: str) -> str:
        cmd = new_command(tid, action, staff, key_pem)
        log_command(web_db, cmd["id"], tid, action, staff)
        ingest.publish_command(tid, cmd)
        log.info("floor command %s %s by %s (%s)", action, tid, staff, cmd["id"])
        return str(cmd["id"])

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        hub.attach(asyncio.get_running_loop())
        ingest.start()
        try:
            yield
        finally:
            ingest.stop()

    app = make_app(web_db, hub, send_command, lifespan=lifespan)
    config = uvicorn.Config(app, host=opts.http_host, port=opts.http_port, log_level="warning",
                            lifespan="on", timeout_graceful_shutdown=1)
    log.info("pit view on http://%s:%d (database %s)", opts.http_host, opts.http_port,
             ingest_db.safe_url)
    try:
        uvicorn.Server(config).run()
    finally:
        ingest_db.close()
        web_db.close()
