"""`etg config`: check a table configuration and list every key it may hold."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from etgcore.cli_context import context
from etgcore.errors import ConfigError, exit_code
from etgcore.options import add_json, print_json


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "config",
        help="check and show the table configuration",
        description="Validate the table configuration (with --set overrides) and show it.",
        parents=[common],
    )
    csub = p.add_subparsers(dest="config_command", metavar="ACTION")
    csub.required = True
    check = csub.add_parser(
        "check", help="validate and print 'ok'", parents=[common],
        description="Validate the configuration; exit 2 with the problem if it is wrong "
        "(with --json: {ok, source, variant, mode} or {ok: false, source, key, problem}).",
    )
    add_json(check)
    check.set_defaults(func=_check)
    show = csub.add_parser(
        "show", help="print the effective configuration as JSON", parents=[common],
        description="Print the configuration in force, after defaults and --set, as JSON.",
    )
    show.set_defaults(func=_show)
    keys = csub.add_parser(
        "keys", help="list every key, its type, default and meaning", parents=[common],
        description="List every configuration key with what it allows.",
    )
    keys.set_defaults(func=_keys)


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return [_plain(v) for v in obj]
    return obj


def _check(args: argparse.Namespace) -> int:
    try:
        cfg = context(args).load_config(args)
    except ConfigError as exc:
        if not args.json:
            raise
        # the finding is the answer a script asked for: what is wrong, and where
        print_json({"ok": False, "source": exc.source, "key": exc.key, "problem": exc.problem})
        return exit_code(exc)
    if args.json:
        print_json({"ok": True, "source": str(cfg.source), "variant": cfg.table.variant,
                    "mode": cfg.table.mode})
        return 0
    print(f"ok: {cfg.source} ({cfg.table.variant}, {cfg.table.mode} mode)")
    return 0


def _show(args: argparse.Namespace) -> int:

    cfg = context(args).load_config(args)
    print(json.dumps(_plain(cfg), indent=2, sort_keys=False))
    return 0


def _keys(args: argparse.Namespace) -> int:
    from firmware.config import describe_schema

    for key, allowed, default, doc in describe_schema():
        print(f"{key:28} {allowed:40} default {default:24} {doc}")
    return 0
