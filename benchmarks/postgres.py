"""A throwaway PostgreSQL server for a benchmark: Debian's package, a temporary cluster on
a free port (as the postgres user when we run as root: the server refuses root), stopped
and removed afterwards. Durability settings are PostgreSQL's defaults (fsync on)."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


def _bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_server(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def temporary_postgres(settings: dict[str, str] | None = None) -> Iterator[str | None]:
    """The URL of a fresh server, or None when PostgreSQL is not installed; ``settings``:
    server settings beyond the defaults (``-c name=value``), e.g. for
    ``pg_stat_statements``."""
    bin_dir = _bin()
    if bin_dir is None:
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix="etg-bench-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    port, data = free_port(), root / "data"
    try:
        subprocess.run(_as_server([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres",
                                   "--auth=trust", "-E", "UTF8"]),
                       check=True, capture_output=True)
        subprocess.run(_as_server([str(bin_dir / "pg_ctl"), "-D", str(data), "-l",
                                   str(root / "log"), "-w", "start", "-o",
                                   f"-p {port} -k {root} -c listen_addresses=127.0.0.1"
                                   + "".join(f" -c {k}={v}" for k, v in
                                             (settings or {}).items())]),
                       check=True, capture_output=True)
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        import psycopg

        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(url).close()
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url
    finally:
        subprocess.run(_as_server([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast",
                                   "stop"]), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def server_pids(url: str) -> list[int]:
    """The PostgreSQL processes serving ``url``'s port (their CPU is the database's)."""
    port = url.rsplit(":", 1)[1].split("/")[0]
    out = subprocess.run(["pgrep", "-f", f"postgres.*-p {port}"], capture_output=True,
                         text=True).stdout.split()
    pids = [int(p) for p in out]
    for p in list(pids):
        with contextlib.suppress(OSError):
            pids += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
    return sorted(set(pids))
