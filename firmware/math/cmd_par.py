"""`etg par`: the expected return of a variant by calculation, and its PAR sheet."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "par", parents=[common], help="expected return by calculation; PAR sheet",
        description="Compute the expected return of a variant (combinatorial analysis with "
        "the computed basic strategy), every wager's return, and write a PAR sheet.",
    )
    from firmware.cli_options import add_out, count
    from firmware.math.options import add_rules_options

    add_rules_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_out(p, "write the PAR sheet (Markdown, HTML and PNG plots) into DIR (created when "
            "missing)")
    p.add_argument("--sim-rounds", type=count, default=2_000_000, metavar="N",
                   help="rounds of the fast simulation for the outcome distribution in the "
                        "PAR sheet (default 2,000,000)")
    p.add_argument("--choose-weights", action="store_true",
                   help="Bingo: compute and print default weight tables for a 97 percent return")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from firmware.math.analysis import analyse
    from firmware.math.options import rules_from_args

    rules = rules_from_args(args)
    if args.out:
        from firmware.errors import output_dir

        output_dir(args.out)  # before the computation: a wrong --out costs no time
    res = analyse(rules)
    if args.choose_weights:
        from firmware.errors import UserError
        from firmware.math.bingo_weights import choose_weights

        if res.by_lane is None:
            raise UserError("--choose-weights is for Bingo (--variant bingo)")
        ch = choose_weights(res.by_lane, rules)
        print(json.dumps({"target_weights": list(ch.target_weights),
                          "multiplier_weights": list(ch.multiplier_weights),
                          "alpha": ch.alpha, "return_to_player": ch.rtp}, indent=2))
        return 0
    if args.out:
        from firmware.math.parsheet import write_par_sheet

        path = write_par_sheet(res, args.out, sim_rounds=args.sim_rounds)
        if not args.json:
            print(f"PAR sheet written: {path}")
    if args.json:
        print(json.dumps(res.to_json(), indent=2, sort_keys=True))
        return 0
    print(f"{rules.variant}: {rules.shoe.label()}  (rules {rules.rules_hash})")
    for name, v in res.wagers.items():
        print(f"  {name:<20} {v:+.6f} per unit of the Blackjack wager")
    for name, v in res.optional.items():
        print(f"  optional {name:<11} {v:+.6f} per unit of its own stake")
    print(f"  house edge           {res.house_edge:.4%} of the Blackjack wager")
    print(f"  house edge (total)   {res.house_edge_total:.4%} of everything staked "
          f"(return to player {1 - res.house_edge_total:.4%})")
    print(f"  computed in {res.seconds:.1f} s; method: {res.method}")
    return 0
