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
    from etgcore.options import add_out, count
    from firmware.cli.math_options import add_rules_options

    add_rules_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_out(p, "write the PAR sheet of every configuration the Rules Submission allows (deck "
            "counts x paytables x dealer rule; --set pins a setting) into DIR as Markdown, "
            "HTML and JSON, with PNG plots (created when missing); with --json also print "
            "the sheet's JSON")
    p.add_argument("--sim-rounds", type=count, default=None, metavar="N",
                   help="split rounds simulated per configuration for the distribution of "
                        "a round with a split, exactly N (default: at least 200,000 and as "
                        "many as it takes for the s.d. per round to carry a relative "
                        "standard error of at most 0.05%%, up to 4,000,000)")
    p.add_argument("--check", action="store_true",
                   help="also run a seeded fast-path simulation and print it beside the PAR "
                        "figure with its standard error (for every deck count the Rules "
                        "Submission allows, 1, 2, 4, 6 and 8 for blackjack's 1-8, unless --set "
                        "decks= is given); needs numba")
    p.add_argument("--check-rounds", type=count, default=10_000_000, metavar="N",
                   help="rounds per --check simulation (default 10,000,000; a figure a lab "
                        "signs wants at least 100,000,000)")
    p.add_argument("--choose-weights", action="store_true",
                   help="Bingo: compute and print default weight tables for a 97 percent return")
    from etgcore.options import add_progress

    add_progress(p)
    p.set_defaults(func=_run)


def _one_blas_thread() -> None:
    """One BLAS thread for the analysis unless the user chose otherwise: its matrix
    products are small (at most about 20,000 x 220 by 80), so numpy's BLAS threads
    save no time and their waiting costs CPU (measured: about 0.6 s more CPU for Split
    to Double's 2 s calculation; on a shared machine a core taken for nothing). Read
    once, when numpy is first imported: set before the analysis imports it."""
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _run(args: argparse.Namespace) -> int:
    _one_blas_thread()
    from firmware.cli.math_options import rules_from_args
    from firmware.math.games.house_edge import analyse

    rules = rules_from_args(args)
    if args.out:
        from etgcore.errors import output_dir

        output_dir(args.out)  # before the computation: a wrong --out costs no time
    from firmware.math.progress import shown

    with shown(_displays(args, rules.variant)):
        if args.check:
            return _check(args, rules)
        res = analyse(rules)
    if args.choose_weights:
        from etgcore.errors import UserError
        from firmware.math.games.bingo_weights import choose_weights

        if res.by_lane is None:
            raise UserError("--choose-weights is for Bingo (--variant bingo)")
        ch = choose_weights(res.by_lane, rules)
        print(json.dumps({"target_weights": list(ch.target_weights),
                          "multiplier_weights": list(ch.multiplier_weights),
                          "alpha": ch.alpha, "return_to_player": ch.rtp}, indent=2))
        return 0
    if args.out:
        return _sheet(args, rules)
    if args.json:
        print(json.dumps(res.to_json(), indent=2, sort_keys=True))
        return 0
    print(f"{rules.variant}: {rules.shoe.label()}  (rules {rules.rules_hash})")
    for name, v in res.wagers.items():
        print(f"  {name:<20} {v:+.6f} per unit of the Blackjack wager")
    for name, v in res.optional.items():
        print(f"  optional {name:<11} {v:+.6f} per unit of its own stake")
    print(f"  house edge           {res.house_edge:.4%} of the Blackjack wager")
    ins = res.optional.get("insurance")
    if ins:
        print(f"  insurance            house edge {-ins:.4%} of the insurance wager (never "
              "taken by the strategy)")
    print(f"  house edge (total)   {res.house_edge_total:.4%} of everything staked "
          f"(return to player {1 - res.house_edge_total:.4%})")
    print(f"  computed in {res.seconds:.1f} s; method: {res.method}")
    return 0


def _sheet(args: argparse.Namespace, rules: Any) -> int:
    """``--out``: the sheet of every configuration (the ``--set`` settings pinned)."""
    import time

    from etgcore.progress import progress_for
    from firmware.cli.math_options import pinned_settings
    from firmware.math.par import split_distribution as parsplits
    from firmware.math.par.configurations import configurations
    from firmware.math.par.sheet import write_sheet

    if args.sim_rounds is not None:  # exactly N: no precision target
        parsplits.SPLIT_ROUNDS = args.sim_rounds
        parsplits.SD_REL_SE = None
    pinned = pinned_settings(args)
    total = len(configurations(rules.variant, pinned))
    bar = progress_for(args.progress, total, "configurations", f"par {rules.variant}, sheet")
    t0 = time.perf_counter()
    try:
        path = write_sheet(rules.variant, args.out, pinned,
                           progress=lambda i, n, label: bar.advance(1))
    except BaseException:
        bar.close(finished=False)
        raise
    bar.close(finished=True)
    if args.json:
        print(path.with_suffix(".json").read_text(encoding="utf-8"))
    else:
        print(f"wrote {path} (the PAR sheet of {total} configuration(s) in "
              f"{time.perf_counter() - t0:.1f} s; its HTML, JSON and plots beside it)")
    return 0


def _displays(args: argparse.Namespace, variant: str) -> Any:
    """The analysis' stages (strategy, return) as progress lines on stderr, like every
    long command's: on a terminal unless --no-progress, elsewhere with --progress."""
    from etgcore.progress import progress_for

    def display(total: int, unit: str, label: str) -> Any:
        return progress_for(args.progress, total, unit, f"par {variant}, {label}")

    return display


def _check(args: argparse.Namespace, rules: Any) -> int:
    from etgcore.errors import UserError
    from firmware.math.par.check import check, deck_counts

    if args.check_rounds < 2:
        raise UserError(f"--check-rounds {args.check_rounds}: at least 2 rounds")
    decks = [rules.decks]
    if not any(str(o).split("=", 1)[0].strip() in ("decks", "rules.decks")
               for o in args.overrides or []):
        decks = list(deck_counts(rules.variant))
    out = []
    for d in decks:
        r = rules if d == rules.decks else rules.with_(decks=d)
        c = check(r, args.check_rounds)
        out.append(c)
        if not args.json:
            print(c.line(), flush=True)
    if args.json:
        print(json.dumps([c.to_json() for c in out], indent=2, sort_keys=True))
    return 0
