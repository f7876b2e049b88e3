"""Split to Double's shipped figure against the all-cards calculation, by up card.

Why: the shipped calculation
(:func:`~firmware.math.games.split_to_double.all_cards_return.std_exact_value` at its default depth,
dealer laws by Newton series) freezes the composition after the third further card of a round. The
residual of that approximation is what a lab wants stated, measured: this compares it, up card by up
card, with the calculation that tracks every card and computes every dealer law exactly (``depth=99,
dealer="exact"``). Minutes of CPU and several GB of memory per up card (the 2 up is the largest), so
each up card can be run on its own (``--up``) and the lines gathered.

    python -m firmware.math.games.split_to_double.all_cards_by_up_card --decks 8 [--up 6] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def compare(decks: int, up: int) -> dict[str, float | int]:
    """Seat value (main + Blackjack or Bust, per unit of the wager, weighted by the up
    card's probability) from the up card ``up``: all cards, shipped, and CPU seconds."""
    from firmware.math.games.split_to_double.all_cards_return import std_exact_value
    from firmware.math.ruleset import load
    from firmware.math.strategy.basic import strategy_for

    rules = load("split-to-double", {"decks": decks})
    strategy = strategy_for(rules)
    m, b, _ = std_exact_value(rules, strategy, ups=(up,))
    c0 = time.process_time()
    em, eb, laws = std_exact_value(rules, strategy, depth=99, ups=(up,), dealer="exact")
    return {"decks": decks, "up": up, "all_cards": em + eb, "shipped": m + b,
            "shipped_minus_all_cards": (m + b) - (em + eb), "exact_laws": laws,
            "cpu_seconds": round(time.process_time() - c0, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m firmware.math.games.split_to_double.all_cards_by_up_card",
        description=__doc__.split("\n\n")[0])
    p.add_argument("--decks", type=int, default=6)
    p.add_argument("--up", type=int, action="append", choices=range(1, 11),
                   help="up card (1 = ace); repeat; default every up card")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    a = p.parse_args(argv)
    total = 0.0
    for up in a.up or range(1, 11):
        r = compare(a.decks, up)
        total += float(r["shipped_minus_all_cards"])
        if a.json:
            print(json.dumps(r), flush=True)
        else:
            print(f"{a.decks} decks, up {up:>2}: all cards {r['all_cards']:+.10f}  shipped "
                  f"{r['shipped']:+.10f}  shipped - all cards "
                  f"{r['shipped_minus_all_cards']:+.1e}  ({r['cpu_seconds']} s CPU)",
                  flush=True)
    if not a.json:
        print(f"sum over these up cards: {total:+.2e} of the wager", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
