"""The floor's edge: every message checked against the schema before the ledger sees it.

The audit's records that used to stop the whole floor are refused here, one line each;
and a fuzz of mutated records shows the edge's promise: whatever it accepts, the ledger
stores — on SQLite and on PostgreSQL — without an exception.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.floor import wire
from firmware.floor.db import Database
from firmware.floor.ledger import FloorLedger, Incoming

H = "ab" * 32


def good(kind: str = "event", n: int = 1, seq: int = 5) -> dict[str, Any]:
    base: dict[str, Any] = {"kind": kind, "n": n, "seq": seq, "hash": H, "ts_ns": 10**18}
    extra: dict[str, dict[str, Any]] = {
        "event": {"code": 200, "round": 3, "body": {"cause": "x"}},
        "round": {"round": 3, "record": {"round": 3, "state": "settled"}},
        "meters": {"meters": {"wagered": 1000, "paid": 500, "games_played": 1,
                              "seats": [{"seat": 1, "wagered": 1000, "paid": 500,
                                         "credits": 9500, "by_wager": {}}],
                              "by_wager": {"main": {"wagered": 1000, "paid": 500}}}},
        "chain": {"head": H},
    }
    return {**base, **extra[kind]}


@pytest.mark.parametrize("broken, says", [
    ({**good(), "body": None}, "Expected `object`, got `null` - at `$[0].body`"),
    ({k: v for k, v in good().items() if k != "body"}, "missing required field `body`"),
    ({**good(), "seq": 2**63}, "at `$[0].seq`"),
    ({**good(), "code": {"x": 1}}, "at `$[0].code`"),
    ({**good("meters"), "meters": [1, 2]}, "at `$[0].meters`"),
    ({**good(), "n": "7"}, "Expected `int`, got `str` - at `$[0].n`"),
    ({**good(), "n": True}, "at `$[0].n`"),
    ({**good(), "hash": "ABC"}, "at `$[0].hash`"),
    ({**good(), "kind": "input"}, "Invalid value 'input' - at `$[0].kind`"),
    ({**good(), "v": 2}, "at `$[0].v`"),
    ({**good("meters"), "meters": {"wagered": 2**70}}, "at `$[0].meters.wagered`"),
    ({**good(), "body": {"x": ["y" * 1900] * 40}}, "more than 65536"),
    ({**good(), "body": {"x": "y" * 70_000}}, "length <= 2000"),
    ({**good(), "secret": 1}, "unknown field `secret`"),
])
def test_the_audits_bad_records_are_refused_at_the_edge(broken: dict[str, Any],
                                                          says: str) -> None:
    with pytest.raises(wire.BadMessage) as got:
        wire.records(json.dumps([broken]).encode())
    assert says in str(got.value)


@pytest.mark.parametrize("payload, says", [
    (b'{"seq": "12"}', "got `str` - at `$.seq`"),
    (b'{"seq": 1, "ts": 1e30}', "at `$.ts`"),
    (b'{"seq": 1, "phase": "' + b"x" * 100 + b'"}', "length <= 64 - at `$.phase`"),
    (b'{"seq": 1, "tilt": "yes"}', "at `$.tilt`"),
    (b"[]", "Expected `object`, got `array`"),
    (b"\xff\xfe", "not JSON"),
    (b" " * (wire.MAX_MESSAGE_BYTES + 1), "more than 262144"),
    (b'{"seq": 1, "secret": "x"}', "unknown field `secret`"),
])
def test_bad_statuses_are_refused(payload: bytes, says: str) -> None:
    with pytest.raises(wire.BadMessage) as got:
        wire.status(payload)
    assert says in str(got.value)


def test_a_status_is_exactly_what_was_checked() -> None:
    got = wire.status(json.dumps({"seq": 4, "phase": "betting",
                                  "tilt": {"cause": "door", "code": "DOOR"},
                                  "ts": 1.5e9, "v": 1}).encode())
    assert got["tilt"] == {"cause": "door", "code": "DOOR"} and "v" not in got
    assert got["seq"] == 4 and got["simulated"] is False


def test_too_many_records_in_one_message_are_refused() -> None:
    with pytest.raises(wire.BadMessage, match="length <= 100"):
        wire.records(json.dumps([good(n=i) for i in range(1, 102)]).encode())


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)


@st.composite
def mutated(draw: st.DrawFn) -> list[Any]:
    """A valid record of each kind, then a few fields replaced, removed or added."""
    recs: list[Any] = []
    for i, kind in enumerate(draw(st.lists(st.sampled_from(
            ["event", "round", "meters", "chain"]), min_size=1, max_size=4))):
        r = good(kind, n=i + 1, seq=5 + i)
        for _ in range(draw(st.integers(0, 3))):
            key = draw(st.sampled_from([*r.keys(), "meters", "body", "extra"]))
            if draw(st.booleans()):
                r[key] = draw(JSON)
            else:
                r.pop(key, None)
        recs.append(r)
    return recs


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger_db(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    url = str(tmp_path / "floor.sqlite") if request.param == "sqlite" else \
        request.getfixturevalue("postgres_url")
    db = Database(url)
    yield db
    db.close()


def test_whatever_the_edge_accepts_the_ledger_stores(ledger_db: Database) -> None:
    ledger = FloorLedger(ledger_db)
    seen = {"accepted": 0, "refused": 0}

    @settings(max_examples=150, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(mutated())
    def check(recs: list[Any]) -> None:
        tid = "F" + uuid.uuid4().hex[:10]
        try:
            checked = wire.records(json.dumps(recs).encode())
        except wire.BadMessage:
            seen["refused"] += 1
            return
        seen["accepted"] += 1
        ledger.apply([Incoming(tid, "record", r, time.time()) for r in checked])

    check()
    assert seen["accepted"] > 10 and seen["refused"] > 10, seen
