"""The options every lab-scale command takes: run sizes, where to run, the checkpoint."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

_POWER = re.compile(r"^(\d+)\^(\d+)$")


def count(text: str) -> int:
    """A whole number as a lab writes it: ``1000000``, ``1_000_000``, ``1e6`` or ``10^6``."""
    t = text.strip().replace("_", "").replace(",", "")
    m = _POWER.match(t)
    try:
        if m:
            if int(m.group(2)) > 30:
                raise ValueError
            value = int(m.group(1)) ** int(m.group(2))
        elif re.fullmatch(r"\d+", t):
            value = int(t)
        else:
            f = float(t)
            if not f.is_integer():
                raise ValueError
            value = int(f)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (e.g. 1000000, "
                                         "1e6 or 10^6)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must not be negative")
    return value


def add_cluster_options(p: argparse.ArgumentParser, *, jobs_default: int | None = None) -> None:
    """``--jobs``, ``--scheduler`` and ``--checkpoint`` (docs/math.md, docs/cert.md)."""
    p.add_argument("--jobs", type=int, default=jobs_default or os.cpu_count() or 1,
                   metavar="K", help="worker processes of the embedded local Dask cluster "
                   "(default: every core; 1 without --scheduler: this process, no cluster)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                   help="run on an existing Dask cluster (`dask scheduler`, `dask worker`); "
                   "default: Dask's scheduler-address setting, else a local cluster")
    p.add_argument("--checkpoint", type=Path, metavar="FILE", default=None,
                   help="record finished tasks here; rerun with the same file to resume")
