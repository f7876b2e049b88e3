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
    r.answer({"command": "createClient"}, {"command": "addClientRole",
                                           "error": "Internal error"},
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
