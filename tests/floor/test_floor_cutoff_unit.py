"""The floor's side of the broker cut-off (firmware.floor.cutoff) without a broker: what
it asks, how it reads the plugin's answers, when it is a banner."""

from __future__ import annotations

import time
from typing import Any

import orjson
from waiting import wait_for

from firmware.floor import cutoff as c


class Rig:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.problems: list[str | None] = []
        self.cut = c.BrokerCutoff(lambda topic, p: self.sent.append(orjson.loads(p)),
                                  self.problems.append)

    def corr(self, i: int = -1) -> str:
        return str(self.sent[i]["commands"][0]["correlationData"])

    def answer(self, *responses: dict[str, Any], corr: str | None = None) -> None:
        corr = corr or self.corr()
        self.cut.answered(orjson.dumps({"responses": [
            {**r, "correlationData": corr} for r in responses]}))


def test_the_listing_is_made_to_agree_with_the_floors_quarantines_both_ways() -> None:
    r = Rig()
    r.cut.connected({"A"})
    r.answer({"command": "setDefaultACLAccess"}, {"command": "createRole"},
             {"command": "getRole", "data": {"role": {"acls": c.ROLE_ACLS}}},
             {"command": "listClients", "data": {"clients": [
                 {"username": "B", "roles": [{"rolename": c.ROLE}]},
                 {"username": "OTHER", "roles": [{"rolename": "someone-elses"}]}]}})
    wait_for("the reconciliation", lambda: len(r.sent) == 3)
    asked = {(cmd["command"], cmd["username"]) for m in r.sent[1:] for cmd in m["commands"]}
    assert ("disableClient", "A") in asked and ("deleteClient", "B") in asked
    assert not [u for _, u in asked if u == "OTHER"]
    assert r.cut.state() is None


def test_a_refusal_or_a_changed_role_is_a_banner_until_it_works() -> None:
    r = Rig()
    r.cut.quarantine("A")
    r.answer({"command": "createClient"}, {"command": "modifyClient"},
             {"command": "disableClient"},
             {"command": "getClient", "data": {"client": {"disabled": False, "roles": []}}})
    assert "does not hold the table disabled" in str(r.cut.state())
    assert r.problems[-1] and "cut A" in r.problems[-1]
    r.cut.quarantine("A")
    r.answer({"command": "createClient", "error": "Client already exists"},
             {"command": "getClient", "data": {"client": {
                 "disabled": True, "roles": [{"rolename": c.ROLE}]}}})
    assert r.cut.state() is None and r.problems[-1] is None
    r.cut.connected(set())
    r.answer({"command": "getRole", "data": {"role": {"acls": []}}})
    assert "does not refuse every publish" in str(r.cut.state())


def test_no_answer_is_a_banner_and_junk_answers_are_ignored(monkeypatch: Any) -> None:
    r = Rig()
    r.cut.connected(set())
    r.cut.answered(b"not json")
    r.cut.answered(b"[1, 2]")
    r.cut.answered(orjson.dumps({"responses": [{"correlationData": "etg-999"}, 7]}))
    r.cut.tick(time.monotonic() + c.ANSWER_S + 1)
    assert "did not answer" in str(r.problems[-1])
    r.cut.connected(set())  # a new connection: the old question is settled by the listing
    r.answer({"command": "listClients", "data": {"clients": []}})
    r.cut.tick(time.monotonic() + 1)
    assert r.problems[-1] is None and r.cut.state() is None


def test_finding_r43_F2_a_second_role_or_a_group_is_not_a_cut() -> None:
    """Red team r43 F2: a quarantined client given another role (of a higher priority,
    allowing every publish) was taken as cut off, at the listing and after the cut. Now
    only a client disabled in the quarantine role alone, in no group, is cut off: anything
    else is cut again (its roles and groups replaced) and, after a cut, the banner."""
    r = Rig()
    r.cut.connected({"A", "G"})
    helper = {"rolename": "helper", "priority": 100}
    r.answer({"command": "listClients", "data": {"clients": [
        {"username": "A", "disabled": True, "roles": [helper, {"rolename": c.ROLE}]},
        {"username": "G", "disabled": True, "roles": [{"rolename": c.ROLE}],
         "groups": [{"groupname": "g"}]}]}})
    wait_for("the reconciliation", lambda: len(r.sent) == 3)
    assert r.cut.cut == set()
    for m in r.sent[1:]:
        modify = [cmd for cmd in m["commands"] if cmd["command"] == "modifyClient"]
        assert modify and modify[0]["roles"] == [{"rolename": c.ROLE}]
        assert modify[0]["groups"] == []
    r.answer({"command": "getClient", "data": {"client": {
        "disabled": True, "roles": [helper, {"rolename": c.ROLE}]}}}, corr=r.corr(1))
    assert "alone" in str(r.cut.state())


def test_finding_r43_F2_the_plugin_is_looked_at_again_while_connected() -> None:
    """A change made at the broker while the floor stays connected (a role added at run
    time) is found by the next look, every RECHECK_S, not only at the next connection."""
    r = Rig()
    r.cut.connected(set())
    r.answer({"command": "listClients", "data": {"clients": []}})
    r.cut.tick(time.monotonic() + 1)
    assert len(r.sent) == 1
    r.cut.tick(time.monotonic() + c.RECHECK_S + 1)
    assert len(r.sent) == 2 and r.sent[1]["commands"][-1]["command"] == "listClients"
    r.cut.disconnected()
    r.cut.tick(time.monotonic() + 3 * c.RECHECK_S)
    assert len(r.sent) == 2  # not connected: no look (the broker's own banner)
