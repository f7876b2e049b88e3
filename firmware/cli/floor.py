"""`etg floor`: certificates, the broker's configuration, the floor service, staff, load.

    etg floor certs --dir DIR --tables BJ-01,BJ-02   CA + broker/floor/table certificates
    etg floor broker --dir DIR --port 8883           write mosquitto.conf + ACL, run it
    etg floor staff --dir DIR NAME                   add or reset a floor staff login
    etg floor serve --dir DIR                        subscriber + database + pit view
    etg floor table-config --dir DIR ID              the [floor] keys for a table
    etg floor load --dir DIR --tables N              N simulated tables (measure, demo)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
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
    b.set_defaults(func=cmd_broker)

    s = fs.add_parser("staff", parents=[common], help="add or reset a floor staff login",
                      description="Store a floor staff member's scrypt-hashed password "
                      "(read from ETG_FLOOR_PASSWORD, else asked for).")
    _dir_arg(s)
    s.add_argument("name")
    s.add_argument("--db", metavar="URL", help="floor database (DIR/floor.sqlite)")
    s.set_defaults(func=cmd_staff)

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
    v.set_defaults(func=cmd_serve)

    t = fs.add_parser("table-config", parents=[common], help="print a table's [floor] keys",
                      description="The --set options (or TOML) that connect a table to the "
                      "floor with its certificate.")
    _dir_arg(t)
    t.add_argument("table_id")
    t.add_argument("--broker", default=DEFAULT_BROKER, metavar="HOST:PORT")
    t.add_argument("--toml", action="store_true", help="print a [floor] TOML section")
    t.set_defaults(func=cmd_table_config)

    ld = fs.add_parser("load", parents=[common], help="simulated tables through the real "
                       "outbox and publisher",
                       description="Run N simulated tables, each with its own journal, "
                       "outbox and floor link, publishing rounds, meters and events.")
    _dir_arg(ld)
    ld.add_argument("--tables", type=int, default=10, metavar="N")
    ld.add_argument("--broker", default=DEFAULT_BROKER, metavar="HOST:PORT")
    ld.add_argument("--rounds-per-s", type=float, default=1.0, metavar="R",
                    help="rounds per second per table (1.0)")
    ld.add_argument("--seconds", type=float, default=10.0, metavar="S", help="how long (10)")
    ld.add_argument("--json", action="store_true", help="print the result as JSON")
    ld.set_defaults(func=cmd_load)


def _host_port(text: str, what: str) -> tuple[str, int]:
    from firmware.floor.mqtt import parse_broker

    try:
        return parse_broker(text)
    except UserError:
        raise UserError(f"{what} {text!r}: give HOST:PORT") from None


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
    from firmware.floor.broker import mosquitto_binary, write_config

    host, port = _host_port(args.listen, "--listen")
    conf = write_config(Path(args.dir), port, host)
    print(f"wrote {conf} and {Path(args.dir) / 'broker.acl'}")
    if args.write_only:
        return 0
    sys.stdout.flush()
    os.execv(mosquitto_binary(), ["mosquitto", "-c", str(conf)])
    return 0  # pragma: no cover


def cmd_staff(args: argparse.Namespace) -> int:
    from firmware.floor.auth import add_staff
    from firmware.floor.db import Database

    password = os.environ.get("ETG_FLOOR_PASSWORD")
    if password is None:
        import getpass

        password = getpass.getpass(f"password for {args.name}: ")
    add_staff(Database(_db_url(args)), args.name, password)
    print(f"floor staff {args.name}: password set")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from firmware.floor.serve import ServeOptions, serve

    bhost, bport = _host_port(args.broker, "--broker")
    hhost, hport = _host_port(args.http, "--http")
    if not (Path(args.dir) / "ca.pem").exists():
        raise UserError(f"{args.dir}: no floor CA (run etg floor certs --dir {args.dir})")
    return serve(ServeOptions(Path(args.dir), bhost, bport, _db_url(args), hhost, hport,
                              args.start_broker))


def table_settings(floor_dir: Path, table_id: str, broker: str) -> dict[str, str]:
    from firmware.floor.certs import FLOOR_SERVICE, ca_paths, identity

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


def cmd_load(args: argparse.Namespace) -> int:
    from firmware.bench.floor_load import LoadOptions, run_load

    if not 1 <= args.tables <= 1000:
        raise UserError("--tables must be 1..1000")
    if args.rounds_per_s <= 0 or args.seconds <= 0:
        raise UserError("--rounds-per-s and --seconds must be positive")
    host, port = _host_port(args.broker, "--broker")
    res = run_load(LoadOptions(Path(args.dir), host, port, args.tables, args.rounds_per_s,
                               args.seconds), progress=not args.json)
    if args.json:
        print(json.dumps(res, sort_keys=True))
    else:
        print(f"{res['tables']} tables, {res['rounds']} rounds, {res['messages']} outbox "
              f"records in {res['seconds']:.1f} s ({res['messages_per_s']:.0f}/s published); "
              "outboxes drained: "
              f"{res['drained']}")
    return 0
