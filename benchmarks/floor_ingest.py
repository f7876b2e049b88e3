"""`python -m benchmarks floor-ingest`: the floor service's whole ingest path on SQLite,
CPU per MQTT message, of this tree beside other trees of the project (``ETG_BASE_TREE``,
directories separated by ``:``, e.g. made by ``git archive 7c96827 | tar -x -C
/tmp/7c96827``), in the same run, taking turns.

Why: the 1,000-table SQLite p99 was 322 ms at load 2.7-4.6 after the broker's cut-off
(issue 43), 79 ms on a quiet machine before it. Wall-clock figures at 1,000 tables depend
on what else the 2 cores run; CPU-seconds of the same work, measured in alternating
child processes of the two trees, do not much — their ratio says whether the floor's code
got slower, whatever the load.

What is measured, each message as paho's network thread hands it over: the edge
(``Ingest._message``: topic, rate budget, quarantine gate, schema), the inbox, and the
store thread's passes (``Ingest._pass``: the ledger's batch in one SQLite transaction,
the acknowledgements, the pit's notice) — the light tables' traffic of ``floor-store``
(1,000 tables' starts, then ``ROUNDS`` rounds each), no broker and no TLS (the broker's
cost is measured by ``floor-scale`` beside the floor's). The child processes run the
same script text, which uses only what both trees have (``Ingest``, ``FloorLedger``,
``Database``, ``make_floor_certs``).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from benchmarks.floor_store import traffic

RUNS = int(os.environ.get("ETG_FLOOR_INGEST_RUNS", "3"))  # per tree, taking turns
BATCH = 150  # messages a store pass, as in floor-store

#: the child: one tree's ingest over the pickled traffic; prints CPU s a message
WORKER = r"""
import pickle, sys, time
from pathlib import Path
from firmware.floor.certs import make_floor_certs
from firmware.floor.db import Database
from firmware.floor.ingest import Ingest
from firmware.floor.ledger import FloorLedger

messages = pickle.loads(Path(sys.argv[1]).read_bytes())
root = Path(sys.argv[2])
make_floor_certs(root, [])
ing = Ingest(FloorLedger(Database(str(root / "floor.sqlite"))), root, "127.0.0.1", 1)
ing.client.publish = lambda *a, **k: None  # the acknowledgements: no broker here
ing.tick = lambda: None


class Msg:
    __slots__ = ("topic", "payload", "retain", "qos", "mid")

    def __init__(self, topic, payload):
        self.topic, self.payload, self.retain, self.qos, self.mid = topic, payload, False, 1, 0


def feed(ms):
    for i, (topic, payload) in enumerate(ms, 1):
        ing._message(None, None, Msg(topic, payload))
        if i % int(sys.argv[3]) == 0:
            ing._pass()
    while ing.inbox:
        ing._pass()


starts, rest = messages[:1000], messages[1000:]
feed(starts)
c0 = time.process_time()
feed(rest)
cpu = time.process_time() - c0
print(cpu / len(rest), ing.ingested, ing.dropped)
"""


def _run(tree: Path, data: Path, tmp: Path, k: int) -> tuple[float, int, int]:
    work = tmp / f"run-{k}"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", WORKER, str(data), str(work), str(BATCH)],
                         cwd=tree, env=env, capture_output=True, text=True, check=True)
    cpu, ingested, dropped = out.stdout.split()[-3:]
    return float(cpu), int(ingested), int(dropped)


def floor_ingest() -> Iterator[str]:
    here = Path(__file__).resolve().parents[1]
    bases = [Path(b) for b in os.environ.get("ETG_BASE_TREE", "").split(":") if b]
    trees = {"this tree": here, **{b.name: b for b in bases}}
    with tempfile.TemporaryDirectory(prefix="etg-floor-ingest-") as tmp_s:
        tmp = Path(tmp_s)
        data = tmp / "traffic.pickle"
        data.write_bytes(pickle.dumps(traffic(tmp / "tables")))
        yield (f"floor ingest path on SQLite, {RUNS} runs a tree taking turns; load "
               f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at start")
        got: dict[str, list[float]] = {name: [] for name in trees}
        k = 0
        for _ in range(RUNS):
            for name, tree in trees.items():
                k += 1
                cpu, ingested, dropped = _run(tree, data, tmp, k)
                got[name].append(cpu)
                yield (f"  {name}: {cpu * 1e6:.1f} us CPU a message ({ingested} records "
                       f"stored, {dropped} dropped; load {os.getloadavg()[0]:.1f})")
        for name, xs in got.items():
            mid = sorted(xs)[len(xs) // 2]
            yield f"{name}: best {min(xs) * 1e6:.1f} us, median {mid * 1e6:.1f} us"
        for b in bases:
            ratio = min(got["this tree"]) / min(got[b.name])
            yield f"this tree / {b.name} (best of each): {ratio:.3f}"
        yield f"load average at end {os.getloadavg()[0]:.1f}"
