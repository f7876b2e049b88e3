"""`etg floor`: certificates, the broker's configuration, the floor service, staff, load.

    etg floor certs --dir DIR --tables BJ-01,BJ-02   CA + broker/floor/table certificates
    etg floor broker --dir DIR --listen HOST:PORT    write mosquitto.conf + ACL, run it
    etg floor staff --dir DIR [--db URL] [--role R] NAME   add or reset a floor staff login
    etg floor staff --dir DIR [--db URL] remove NAME       remove a login, end its sessions
    etg floor serve --dir DIR [--start-broker]       subscriber + database + pit view
    etg floor table-config --dir DIR [--broker HOST:PORT] ID   the [floor] keys for a table
    etg floor load --dir DIR --tables N              N simulated tables (measure, demo)
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from etgcore.errors import UserError

DEFAULT_DIR = "var/floor"
DEFAULT_BROKER = "127.0.0.1:8883"


def _dir_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dir", default=DEFAULT_DIR, metavar="DIR",
                   help=f"the floor's directory: certificates, broker config, database "
                        f"({DEFAULT_DIR})")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("floor", parents=[common], help="the casino floor: broker, service, "
                       "pit view", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    fs = p.add_subparsers(dest="floor_command", metavar="ACTION")
    fs.required = True

    c = fs.add_parser("certs", parents=[common], help="create the floor CA and certificates",
                      description="Create (or extend) the floor CA, the broker's and the "
                      "floor service's certificates, and one client certificate per table.")
    _dir_arg(c)
    c.add_argument("--tables", default="", metavar="IDS", help="table ids, comma separated")
    c.add_argument("--json", action="store_true", help="print what was created as JSON")
    c.set_defaults(func=cmd_certs)

    b = fs.add_parser("broker", parents=[common], help="generate the Mosquitto config; run it",
                      description="Write mosquitto.conf and broker.acl into DIR (TLS only, "
                      "no anonymous clients, per-table ACL) and run mosquitto on it.")
    _dir_arg(b)
    b.add_argument("--listen", default=DEFAULT_BROKER, metavar="HOST:PORT",
                   help=f"where the broker listens ({DEFAULT_BROKER})")
    b.add_argument("--write-only", action="store_true", help="write the files, do not run")
    b.add_argument("--no-denied-log", action="store_true",
                   help="do not run Mosquitto's debug log (the only report of publishes the "
                   "ACL refused; it costs the broker some CPU per message)")
    b.set_defaults(func=cmd_broker)

    s = fs.add_parser("staff", parents=[common], help="add, reset or remove a floor staff "
                      "login", description="Store a floor staff member's scrypt-hashed "
                      "password (read from ETG_FLOOR_PASSWORD, else asked for) and role, or "
                      "remove a login ('remove NAME'); either ends the login's sessions.")
    _dir_arg(s)
    s.add_argument("words", nargs="+", metavar="NAME | remove NAME")
    s.add_argument("--role", choices=("viewer", "supervisor"), default="supervisor",
                   help="viewer: sees every page; supervisor (the default): may also "
                   "disable, enable, check software, acknowledge and clear")
    s.add_argument("--db", metavar="URL", help="floor database (DIR/floor.sqlite)")
    s.set_defaults(func=cmd_staff)

    _serve_parser(fs, common)

    t = fs.add_parser("table-config", parents=[common], help="print a table's [floor] keys",
                      description="The --set options (or TOML) that connect a table to the "
                      "floor with its certificate.")
    _dir_arg(t)
    t.add_argument("table_id")
    t.add_argument("--broker", default=DEFAULT_BROKER, metavar="HOST:PORT")
    t.add_argument("--toml", action="store_true", help="print a [floor] TOML section")
    t.set_defaults(func=cmd_table_config)

    ld = fs.add_parser("load", parents=[common], help="simulated tables against a running "
                       "floor, counted",
                       description="Run N simulated tables against a running floor, sharded "
                       "over processes: each with its own journal, outbox and floor link "
                       "(or, --light, the same traffic built in memory). Prints what the "
                       "floor acknowledged (delivered, lost, duplicated with --db), the "
                       "table-to-floor latency and the floor's CPU and memory "
                       "(--floor-pid); exit 1 when anything was not delivered.")
    _dir_arg(ld)
    from firmware.cli.floor_load import add_load_options

    add_load_options(ld, DEFAULT_BROKER)


def _serve_parser(fs: Any, common: argparse.ArgumentParser) -> None:
    """``etg floor serve``: its options are the floor service's settings."""
    v = fs.add_parser("serve", parents=[common], help="the floor service and pit view",
                      description="Subscribe to every table, store into the floor database "
                      "(SQLite file, or PostgreSQL by URL) and serve the pit view.")
    _dir_arg(v)
    v.add_argument("--broker", default=DEFAULT_BROKER, metavar="HOST:PORT")
    v.add_argument("--start-broker", action="store_true",
                   help="also run mosquitto with the generated config (laptop, tests)")
    v.add_argument("--db", metavar="URL",
                   help="sqlite:PATH or postgresql://... (default DIR/floor.sqlite)")
    v.add_argument("--http", default="127.0.0.1:8080", metavar="HOST:PORT",
                   help="where the pit view listens (127.0.0.1:8080)")
    v.add_argument("--gaming-day-start", default="06:00", metavar="HH:MM",
                   help="when the gaming day begins, floor local time (06:00)")
    v.add_argument("--quarantine-after", type=int, default=20, metavar="N",
                   help="bad messages from one table within a minute that quarantine it (20)")
    v.add_argument("--approved-release", metavar="BUNDLE",
                   help="the approved release (.etgrel) software checks compare with")
    v.add_argument("--release-pubkey", metavar="PUB", help="its release public key (PEM)")
    v.add_argument("--check-software-every", type=float, default=0.0, metavar="MINUTES",
                   help="ask every online table for its software signature this often "
                   "(0: only when a supervisor asks)")
    v.add_argument("--software-check-deadline", type=float, default=120.0, metavar="SECONDS",
                   help="a table that has not answered a software check this long after it "
                   "was asked raises the software alarm (120)")
    v.set_defaults(func=cmd_serve)


def _db_url(args: argparse.Namespace) -> str:
    return str(args.db) if args.db else str(Path(args.dir) / "floor.sqlite")


def cmd_certs(args: argparse.Namespace) -> int:
    from firmware.floor.certs import make_floor_certs

    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    made = make_floor_certs(Path(args.dir), tables)
    if args.json:
        print(json.dumps({"dir": args.dir, "created": made}))
    else:
        print(f"{args.dir}: created {', '.join(made) if made else 'nothing (all exist)'}")
    return 0


def cmd_broker(args: argparse.Namespace) -> int:
    from firmware.floor.broker import DYNSEC_FILE, dynsec_plugin, write_config
    from firmware.floor.mqtt import parse_host_port

    host, port = parse_host_port(args.listen, "--listen")
    conf = write_config(Path(args.dir), port, host, log_denied=not args.no_denied_log)
    dynsec = Path(args.dir) / DYNSEC_FILE
    plugin = (f"the dynamic security plugin's state is {dynsec}" if dynsec_plugin() else
              "Mosquitto's dynamic security plugin is NOT installed: a quarantined table "
              "cannot be cut off at the broker (docs/floor.md)")
    print(f"wrote {conf} and {Path(args.dir) / 'broker.acl'}; {plugin}", flush=True)
    if args.write_only:
        return 0
    from firmware.floor.broker_process import BrokerSupervisor, run_until_stopped

    return run_until_stopped(BrokerSupervisor(Path(args.dir), host, port,
                                              log_denied=not args.no_denied_log))


def cmd_staff(args: argparse.Namespace) -> int:
    from firmware.floor.auth import add_staff, remove_staff
    from firmware.floor.db import Database

    words = list(args.words)
    if words[0] == "remove":
        if len(words) != 2:
            raise UserError("etg floor staff remove NAME: one name")
        if not remove_staff(Database(_db_url(args)), words[1]):
            raise UserError(f"floor staff {words[1]!r}: no such login")
        print(f"floor staff {words[1]}: removed, its sessions ended")
        return 0
    if len(words) != 1:
        raise UserError("etg floor staff NAME (or: remove NAME)")
    args.name = words[0]
    password = os.environ.get("ETG_FLOOR_PASSWORD")
    if password is None:
        import getpass

        try:  # getpass reads the terminal, else stdin: with neither it meets end of file
            password = getpass.getpass(f"password for {args.name}: ")
        except EOFError:
            raise UserError(f"floor staff {args.name}: no password (no terminal to ask it "
                            "on and nothing on stdin); set ETG_FLOOR_PASSWORD") from None
    add_staff(Database(_db_url(args)), args.name, password, args.role)
    print(f"floor staff {args.name}: password set ({args.role}; its sessions ended)")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from firmware.floor.gaming_day import parse_start
    from firmware.floor.mqtt import parse_host_port
    from firmware.floor.serve import ServeOptions, serve
    from firmware.floor.table_state import MAX_BAD

    bhost, bport = parse_host_port(args.broker, "--broker")
    hhost, hport = parse_host_port(args.http, "--http")
    try:
        day_start = parse_start(args.gaming_day_start)
    except ValueError as exc:
        raise UserError(f"--gaming-day-start {exc}") from None
    if not 1 <= args.quarantine_after <= MAX_BAD:
        raise UserError(f"--quarantine-after must be 1..{MAX_BAD}")
    if args.check_software_every < 0:
        raise UserError("--check-software-every must be 0 (never) or more minutes")
    if not 5 <= args.software_check_deadline <= 86400:
        raise UserError("--software-check-deadline must be 5..86400 seconds")
    approved, name = approved_release(args.approved_release, args.release_pubkey)
    if not (Path(args.dir) / "ca.pem").exists():
        raise UserError(f"{args.dir}: no floor CA (run etg floor certs --dir {args.dir})")
    return serve(ServeOptions(
        Path(args.dir), bhost, bport, _db_url(args), hhost, hport, args.start_broker,
        day_start_minutes=day_start, quarantine_after=args.quarantine_after,
        approved=approved, approved_name=name,
        check_software_every_s=args.check_software_every * 60,
        check_deadline_s=args.software_check_deadline))


def approved_release(bundle: str | None, pubkey: str | None) -> tuple[Any, str]:
    """``approved(seed)`` over the approved release's files (verified once, at start),
    and its name; (None, "") without one. The floor service is handed the function: the
    seeded signature is the release tooling's (deploy), which the floor never imports."""
    if bundle is None:
        if pubkey is not None:
            raise UserError("--release-pubkey goes with --approved-release BUNDLE")
        return None, ""
    if pubkey is None:
        raise UserError("--approved-release needs --release-pubkey PUB (the release key)")
    from deploy.bundle import verify_bundle
    from deploy.seeded_hmac import hmac_of_entries

    verified = verify_bundle(bundle, pubkey)
    files = list(verified.contents.files.items())
    return (lambda seed: hmac_of_entries(seed, files)), verified.release_id


def table_settings(floor_dir: Path, table_id: str, broker: str) -> dict[str, str]:
    from firmware.floor.certs import FLOOR_SERVICE, ca_paths, identity
    from firmware.floor.topics import valid_table_id

    if not valid_table_id(table_id):  # never the floor's own certificate or key
        raise UserError(f"table id {table_id!r}: not a table's id (floor, broker and ca are "
                        "the floor's own identities)")
    me = identity(floor_dir, table_id)
    if not me.cert.exists():
        raise UserError(f"no certificate for table {table_id} in {floor_dir} "
                        f"(etg floor certs --dir {floor_dir} --tables {table_id})")
    return {"broker": broker, "ca": str(ca_paths(floor_dir).cert.resolve()),
            "cert": str(me.cert.resolve()), "key": str(me.key.resolve()),
            "command_cert": str(identity(floor_dir, FLOOR_SERVICE).cert.resolve())}


def cmd_table_config(args: argparse.Namespace) -> int:
    keys = table_settings(Path(args.dir), args.table_id, args.broker)
    if args.toml:
        print("[floor]")
        for k, v in keys.items():
            print(f"{k} = {json.dumps(v)}")
    else:
        print(" ".join([f"--set table.table_id={args.table_id}"]
                       + [f"--set floor.{k}={v}" for k, v in keys.items()]))
    return 0
