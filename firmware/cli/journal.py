"""`etg journal init`: a technician begins a new journal (the table's "RAM clear").

A production table never begins a journal by itself (firmware.journal.opening): a
missing, empty or damaged journal keeps it from playing until a technician decides. The
reason given is kept in the new journal's first record and in the system log, with the
user who ran the command; an existing journal is moved aside (``--archive``), never
overwritten.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from etgcore.cli_context import context


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "journal", parents=[common], help="the journal itself: begin a new one (technician)",
        description="Technician actions on the table's journal.",
    )
    jsub = p.add_subparsers(dest="journal_command", metavar="ACTION")
    jsub.required = True
    i = jsub.add_parser(
        "init", parents=[common], help="begin a new journal, with the reason (logged)",
        description="Begin a new, empty journal. Its first record keeps the reason and who "
        "began it. An existing journal is never overwritten: --archive moves it aside.",
    )
    i.add_argument("--reason", required=True, metavar="TEXT",
                   help="why a new journal begins (e.g. 'new SD card, ticket 4711')")
    i.add_argument("--archive", action="store_true",
                   help="move an existing journal aside (time-stamped name) first")
    i.add_argument("--journal", metavar="PATH", help="journal file (journal.path)")
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.set_defaults(func=cmd_init)


def cmd_init(args: argparse.Namespace) -> int:
    from firmware.journal.opening import init_journal

    cfg = context(args).load_config(args)
    path = args.journal or cfg.journal.path
    witness, why = None, ""
    if cfg.floor.broker:  # what the floor holds of this table: the new journal follows it
        from firmware.floor.witness_read import read_witness

        got = read_witness(cfg.floor, cfg.table.table_id, cfg.floor.witness_s)
        witness, why = got.witness, got.why
    journal, kept = init_journal(path, cfg.journal.key_path, args.reason,
                                 bench=cfg.bench, archive=args.archive, witness=witness)
    seq = journal.last_seq
    first = journal.record(1)
    journal.close()
    follows = ((first.body.get("journal") or {}).get("follows") or []) if first else []
    if args.json:
        print(json.dumps({"journal": str(path), "archived": str(kept) if kept else None,
                          "records": seq, "follows": follows,
                          "floor": None if not cfg.floor.broker else (
                              witness.to_json() if witness else why)}, sort_keys=True))
    else:
        if kept:
            print(f"the old journal was moved aside to {kept}")
        print(f"new journal {path} begun (reason kept in record 1)")
        for f in follows:
            who = "the floor's acknowledgement" if f.get("floor") else f"journal {f['journal']}"
            print(f"it follows {who}: record {f.get('seq')}, outbox message {f.get('n')}")
        if cfg.floor.broker and witness is None:
            print(f"the floor was not asked what it holds ({why}); if it holds records of "
                  "this table, its witness will refuse the new journal at start")
    return 0
