"""The options every lab-scale command takes: run sizes, where to run, the checkpoint."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def add_cluster_options(p: argparse.ArgumentParser, *, jobs_default: int | None = None) -> None:
    """``--jobs``, ``--scheduler`` and ``--checkpoint`` (docs/math.md, docs/cert.md)."""
    p.add_argument("--jobs", type=int, default=jobs_default or os.cpu_count() or 1,
                   metavar="K", help="worker processes of the embedded local Dask cluster "
                   "(default: every core; 1 without --scheduler: this process, no cluster)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                   help="run on an existing Dask cluster (`dask scheduler`, `dask worker`); "
                   "default: Dask's scheduler-address setting, else a local cluster; a "
                   "cluster left without workers ends the run, exit code 3")
    p.add_argument("--checkpoint", type=Path, metavar="FILE", default=None,
                   help="record finished tasks here; rerun with the same file to resume")
