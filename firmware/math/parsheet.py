"""The PAR sheet a lab reads: rules, return per wager, Bingo tables, distribution, plots.

Written by ``etg par --out DIR`` as ``DIR/par-<variant>.md`` (and ``.html``) with PNG plots
drawn by matplotlib's Agg backend (no display needed). Means come from the calculation;
the outcome distribution, standard deviation and volatility come from a fast-path
simulation with a fixed seed (stated in the sheet), so the sheet is reproducible.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from etgcore.document import (
    Block,
    Bullets,
    Heading,
    Image,
    Paragraph,
    table,
    to_html,
    to_markdown,
)
from firmware.math import parplots as plots
from firmware.math.analysis import Analysis
from firmware.math.composition import remove
from firmware.math.dealer import OUTCOMES, dealer_distribution
from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS
from firmware.math.strategy_table import chart

SIM_SEED = 20260101
#: Split to Double's frozen-card approximation against the all-cards calculation, as
#: measured at each deck count the Rules Submission allows (docs/math.md, notes for the
#: lab; rerun: python -m firmware.math.stdallcards --decks N)
STD_DEPTH_RESIDUAL = {
    6: ('by up card, shipped minus all-cards, of the wager: 2 up -5.4e-06, 3 up -5.4e-06, '
        '4 up -5.4e-06, 5 up -5.6e-06, 6 up -5.5e-06, 7 up -5.7e-06, 8 up -6.6e-06, 9 up '
        '-1.5e-06, 10 up -1.3e-07, ace up +5.5e-08; whole figure -4.1e-05 (its edge, '
        '1.4289%, is 0.0041% above the exact 1.4248%)'),
    8: ('by up card, shipped minus all-cards, of the wager: 2 up -4.1e-06, 3 up -4.1e-06, '
        '4 up -4.1e-06, 5 up -4.2e-06, 6 up -4.2e-06, 7 up -4.3e-06, 8 up -5.0e-06, 9 up '
        '-1.1e-06, 10 up -1.1e-07, ace up +4.0e-08; whole figure -3.1e-05 (its edge, '
        '1.6273%, is 0.0031% above the exact 1.6242%)'),
}


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
                   "first order. Measured against the calculation that tracks every card "
                   "and computes every dealer law exactly, at "
                   + "; at ".join(f"{d} decks {m}" for d, m in STD_DEPTH_RESIDUAL.items())
                   + " (docs/math.md, notes for the lab).")
        out.append("Dealer laws: a Newton series at the shoe less the up card, exact to "
                   "the third differences (exact for up to three cards removed); measured "
                   "against exact laws for the same paths at 6 decks: below 2e-9 of the "
                   "wager for each up card measured (10, 6, 1, 2).")
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


def _rules_and_return(res: Analysis) -> list[Block]:
    r = res.rules
    out: list[Block] = [
        Paragraph(f"Rules hash `{r.rules_hash}`; reproduce with "
                  f"`etg par --variant {r.variant} --out DIR` (simulation seed {SIM_SEED})."),
        Heading("Rules (from the Rules Submission)"),
        table(["rule", "value"], [[k, v] for k, v in r.to_json().items()
                                  if v not in ((), None, [], "0:1")]),
        Heading("Return"),
        table(["wager", "expected net per unit of Blackjack wager", "stake"],
              [[k, f"{v:+.6f}", f"{res.stakes.get(k, 0):.2f}"] for k, v in res.wagers.items()]),
    ]
    items = [f"House edge (per unit of the Blackjack wager): **{res.house_edge:.4%}**",
             f"House edge (per unit of everything staked): **{res.house_edge_total:.4%}**",
             f"Return to player: **{1 - res.house_edge_total:.4%}**"]
    for k, v in res.optional.items():
        items.append(f"Optional wager {k}: {v:+.6f} per unit of its own stake"
                     + (" (not taken by the strategy)" if k == "insurance" and v == 0 else ""))
    items += [f"{k.replace('_', ' ')}: {v:.6g}" for k, v in res.figures.items()]
    out.append(Bullets(tuple(items)))
    if res.figures:
        out.append(Paragraph("The super bonus is counted at the reference wager; the envy "
                             "bonus is paid to other seats, so it is not in this seat's "
                             "house edge."))
    if res.by_lane is not None:
        from firmware.math.analysis import bingo_plain_return

        out.append(Paragraph(
            "**Assumption of the return above:** the player's decisions adapt to the "
            "target and multiplier drawn before the cards (the strategy printed below is "
            "solved for each of the 60 draws; the automatic players use it). A player who "
            "plays plain basic strategy whatever the draw (the same game's strategy "
            "without the target and multiplier) gets a return of "
            f"**{bingo_plain_return(r):.4%}**."))
    out += [Paragraph(f"Method: {res.method}. Computed in {res.seconds:.1f} s."),
            Heading("Approximations left, and their measured size", 3),
            Bullets(tuple(approximations(r)))]
    return out


def _dealer(res: Analysis) -> list[Block]:
    r = res.rules
    rows = []
    for up in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1):
        dist = dealer_distribution(r.shoe, remove(r.shoe.counts(), up), up,
                                   r.dealer_hits_soft_17)
        rows.append(["A" if up == 1 else up, *[f"{x:.6f}" for x in dist[:7]]])
    return [Heading("Dealer final totals (shoe less the up card, after the Blackjack check)"),
            table(["up", *OUTCOMES[:7]], rows)]


def _bingo(res: Analysis, d: Path, stem: str) -> list[Block]:
    from firmware.math.bingo_weights import choose_weights, total_return

    r, lanes = res.rules, res.by_lane
    assert lanes is not None
    ch = choose_weights(lanes, r)
    tw, mw = r.target_weights or (1,) * 10, r.multiplier_weights or (1,) * 6
    plots.bingo_grid(d / f"{stem}-bingo.png", lanes)
    return [
        Heading("Bingo: return by target and multiplier"),
        Paragraph("Main wager's expected net per unit when this target and multiplier are "
                  "drawn (strategy adapted to the draw), before the activator:"),
        table(["target", *[f"{m}x" for m in BINGO_MULTIPLIERS]],
              [[t, *[f"{lanes[(t, m)]:+.4f}" for m in BINGO_MULTIPLIERS]]
               for t in BINGO_TARGETS]),
        Heading("Weight tables", 3),
        Paragraph(f"In force: target_weights {list(tw)}, multiplier_weights {list(mw)}: "
                  f"return **{total_return(lanes, r, tw, mw):.4%}**."),
        Paragraph(
            "Derivation of the defaults (firmware/math/bingo_weights.py, reproduced by "
            "`etg par --variant bingo --choose-weights`): target weight inversely "
            "proportional to W_t = (R(t,5x) - R(t,2x)) / 3, the gain per unit of "
            "multiplier on target t, so every target adds the same to the return "
            f"(target_weights {list(ch.target_weights)}); multiplier weight proportional "
            f"to m^-alpha, alpha found by bisection for a 97% return: alpha = "
            f"{ch.alpha:.4f}, scaled to 10000 for 2x and rounded: multiplier_weights "
            f"{list(ch.multiplier_weights)}, return **{ch.rtp:.4%}** (band 95%-99%)."),
        Image(f"{stem}-bingo.png", "Bingo return by target and multiplier"),
    ]


def _distribution(res: Analysis, d: Path, stem: str, sim_rounds: int,
                  progress: bool | None) -> list[Block]:
    from firmware.math.rtp import run_rtp

    r = res.rules
    sim = run_rtp(r, sim_rounds, jobs=1, seed=SIM_SEED, fast=True, show=progress,
                  label="par: outcome distribution")
    n = sim.tally.rounds
    items = sorted(sim.tally.outcomes.items())
    sd = sim.stdev
    plots.outcomes(d / f"{stem}-outcomes.png", r.variant, items, n)
    ranges = []
    for k in (100, 1000, 10_000, 100_000):
        mean, half = -res.house_edge * k, 1.645 * sd * math.sqrt(k)
        ranges.append([f"{k:,}", f"{mean:+.1f}", f"{mean - half:+.1f} .. {mean + half:+.1f}"])
    return [
        Heading("Outcome distribution, standard deviation, volatility"),
        Paragraph(f"From {n:,} fast-path rounds (seed {SIM_SEED}); simulated house edge "
                  f"{sim.house_edge:.4%} ± {sim.stderr:.4%} (1 s.e.), calculated "
                  f"{res.house_edge:.4%}."),
        table(["net result (units)", "probability"],
              [[f"{c / 1000:+g}", f"{k / n:.6f}"] for c, k in items if k / n >= 1e-5]),
        Bullets((f"Standard deviation per round: **{sd:.4f}** units of the Blackjack wager",
                 f"Volatility index (90%, 1.645 x s.d.): **{1.645 * sd:.4f}**")),
        table(["rounds", "expected net", "90% range"], ranges),
        Image(f"{stem}-outcomes.png", "Outcome distribution"),
    ]


def _strategy(res: Analysis) -> list[Block]:
    c = chart(res.rules)
    out: list[Block] = [Heading("Strategy"), Paragraph(c.title), Paragraph(c.key)]
    for t in c.tables:
        out.append(table(["hand", *t.head], [[label, *cells] for label, cells in t.rows],
                         caption=t.title))
    out += [Paragraph(n) for n in c.notes]
    return out


def par_sheet_blocks(res: Analysis, out_dir: Path, sim_rounds: int = 2_000_000,
                     progress: bool | None = None) -> list[Block]:
    """Every block of the sheet (the plots are drawn into ``out_dir`` on the way)."""
    stem = f"par-{res.rules.variant}"
    blocks = _rules_and_return(res) + _dealer(res)
    if res.by_lane is not None:
        blocks += _bingo(res, out_dir, stem)
    return blocks + _distribution(res, out_dir, stem, sim_rounds, progress) + _strategy(res)


def write_par_sheet(res: Analysis, out_dir: str, sim_rounds: int = 2_000_000,
                    progress: bool | None = None) -> Path:
    """``par-<variant>.md`` and ``.html`` (real tables, from one list of blocks) and the
    plots in ``out_dir``; returns the Markdown file's path."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    stem = f"par-{res.rules.variant}"
    blocks = par_sheet_blocks(res, d, sim_rounds, progress)
    title = f"PAR sheet: {res.rules.variant}"
    (d / f"{stem}.md").write_text(to_markdown(title, blocks), encoding="utf-8")
    (d / f"{stem}.html").write_text(to_html(title, blocks), encoding="utf-8")
    return d / f"{stem}.md"
