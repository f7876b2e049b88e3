"""Fixtures of the floor tests: a PostgreSQL server of Debian's package, started in a
temporary directory on a free port (as the postgres user when we are root: the server
refuses to run as root), stopped after the module."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from floor_rig import free_port, wait_for


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("Debian's postgresql is not installed (make setup installs it)")
    try:
        import psycopg
    except ImportError:
        pytest.skip("psycopg is not installed (the floor extra)")
    # not under pytest's own temporary root: that is private to us, and the server runs as
    # its own user when we are root
    root = Path(tempfile.mkdtemp(prefix="etg-floor-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    port = free_port()
    subprocess.run(_as_server_user([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres",
                                    "--auth=trust", "-E", "UTF8", "--no-sync"]),
                   check=True, capture_output=True)
    subprocess.run(_as_server_user([
        str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w", "start",
        "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"]),
        check=True, capture_output=True)
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"

    def ready() -> bool:
        try:
            psycopg.connect(url).close()
            return True
        except psycopg.OperationalError:
            return False

    try:
        wait_for("PostgreSQL", ready)
        yield url
    finally:
        subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast",
                                        "stop"]), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
