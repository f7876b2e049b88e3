"""What ``etg sas host`` does to one machine: each action as the polls a host sends."""

from __future__ import annotations

import argparse
import time
from typing import Any

from drivers.sas import codes as C
from drivers.sas.aft import parse_result, request_data
from drivers.sas.framing import from_bcd
from drivers.sas.host import Host, NoAnswer

#: what ``poll`` / ``meters`` reads: name -> SAS meter code (2F, one-byte codes)
METERS = {"coin_in": C.COIN_IN, "coin_out": C.COIN_OUT, "jackpot": C.JACKPOT,
          "cancelled_credits": C.CANCELLED, "games_played": C.GAMES_PLAYED,
          "games_won": C.GAMES_WON, "games_lost": C.GAMES_LOST,
          "current_credits": C.CURRENT_CREDITS, "transfers_in": C.ELECTRONIC_IN,
          "transfers_out": C.ELECTRONIC_OUT}
STATUS = {C.AFT_FULL_SUCCESS: "full transfer successful", C.AFT_PENDING: "pending",
          C.AFT_UNABLE: "unable to perform the transfer now",
          C.AFT_ASSET_MISMATCH: "asset number mismatch",
          C.AFT_NO_INFO: "no transfer information"}


def read_meters(host: Host, address: int) -> dict[str, int]:
    """The meters through one selected-meters poll (2F), game 0 (the machine's totals)."""
    codes = bytes(METERS.values())
    data = host.long(address, 0x2F, b"\x00\x00" + codes, variable=True)
    out: dict[str, int] = {}
    names = {v: k for k, v in METERS.items()}
    body = data[2:]
    for i in range(0, len(body) - 4, 5):
        out[names.get(body[i], f"meter_{body[i]:02x}")] = from_bcd(body[i + 1: i + 5])
    return out


def read_events(host: Host, address: int, limit: int = 64) -> list[str]:
    """General polls until the machine has no exception left (at most ``limit``), each
    acknowledged by the next poll, a current-credits read (a repeat at once would ask
    for the same exception again)."""
    out = []
    for _ in range(limit):
        code = host.general_poll(address)
        if code is None:
            raise NoAnswer(f"machine {address} did not answer a general poll")
        host.long(address, 0x1A, crc=False, answer=8)
        if code == C.NO_EXCEPTION:
            break
        out.append(f"{code:02X}")
    return out


def asset_of(host: Host, address: int) -> int:
    data = host.long(address, 0x74, bytes((0xFF, 0x00, 0x00, 0x00)))
    return int.from_bytes(data[:4], "little")


def wait_final(host: Host, address: int, timeout: float) -> dict[str, Any]:
    """Interrogate until the transfer is no longer pending (or ``timeout``)."""
    from drivers.sas import codes as C
    from drivers.sas.aft import parse_result

    deadline = time.monotonic() + timeout
    while True:
        res = parse_result(host.long(address, 0x72, bytes((0xFF, 0x00)), variable=True))
        if res["status"] != C.AFT_PENDING or time.monotonic() > deadline:
            return res
        time.sleep(0.2)  # a host's pace between polls


def run_action(host: Host, address: int, args: argparse.Namespace) -> dict[str, Any]:
    try:
        act = args.action
        if act in ("poll", "meters"):
            res: dict[str, Any] = {"meters": read_meters(host, address)}
            if act == "poll":
                res["events"] = read_events(host, address)
            return res
        if act == "events":
            return {"events": read_events(host, address)}
        if act in ("disable", "enable"):
            return {act: host.ack_only(address, 0x01 if act == "disable" else 0x02)}
        if act == "signature":
            for _ in range(50):  # the machine answers once it has computed it
                try:
                    sig = host.long(address, 0x21, args.seed.to_bytes(2, "little"), answer=6)
                    return {"seed": f"{args.seed:04X}",
                            "signature": f"{int.from_bytes(sig, 'little'):04X}"}
                except NoAnswer:
                    continue
            raise NoAnswer(f"machine {address} gave no ROM signature")
        if act == "transfer-status":
            return _aft(wait_final(host, address, 0))
        kind = C.AFT_IN_HOUSE_TO_MACHINE if act == "transfer-in" else C.AFT_IN_HOUSE_TO_HOST
        asset = args.asset if args.asset is not None else asset_of(host, address)
        first = parse_result(host.long(address, 0x72, request_data(
            kind, args.cents, asset, args.txid.encode("ascii")), variable=True))
        if first["status"] == C.AFT_PENDING:
            first = wait_final(host, address, 10.0)
        return _aft(first)
    except NoAnswer as exc:
        return {"error": str(exc)}


def _aft(res: dict[str, Any]) -> dict[str, Any]:
    status = int(res["status"])
    return {**res, "status": f"{status:02X}",
            "meaning": STATUS.get(status, "see docs/sas.md"),
            "error": "" if status == C.AFT_FULL_SUCCESS else STATUS.get(status, "refused")}
