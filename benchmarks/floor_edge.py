"""`make bench` for the floor's edge: what the one strict schema costs per message.

Every message from every table is decoded and checked by :mod:`firmware.floor.wire`
(msgspec, :mod:`firmware.floor.schema`) on the floor's one network thread, so its cost
per message is the floor's capacity. Measured on real traffic: a simulated table's own
journal and outbox (:class:`firmware.bench.floor_load.SimTable`) play rounds, and each
round's records go as the floor link sends them in steady play (the round, its meters
and its chain, with any events, in one message); the status is the one a table
publishes as a round starts and ends. The figure at 1,000 tables is for a round a second
each: 1,000 records messages and 2,000 statuses a second, as a share of one core.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

ROUNDS = 300
REPEAT = 20


def _traffic(root: Path) -> list[bytes]:
    from firmware.bench.floor_load import SimTable
    from firmware.floor.certs import make_floor_certs
    from firmware.journal.outbox import records_wire

    make_floor_certs(root, ["E1"])
    (root / "j").mkdir()
    t = SimTable("E1", root, root / "j", "127.0.0.1", 1, seed=7)
    t.play_rounds(ROUNDS)
    msgs, after = [], 0
    while batch := t.link.outbox.pending(after):
        msgs += batch
        after = batch[-1].n
    t.close()
    out, group = [], []
    for m in msgs:  # one message a round: everything up to and including its chain
        group.append(m)
        if m.kind == "chain":
            out.append(records_wire(group))
            group = []
    return out


def _per_message(parse: object, payloads: list[bytes]) -> float:
    """Seconds per message, the best of a few passes (the least disturbed)."""
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(REPEAT):
            for p in payloads:
                parse(p)  # type: ignore[operator]
        best = min(best, (time.perf_counter() - t0) / (REPEAT * len(payloads)))
    return best


def floor_edge() -> list[str]:
    import msgspec

    from firmware.floor import wire

    with tempfile.TemporaryDirectory(prefix="etg-edge-") as tmp:
        rounds = _traffic(Path(tmp))
    status = json.dumps({"variant": "blackjack", "phase": "dealing", "round": 1234,
                         "tilt": None, "failure": None, "closed": False,
                         "software": {"version": "1.0.0", "config": "ab" * 8,
                                      "release": "etg-1.0.0"},
                         "seq": 98765, "head": "cd" * 32, "v": 1, "ts": time.time(),
                         "sent": time.time()}).encode()
    r = _per_message(wire.records, rounds)
    s = _per_message(wire.status, [status])
    size = sum(map(len, rounds)) / len(rounds)
    records = sum(len(wire.records(p)) for p in rounds) / len(rounds)
    share = (1000 * r + 2000 * s) * 100
    # of which the second reading that refuses a key written twice (msgspec cannot tell)
    dr = _per_message(lambda p: wire.repeated_keys(p, "records"), rounds)
    ds = _per_message(lambda p: wire.repeated_keys(p, "status"), [status])
    dup_share = (1000 * dr + 2000 * ds) * 100
    return [
        f"floor edge (msgspec {msgspec.__version__}): a round's records message "
        f"({records:.1f} records, {size:.0f} bytes, from a simulated table's outbox): "
        f"{r * 1e6:.1f} µs; a status ({len(status)} bytes): {s * 1e6:.1f} µs",
        f"  at 1,000 tables, a round a second each (1,000 records messages and 2,000 "
        f"statuses a second): {share:.1f} % of one core for the edge's decoding and checks",
        f"  of which the refusal of keys written twice (msgspec's round trip, else json's "
        f"scanner with a hook per object): {dr * 1e6:.1f} µs a records message, "
        f"{ds * 1e6:.1f} µs a status; "
        f"{dup_share:.1f} % of one core at 1,000 tables",
    ]
