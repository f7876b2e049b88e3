"""`etg strategy`: print the computed basic strategy of a variant as a table."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "strategy", parents=[common], help="print the computed basic strategy",
        description="Compute the total-dependent basic strategy of a variant from the exact "
        "dealer probabilities of its Rules Submission and print it as a table.",
    )
    from firmware.cli.math_options import add_rules_options

    add_rules_options(p)
    p.add_argument("--bingo", metavar="TARGET:MULT", default=None,
                   help="Bingo: the table for this drawn target and multiplier (e.g. 17:10)")
    from etgcore.options import add_json

    add_json(p, "one JSON object: the tables (a row per hand, an action per up card) and "
             "notes")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from etgcore.errors import UserError
    from firmware.cli.math_options import rules_from_args
    from firmware.math.strategy.chart import chart

    rules = rules_from_args(args)
    bingo = None
    if args.bingo and rules.variant != "bingo":
        raise UserError(f"--bingo is for Bingo Blackjack (--variant bingo); the game here is "
                        f"{rules.variant}")
    if args.bingo:
        try:
            t, m = (int(x) for x in args.bingo.split(":"))
        except ValueError:
            raise UserError(f"--bingo {args.bingo!r}: expected TARGET:MULT, e.g. 17:10") from None
        bingo = (t, m)
    c = chart(rules, bingo)
    if args.json:
        from etgcore.options import print_json

        print_json(c.to_json())
    else:
        print(c.text())
    return 0
