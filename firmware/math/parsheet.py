"""The PAR sheet a lab reads: rules, return per wager, Bingo tables, distribution, plots.

Written by ``etg par --out DIR`` as ``DIR/par-<variant>.md`` (and ``.html``) with PNG plots
drawn by matplotlib's Agg backend (no display needed). Means come from the calculation;
the outcome distribution, standard deviation and volatility come from a fast-path
simulation with a fixed seed (stated in the sheet), so the sheet is reproducible.
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

from firmware.math.analysis import Analysis
from firmware.math.composition import remove
from firmware.math.dealer import OUTCOMES, dealer_distribution
from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS
from firmware.math.strategy_table import render

SIM_SEED = 20260101


def approximations(r: Any) -> list[str]:
    """What the calculation of ``r`` still approximates, with the size measured
    (docs/math.md, "Validation", says how each was measured and how to rerun it)."""
    out = ["Floating point: float64 throughout; the dealer's law is within 1e-13 of the "
           "exact rational one (tests/math)."]
    if not r.hitting and not r.shoe.infinite:
        from firmware.math.stdexact import DEPTH

        out.append(f"Card removal: the player's first {DEPTH} further cards of a round are "
                   "removed exactly; later ones (resplits, a second hand's double) are "
                   "drawn from the composition left then and removed for the dealer to "
                   "first order. Measured at 6 decks against the calculation that tracks "
                   "every card: 1.4e-7 of the wager for the starts with a 10 up; the "
                   "whole figure against tracking one card fewer and against a 10^8-round "
                   "fast-path run: docs/math.md, notes for the lab.")
    elif not r.shoe.infinite:
        out.append("Card removal: after the first three cards, the player's further cards "
                   "are drawn from the composition those three leave, and split hands are "
                   "valued independently. Measured against published exact figures: within "
                   "0.004% of the wager at 5 decks; fast-path runs of 10^8 rounds agree "
                   "within 2 standard errors (docs/math.md).")
    else:
        out.append("None from card removal (infinite deck).")
    if r.spanish_bonuses is not None:
        out.append("Suits: bonus odds are averaged over the suits with exact counts; the "
                   "strategy reads suits only for an initial 7-7 against a 7 while the super "
                   "bonus is live (split hands 7-7 are played suit-blind).")
    return out


def _md_table(head: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def write_par_sheet(res: Analysis, out_dir: str, sim_rounds: int = 2_000_000) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from firmware.math.rtp import run_rtp

    r = res.rules
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    stem = f"par-{r.variant}"
    L: list[str] = [f"# PAR sheet: {r.variant}", ""]
    L.append(f"Rules hash `{r.rules_hash}`; reproduce with "
             f"`etg par --variant {r.variant} --out DIR` (simulation seed {SIM_SEED}).")
    L += ["", "## Rules (from the Rules Submission)", ""]
    L += _md_table(["rule", "value"], [[k, v] for k, v in r.to_json().items()
                                      if v not in ((), None, [], "0:1")])
    L += ["", "## Return", ""]
    rows = [[k, f"{v:+.6f}", f"{res.stakes.get(k, 0):.2f}"] for k, v in res.wagers.items()]
    L += _md_table(["wager", "expected net per unit of Blackjack wager", "stake"], rows)
    L += ["", f"* House edge (per unit of the Blackjack wager): **{res.house_edge:.4%}**",
          f"* House edge (per unit of everything staked): **{res.house_edge_total:.4%}**",
          f"* Return to player: **{1 - res.house_edge_total:.4%}**"]
    for k, v in res.optional.items():
        L.append(f"* Optional wager {k}: {v:+.6f} per unit of its own stake"
                 + (" (not taken by the strategy)" if k == "insurance" and v == 0 else ""))
    for k, v in res.figures.items():
        L.append(f"* {k.replace('_', ' ')}: {v:.6g}")
    if res.figures:
        L.append("  (super bonus counted at the reference wager; the envy bonus is paid to "
                 "other seats, so it is not in this seat's house edge)")
    if res.by_lane is not None:
        from firmware.math.analysis import bingo_plain_return

        L += ["", "**Assumption of the return above:** the player's decisions adapt to the "
              "target and multiplier drawn before the cards (the strategy printed below is "
              "solved for each of the 60 draws; the automatic players use it). A player who "
              "plays plain basic strategy whatever the draw (the same game's strategy "
              "without the target and multiplier) gets a return of "
              f"**{bingo_plain_return(r):.4%}**."]
    L += ["", f"Method: {res.method}. Computed in {res.seconds:.1f} s.", ""]
    L += ["### Approximations left, and their measured size", ""]
    L += [f"* {a}" for a in approximations(r)]
    L += [""]
    # dealer table
    L += ["## Dealer final totals (shoe less the up card, after the Blackjack check)", ""]
    drows = []
    for up in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1):
        dist = dealer_distribution(r.shoe, remove(r.shoe.counts(), up), up,
                                   r.dealer_hits_soft_17)
        drows.append(["A" if up == 1 else up, *[f"{x:.6f}" for x in dist[:7]]])
    L += _md_table(["up", *OUTCOMES[:7]], drows)
    # Bingo
    if res.by_lane is not None:
        from firmware.math.bingo_weights import choose_weights, total_return

        L += ["", "## Bingo: return by target and multiplier", "",
              "Main wager's expected net per unit when this target and multiplier are drawn "
              "(strategy adapted to the draw), before the activator:", ""]
        brows = [[t, *[f"{res.by_lane[(t, m)]:+.4f}" for m in BINGO_MULTIPLIERS]]
                 for t in BINGO_TARGETS]
        L += _md_table(["target", *[f"{m}x" for m in BINGO_MULTIPLIERS]], brows)
        ch = choose_weights(res.by_lane, r)
        tw, mw = r.target_weights or (1,) * 10, r.multiplier_weights or (1,) * 6
        L += ["", "### Weight tables", "",
              f"In force: target_weights {list(tw)}, multiplier_weights {list(mw)}: return "
              f"**{total_return(res.by_lane, r, tw, mw):.4%}**.", "",
              "Derivation of the defaults (firmware/math/bingo_weights.py, reproduced by "
              "`etg par --variant bingo --choose-weights`): target weight inversely "
              "proportional to W_t = (R(t,5x) - R(t,2x)) / 3, the gain per unit of "
              "multiplier on target t, so every target adds the same to the return "
              f"(target_weights {list(ch.target_weights)}); multiplier weight proportional "
              f"to m^-alpha, alpha found by bisection for a 97% return: alpha = "
              f"{ch.alpha:.4f}, scaled to 10000 for 2x and rounded: multiplier_weights "
              f"{list(ch.multiplier_weights)}, return **{ch.rtp:.4%}** (band 95%-99%).", ""]
        fig, ax = plt.subplots(figsize=(7, 5))
        grid = np.array([[res.by_lane[(t, m)] for m in BINGO_MULTIPLIERS] for t in BINGO_TARGETS])
        im = ax.imshow(grid, aspect="auto", cmap="viridis")
        ax.set_xticks(range(6), [f"{m}x" for m in BINGO_MULTIPLIERS])
        ax.set_yticks(range(10), [str(t) for t in BINGO_TARGETS])
        ax.set_xlabel("multiplier")
        ax.set_ylabel("target")
        ax.set_title("Main wager return by Bingo target and multiplier")
        fig.colorbar(im, ax=ax, label="expected net per unit")
        fig.tight_layout()
        fig.savefig(d / f"{stem}-bingo.png", dpi=100)
        plt.close(fig)
        L += [f"![Bingo return]({stem}-bingo.png)", ""]
    # distribution by simulation
    sim = run_rtp(r, sim_rounds, jobs=1, seed=SIM_SEED, fast=True)
    n = sim.tally.rounds
    items = sorted(sim.tally.outcomes.items())
    sd = sim.stdev
    L += ["## Outcome distribution, standard deviation, volatility", "",
          f"From {n:,} fast-path rounds (seed {SIM_SEED}); simulated house edge "
          f"{sim.house_edge:.4%} ± {sim.stderr:.4%} (1 s.e.), calculated {res.house_edge:.4%}.",
          ""]
    L += _md_table(["net result (units)", "probability"],
                   [[f"{c / 1000:+g}", f"{k / n:.6f}"] for c, k in items if k / n >= 1e-5])
    L += ["", f"* Standard deviation per round: **{sd:.4f}** units of the Blackjack wager",
          f"* Volatility index (90%, 1.645 x s.d.): **{1.645 * sd:.4f}**", ""]
    L += _md_table(["rounds", "expected net", "90% range"], [
        [f"{k:,}", f"{-res.house_edge * k:+.1f}",
         f"{-res.house_edge * k - 1.645 * sd * math.sqrt(k):+.1f} .. "
         f"{-res.house_edge * k + 1.645 * sd * math.sqrt(k):+.1f}"]
        for k in (100, 1000, 10_000, 100_000)])
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [c / 1000 for c, _ in items]
    ys = [k / n for _, k in items]
    ax.bar(xs, ys, width=0.4)
    ax.set_yscale("log")
    ax.set_xlabel("net result of a round (units of the Blackjack wager)")
    ax.set_ylabel("probability")
    ax.set_title(f"{r.variant}: outcome distribution")
    fig.tight_layout()
    fig.savefig(d / f"{stem}-outcomes.png", dpi=100)
    plt.close(fig)
    L += ["", f"![Outcome distribution]({stem}-outcomes.png)", ""]
    L += ["## Strategy", "", "```", render(r), "```", ""]
    md = "\n".join(L)
    (d / f"{stem}.md").write_text(md, encoding="utf-8")
    body = html.escape(md)
    imgs = "".join(f'<p><img src="{p.name}"></p>' for p in sorted(d.glob(f"{stem}-*.png")))
    (d / f"{stem}.html").write_text(
        f"<!doctype html><meta charset='utf-8'><title>PAR {r.variant}</title>"
        f"<pre>{body}</pre>{imgs}", encoding="utf-8")
    return d / f"{stem}.md"
