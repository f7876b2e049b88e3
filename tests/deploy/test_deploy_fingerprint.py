"""Configuration control: hashes of the table configuration and rules in force, journaled."""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field
from fractions import Fraction

import pytest

from deploy.fingerprint import (
    INFO_KEY,
    ConfigFingerprint,
    canonical_json,
    config_fingerprint,
    fingerprint,
)
from firmware.config import load_config
from firmware.journal import EventCode
from firmware.table.service.start_record import record_config_at_start, start_events

RULES = {"decks": 6, "dealer_hits_soft_17": False, "blackjack_pays": Fraction(3, 2)}


def test_golden_value_from_the_documented_spelling() -> None:
    """The hashes follow the spelling in deploy/fingerprint.py's doc, recomputed by hand."""
    rules = {"decks": 6, "pays": Fraction(3, 2), "h17": False}
    table = {"seats": 7, "variant": "bingo"}
    rules_json = b'{"decks":6,"h17":false,"pays":{"fraction":"3/2"}}'
    table_json = b'{"seats":7,"variant":"bingo"}'
    rules_hex = hashlib.sha256(b"etg-rules/1\n" + rules_json).hexdigest()
    table_hex = hashlib.sha256(b"etg-table-config/1\n" + table_json).hexdigest()
    combined = hashlib.sha256(
        b"etg-config-fingerprint/1\n" + f"{table_hex}\n{rules_hex}\n".encode()
    ).hexdigest()
    fp = fingerprint(table, rules)
    assert (fp.table, fp.rules, fp.combined) == (table_hex, rules_hex, combined)
    assert config_fingerprint(table, rules) == combined


def test_content_not_spelling_decides(tmp_path) -> None:
    a = tmp_path / "a.toml"
    b = tmp_path / "b.toml"
    a.write_text('[table]\nvariant = "blackjack"\nseats = 5\n[rules]\ndecks = 8\n')
    b.write_text('# the same table\n[rules]\ndecks = 8\n\n[table]\nseats = 5   # five\n'
                 'variant = "blackjack"\n')
    ca, cb = load_config(a), load_config(b)
    assert ca.source != cb.source  # where it came from is not part of the hash
    assert fingerprint(ca, RULES) == fingerprint(cb, RULES)
    base = fingerprint(ca, RULES).table
    assert fingerprint(load_config(a, ["table.seats=4"]), RULES).table != base
    assert fingerprint(load_config(a, ["rules.decks=6"]), RULES).table != base


def test_rules_change_changes_only_the_rules_hash() -> None:
    cfg = load_config(None)
    a = fingerprint(cfg, RULES)
    b = fingerprint(cfg, {**RULES, "decks": 8})
    assert a.table == b.table and a.rules != b.rules and a.combined != b.combined
    assert fingerprint(cfg, dict(reversed(list(RULES.items())))) == a  # key order is irrelevant


def test_canonical_values() -> None:
    class Colour(enum.Enum):
        RED = "red"

    @dataclass(frozen=True)
    class Rules:
        decks: int = 6
        pays: Fraction = Fraction(6, 5)
        colours: frozenset[str] = frozenset({"b", "a"})
        secret: str = field(default="x", metadata={"internal": True})
        colour: Colour = Colour.RED

    assert canonical_json(Rules()) == (
        b'{"colour":"red","colours":["a","b"],"decks":6,"pays":{"fraction":"6/5"}}'
    )
    assert canonical_json({"x": (1, 2.5), "y": b"ab"}) == (
        b'{"x":[1,2.5],"y":{"bytes_sha256":"'
        + hashlib.sha256(b"ab").hexdigest().encode()
        + b'"}}'
    )
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})
    with pytest.raises(TypeError):
        canonical_json({"x": object()})


def test_start_events() -> None:
    a = ConfigFingerprint("1" * 64, "2" * 64, "3" * 64)
    b = ConfigFingerprint("1" * 64, "4" * 64, "5" * 64)
    assert start_events(None, a) == [(EventCode.CONFIG_IN_FORCE, a.as_dict())]
    assert start_events(a, a) == [(EventCode.CONFIG_IN_FORCE, a.as_dict())]
    assert start_events(a, b) == [
        (EventCode.CONFIG_CHANGE, {"old": a.as_dict(), "new": b.as_dict(), "changed": ["rules"]}),
        (EventCode.CONFIG_IN_FORCE, b.as_dict()),
    ]


def test_every_start_is_journaled_and_a_change_has_old_and_new(tmp_path) -> None:
    from firmware.journal import Journal

    path = tmp_path / "journal.sqlite"
    cfg = load_config(None)
    a = fingerprint(cfg, RULES)
    b = fingerprint(load_config(None, ["table.seats=3"]), RULES)
    for current in (a, a, b):  # three starts; the configuration changes before the third
        journal = Journal(path)
        try:
            record_config_at_start(journal, current)
        finally:
            journal.close()
    journal = Journal(path)
    try:
        events = [(r.code, r.body) for r in journal.records(kinds=["event"])]
        assert events == [
            (EventCode.CONFIG_IN_FORCE, a.as_dict()),
            (EventCode.CONFIG_IN_FORCE, a.as_dict()),
            (EventCode.CONFIG_CHANGE,
             {"old": a.as_dict(), "new": b.as_dict(), "changed": ["table"]}),
            (EventCode.CONFIG_IN_FORCE, b.as_dict()),
        ]
        assert ConfigFingerprint.from_json(journal.info(INFO_KEY) or "") == b
        # issue 42, red team F1: the unkeyed info row is never read: planted, it neither
        # hides a change nor makes up an "old" configuration
        journal.set_info(INFO_KEY, a.to_json())
        record_config_at_start(journal, b)
        last = list(journal.records(kinds=["event"]))[-2:]
        assert [r.code for r in last] == [EventCode.CONFIG_IN_FORCE] * 2
        journal.set_info(INFO_KEY, a.to_json())  # "no change", says the row
        record_config_at_start(journal, a)
        last = list(journal.records(kinds=["event"]))[-2:]
        assert last[0].code == EventCode.CONFIG_CHANGE and last[0].body["old"] == b.as_dict()
        assert journal.verify().ok
    finally:
        journal.close()
