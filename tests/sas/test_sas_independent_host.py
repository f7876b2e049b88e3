"""Issue 46, point 2 of this stop: the interrogation and meter long polls and the
seat-to-host mapping checked by a host of the tests' own (tests/sas/independent_host.py,
written from the protocol's public facts, importing nothing of ours): a real
``etg run`` with scrambled addresses, a table machine and an asset base of its own;
every seat's machine interrogated with every meter poll (10-17, 1A, 0F, 1C, 2F, 6F,
AF), each equal to ``etg meters --json`` to the cent; each address's asset number the
one docs/sas.md gives its seat; unseated addresses silent; a shutdown of one address
stops exactly the seat docs/sas.md says."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from independent_host import KEPT, PtyHost, kermit
from table_process import REPO, running_table_lines

ADDRESSES = [12, 3, 77, 41, 8, 126, 60]  # seat 1's, seat 2's, ... (scrambled on purpose)
TABLE = 99
ASSET_BASE = 7000
SEATED = 3
ARGS = ("--auto-play", "--seats", str(SEATED), "--pace", "0.01",
        "--set", "sas.port=pty", "--set", f"sas.addresses={ADDRESSES}".replace(" ", ""),
        "--set", f"sas.table_address={TABLE}", "--set", f"sas.asset_base={ASSET_BASE}")


def etg_json(*args: str) -> Any:
    out = subprocess.run([sys.executable, "-m", "firmware", *args], cwd=REPO,
                         capture_output=True, text=True, check=True)
    return out.stdout


def meters(journal: Path) -> dict[str, Any]:
    return dict(json.loads(etg_json("meters", "--json", "--journal", str(journal))))


def power_ups(journal: Path) -> int:
    lines = etg_json("events", "--json", "--journal", str(journal)).splitlines()
    return sum(1 for line in lines if json.loads(line).get("code") == 100)


def expected(m: dict[str, Any], powers: int) -> dict[str, int]:
    """What every poll must read for meters ``m`` (a seat's, or the table's totals),
    by the protocol's meaning of each code and docs/sas.md's mapping."""
    by_code = {0x0000: m["wagered"], 0x0001: m["paid"], 0x0002: 0, 0x0003: 0,
               0x0004: m["credits_out"], 0x0005: m["games_played"], 0x000C: m["credits"],
               0x0017: m["credits_in"], 0x0018: m["credits_out"], 0x0022: m["paid"],
               0x0024: m["credits_in"]}
    out: dict[str, int] = {}
    one = {0x10: 0x0004, 0x11: 0x0000, 0x12: 0x0001, 0x13: 0x0024, 0x14: 0x0002,
           0x15: 0x0005, 0x1A: 0x000C}
    for cmd, code in one.items():
        out[f"{cmd:02X}:{code:04X}"] = by_code[code] % 10**8
    for code in (0x0004, 0x0000, 0x0001, 0x0024, 0x0002, 0x0005):
        out[f"0F:{code:04X}"] = by_code[code] % 10**8
    for code in (0x0000, 0x0001, 0x0024, 0x0002, 0x0005):
        out[f"1C:{code:04X}"] = by_code[code] % 10**8
    out["1C:door"] = 0  # the table has no door switch (docs/sas.md)
    out["1C:power"] = powers
    for code, value in by_code.items():
        out[f"2F:{code:04X}"] = value % 10**8
        out[f"6F:{code:04X}"] = value
        out[f"AF:{code:04X}"] = value
    return out


def compare(got: dict[str, int], want: dict[str, int], who: str) -> list[str]:
    bad = [f"{who} {k}: host read {got.get(k)}, etg meters {v}"
           for k, v in want.items() if got.get(k) != v]
    for poll in ("16:0006", "2F:0006", "6F:0006", "AF:0006"):  # won + lost = played
        lost = poll[:3] + "0007" if poll[0] != "1" else "17:0007"
        if got[poll] + got[lost] != got["15:0005"]:
            bad.append(f"{who} {poll}+{lost}: {got[poll]} + {got[lost]} won and lost, "
                       f"{got['15:0005']} played")
    return bad


def wait_for(what: str, cond: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def games(journal: Path) -> dict[int, int]:
    return {s["seat"]: s["games_played"] for s in meters(journal)["seats"]}


def still(journal: Path) -> dict[str, Any]:
    """The meters once two readings 0.5 s apart agree (every seat closed: no round)."""
    last = meters(journal)
    while True:
        time.sleep(0.5)
        now = meters(journal)
        if now == last:
            return now
        last = now


def test_the_crc_is_kermits() -> None:
    assert kermit(b"123456789") == 0x2189


def test_an_independent_host_reads_every_seat_as_docs_sas_md_maps_it(
        tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    with running_table_lines(journal, *ARGS) as (_proc, lines):
        path = next(m.group(1) for line in lines.lines
                    if (m := re.search(r"SAS link on (\S+)", line)))
        host = PtyHost(path)
        try:
            _check(host, journal)
        finally:
            host.close()


def _check(host: PtyHost, journal: Path) -> None:
    seat_of = {a: i + 1 for i, a in enumerate(ADDRESSES[:SEATED])}
    # each seated address answers, with the asset number of its seat; the rest are silent
    for a, seat in seat_of.items():
        assert host.general(a) is not None, f"address {a} (seat {seat}) silent"
        assert host.status_74(a)[0] == ASSET_BASE + seat, f"address {a}"
    assert host.general(TABLE) is not None
    for a in [*ADDRESSES[SEATED:], 1, 2, 4, 127]:
        assert host.general(a) is None, f"address {a} answered: no seat of it is seated"
    wait_for("every seat to play a few rounds",
             lambda: min(games(journal).values(), default=0) >= 3)
    _transfers(host, journal)
    # a shutdown of seat 2's address stops seat 2 and no other
    assert host.enable(ADDRESSES[1], False)
    time.sleep(1.0)  # the round in play finishes
    before = games(journal)
    wait_for("seats 1 and 3 to go on playing", lambda: all(
        games(journal)[s] >= before[s] + 2 for s in (1, 3)))
    assert games(journal)[2] == before[2], "seat 2 played on after its shutdown"
    # every seat closed: a still table, then every meter of every machine
    for a in ADDRESSES[:SEATED]:
        assert host.enable(a, False)
    m = still(journal)
    powers = power_ups(journal)
    bad: list[str] = []
    for a, seat in seat_of.items():
        s = next(x for x in m["seats"] if x["seat"] == seat)
        bad += compare(host.every_meter(a), expected(s, powers), f"address {a} seat {seat}")
    bad += compare(host.every_meter(TABLE), expected(m, powers), f"table address {TABLE}")
    assert not bad, "\n".join(bad)
    assert sorted(KEPT) == list(KEPT)
    for a in ADDRESSES[:SEATED]:
        assert host.enable(a, True)


def _final(host: PtyHost, address: int, txid: bytes) -> dict[str, object]:
    """Interrogation until the transfer ``txid`` is no longer pending."""
    for _ in range(100):
        got = host.interrogate(address)
        if got["status"] != 0x40 and got.get("txid") == txid:
            return got
        time.sleep(0.05)
    raise AssertionError(f"transfer {txid!r} still pending")


def _transfers(host: PtyHost, journal: Path) -> None:
    """A transfer to seat 1's machine and one from seat 3's to the host, each read back
    by interrogation and against `etg meters`, each asked again: moved once."""
    seat1 = next(x for x in meters(journal)["seats"] if x["seat"] == 1)
    res = host.transfer(ADDRESSES[0], 0x00, 12_345, ASSET_BASE + 1, b"IND-IN-1")
    assert res["status"] in (0x00, 0x40), res
    got = _final(host, ADDRESSES[0], b"IND-IN-1")
    assert (got["status"], got["type"], got["cashable"], got["asset"]) == (
        0x00, 0x00, 12_345, ASSET_BASE + 1), got
    after = next(x for x in meters(journal)["seats"] if x["seat"] == 1)
    assert after["credits_in"] - seat1["credits_in"] == 12_345
    again = host.transfer(ADDRESSES[0], 0x00, 12_345, ASSET_BASE + 1, b"IND-IN-1")
    assert again["status"] == 0x00, again  # its first result, nothing moved
    # from seat 3 to the host: refused while a round has its stake (87), then done
    seat3 = next(x for x in meters(journal)["seats"] if x["seat"] == 3)
    for n in range(40):
        # 74's cashable amount says what can move now (0 while a round holds a stake)
        deadline = time.monotonic() + 10
        while host.status_74(ADDRESSES[2])[1] < 2_345 and time.monotonic() < deadline:
            time.sleep(0.02)
        txid = b"IND-OUT-%d" % n
        host.transfer(ADDRESSES[2], 0x80, 2_345, ASSET_BASE + 3, txid)
        got = _final(host, ADDRESSES[2], txid)
        if got["status"] == 0x00:
            break
        assert got["status"] == 0x87, got  # the next round came first: the table's right
    assert (got["type"], got["cashable"], got["asset"]) == (0x80, 2_345, ASSET_BASE + 3)
    after = next(x for x in meters(journal)["seats"] if x["seat"] == 3)
    assert after["credits_out"] - seat3["credits_out"] == 2_345
    assert host.transfer(ADDRESSES[2], 0x80, 2_345, ASSET_BASE + 3, txid)["status"] == 0
    time.sleep(0.3)
    final = meters(journal)["seats"]
    assert next(x for x in final if x["seat"] == 3)["credits_out"] == after["credits_out"]
    assert next(x for x in final if x["seat"] == 1)["credits_in"] == seat1["credits_in"] + 12_345


def test_finding_the_table_machines_games_won_and_lost_counted_seat_games(
        tmp_path: Path) -> None:
    """The independent host's first run: the table's own machine read games played 10
    (the rounds, as `etg meters` has it) but won 9 + lost 15 (the seats' games summed):
    won + lost must be its games played. Now a round is one game of the table's machine,
    won when all its returns exceed all its stakes."""
    from types import SimpleNamespace

    from firmware.journal import Journal
    from firmware.table.sas.board import SasBoard, sas_meters

    j = Journal(tmp_path / "j.sqlite")
    try:
        board = SasBoard(j, {1: 1, 2: 2, 9: 0}, 46000, 10**6)
        rounds = [({"1": {"bj": 500}, "2": {"bj": 500}}, {"1": {"bj": 1000}}),  # 1 won 2 lost
                  ({"1": {"bj": 500}, "2": {"bj": 500}}, {"1": {"bj": 1000},
                                                          "2": {"bj": 1000}}),  # both won
                  ({"1": {"bj": 500}}, {})]  # lost
        for n, (stakes, returns) in enumerate(rounds, 1):
            board._round(SimpleNamespace(seq=n, body={"stakes": stakes, "returns": returns,
                                                      "state": "settled"}), queue=False)
        table = sas_meters({}, 0, board)
        assert (table[0x0006], table[0x0007]) == (1, 2)  # won + lost = 3 rounds
        seat1, seat2 = sas_meters({}, 1, board), sas_meters({}, 2, board)
        assert (seat1[0x0006], seat1[0x0007]) == (2, 1)
        assert (seat2[0x0006], seat2[0x0007]) == (1, 1)
    finally:
        j.close()
