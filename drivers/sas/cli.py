"""`etg sas host PORT`: a SAS host for the technician and the bench (docs/sas.md).

It polls one machine or several on a SAS line (a serial device, or the pseudo-terminal a
bench table logged as ``SAS link on PATH``) and prints what each answered: its meters
and exceptions by default, or the result of one action (disable, enable, the ROM
signature, a transfer in or out, the last transfer's status). ``--json`` for scripts.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from etgcore.errors import UserError

ACTIONS = ("poll", "meters", "events", "disable", "enable", "signature", "transfer-in",
           "transfer-out", "transfer-status")


def _address(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an address (1..127)") from None
    if not 1 <= value <= 127:
        raise argparse.ArgumentTypeError(f"address {value} is outside 1..127")
    return value


def _seed(text: str) -> int:
    digits = text[2:] if text.lower().startswith("0x") else text
    if not 1 <= len(digits) <= 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise argparse.ArgumentTypeError("the ROM signature seed is 1-4 hex digits, e.g. 1A2B")
    return int(digits, 16)


def _cents(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 10**10 - 1:
        raise argparse.ArgumentTypeError(f"{text!r}: cents, a whole number 1..9999999999")
    return int(text)


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("sas", help="SAS: a host polling the seats' gaming machines",
                       parents=[common],
                       description="The SAS link's host side (docs/sas.md).")
    ssub = p.add_subparsers(dest="sas_command", metavar="ACTION")
    ssub.required = True
    h = ssub.add_parser(
        "host", parents=[common], help="poll machines on a SAS line and print the answers",
        description="Poll one or more gaming machines (seats) on PORT: meters and "
                    "exceptions (poll), or one action. PORT: a serial device or the pty a "
                    "bench table logged as 'SAS link on PATH'.")
    h.add_argument("port", metavar="PORT", help="the SAS line (/dev/ttyUSB0, /dev/pts/N)")
    h.add_argument("action", nargs="?", default="poll", choices=ACTIONS,
                   help="what to do (default: poll = meters and events)")
    h.add_argument("--address", type=_address, action="append", metavar="A",
                   help="a machine's address (repeat for several; default 1)")
    h.add_argument("--seed", type=_seed, default=0, metavar="HEX",
                   help="the ROM signature's seed, 1-4 hex digits (default 0)")
    h.add_argument("--cents", type=_cents, metavar="N", help="a transfer's amount in cents")
    h.add_argument("--txid", metavar="ID", help="a transfer's transaction id (1-20 ASCII)")
    h.add_argument("--asset", type=int, metavar="N",
                   help="the machine's asset number (default: read from the machine)")
    h.add_argument("--timeout", type=float, default=0.5, metavar="S",
                   help="how long an answer may take (default 0.5 s)")
    h.add_argument("--json", action="store_true", help="one JSON object on stdout")
    h.set_defaults(func=cmd_host)


def cmd_host(args: argparse.Namespace) -> int:
    from drivers.sas.host import Host, HostPort
    from drivers.sas.host_actions import run_action

    if args.action in ("transfer-in", "transfer-out"):
        if args.cents is None or not args.txid:
            raise UserError(f"{args.action} needs --cents N and --txid ID")
        txid = args.txid.encode("ascii", "replace")
        if not 1 <= len(txid) <= 20 or not all(0x20 < b < 0x7F for b in txid):
            raise UserError("--txid: 1-20 printable ASCII characters without spaces")
    if not 0.01 <= args.timeout <= 10:
        raise UserError("--timeout: 0.01 to 10 seconds")
    if not os.path.exists(args.port):  # a mistyped path is the user's, not the line's
        raise UserError(f"{args.port}: no such serial device or pty (a bench table logs "
                        "'SAS link on PATH')")
    host = Host(HostPort.open(args.port), timeout=args.timeout)
    try:
        results: dict[str, Any] = {}
        for address in args.address or [1]:
            results[str(address)] = run_action(host, address, args)
    finally:
        host.port.close()
    if args.json:
        print(json.dumps({"port": args.port, "action": args.action, "machines": results},
                         indent=2, sort_keys=True))
    else:
        for address, res in results.items():
            print(f"address {address}: " + ", ".join(f"{k} {v}" for k, v in res.items()))
    ok = all(not r.get("error") for r in results.values())
    return 0 if ok else 1
