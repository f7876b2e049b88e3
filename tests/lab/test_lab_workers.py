"""The embedded local cluster's workers allocate as a plain process does.

Dask's nanny would start each worker with ``MALLOC_TRIM_THRESHOLD_=65536``, which turns
off glibc's sliding mmap threshold: every array over 128 KiB a task makes becomes a fresh
mmap the kernel faults in and zeroes, and a cert task then costs about 1.7x the CPU it
costs in one process. ``lab.cluster.open_client`` starts its workers without it.
"""

from __future__ import annotations

import os

import pytest

from lab.cluster import open_client

pytest.importorskip("distributed")


def test_embedded_workers_keep_the_default_allocator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    with open_client(None, 1) as client:
        client.wait_for_workers(1, timeout=60)
        seen = client.run(os.environ.get, "MALLOC_TRIM_THRESHOLD_")
        threads = client.run(os.environ.get, "OMP_NUM_THREADS")
    assert list(seen.values()) == [None]
    assert list(threads.values()) == ["1"]  # the rest of Dask's worker environment stays
