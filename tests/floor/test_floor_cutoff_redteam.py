"""Red team r43's findings against the broker's cut-off (issue 43), each a test named for
it: a real Mosquitto on the floor's generated configuration, the floor's ingest in this
process (or the offline edge, where the broker plays no part)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

pytest.importorskip("paho.mqtt.client")
pytest.importorskip("msgspec")

from floor_rig import FloorRig
from test_floor_cutoff import HAS_BROKER, _floor, _quarantine, _reaches_floor
from waiting import wait_for

from firmware.floor import broker as broker_mod
from firmware.floor import cutoff as cutoff_mod

needs_broker = pytest.mark.skipif(not HAS_BROKER or broker_mod.dynsec_plugin() is None,
                                  reason="mosquitto or its dynamic security plugin missing")

HELPER = {"rolename": "helper", "acls": [{"acltype": "publishClientSend", "topic": "#",
                                          "priority": 100, "allow": True}]}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[FloorRig]:
    r = FloorRig(tmp_path, ["EVIL", "H1"])
    r.start_broker()
    try:
        yield r
    finally:
        r.close()


@needs_broker
def test_finding_r43_F2_a_second_role_in_the_plugins_file_does_not_free_a_quarantined_table(
        rig: FloorRig) -> None:
    """Red team r43 F2: with the floor and broker stopped, the plugin's file edited to give
    the quarantined EVIL a second role of priority 100 allowing every publish: the broker
    routed EVIL's publishes to the floor again and the floor said nothing (its listing took
    any client holding the quarantine role as cut off). Now the floor's first listing finds
    EVIL not cut, cuts it again in the quarantine role alone, and raises EVIL's `cutoff`
    alarm."""
    ing = _floor(rig)
    _quarantine(ing, "EVIL")
    ing.stop()
    rig.stop_broker()
    path = rig.dir / broker_mod.DYNSEC_FILE
    d = json.loads(path.read_text())
    d["roles"].append(HELPER)
    for c in d["clients"]:
        c["roles"] = [{"rolename": "helper", "priority": 100}, {"rolename": cutoff_mod.ROLE}]
    path.write_text(json.dumps(d, indent=1))
    rig.start_broker()
    ing = _floor(rig)
    wait_for("EVIL's cutoff alarm", lambda: "cutoff" in ing.store.tables["EVIL"].alarmed)
    wait_for("EVIL cut off again", lambda: ing.cutoff.cut == {"EVIL"}
             and not ing.cutoff._pending and ing.cutoff.state() is None)
    assert _reaches_floor(rig, ing, "EVIL") == 0
    assert _reaches_floor(rig, ing, "H1") == 50
    ing.stop()


@needs_broker
def test_finding_r43_F2_a_role_added_at_run_time_is_found_by_the_next_look(
        rig: FloorRig, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same second role given while the floor stays connected (the floor never looked
    again until it reconnected): the next look, every RECHECK_S, cuts EVIL again."""
    monkeypatch.setattr(cutoff_mod, "RECHECK_S", 0.5)
    ing = _floor(rig)
    _quarantine(ing, "EVIL")
    ing.client.publish(cutoff_mod.CONTROL_TOPIC, orjson.dumps({"commands": [
        {"command": "createRole", **HELPER},
        {"command": "addClientRole", "username": "EVIL", "rolename": "helper",
         "priority": 100}]}), qos=1).wait_for_publish(10)
    wait_for("the plugin holds EVIL with the helper role", lambda: "helper" in json.dumps(
        json.loads((rig.dir / broker_mod.DYNSEC_FILE).read_text())["clients"]))

    def put_right() -> bool:
        ing.tick()
        held = json.loads((rig.dir / broker_mod.DYNSEC_FILE).read_text())["clients"]
        return all(c["roles"] == [{"rolename": cutoff_mod.ROLE}] for c in held)

    wait_for("EVIL cut again in the quarantine role alone", put_right)
    wait_for("the look answered", lambda: not ing.cutoff._pending)
    assert _reaches_floor(rig, ing, "EVIL") == 0
    assert "cutoff" in ing.store.tables["EVIL"].alarmed
    ing.stop()
