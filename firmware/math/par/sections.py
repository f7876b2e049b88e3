"""The PAR sheet's sections, as document blocks (:mod:`firmware.math.par.sheet`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from etgcore.document import Block, Bullets, Heading, Image, Paragraph, table
from firmware.math.par.configurations import Configuration
from firmware.math.par.figures import LEVELS, ParFigures
from firmware.math.ruleset import GameRules
from firmware.math.wagers import wager_titles

#: the sheet's caption of the main wager's lines (every other wager's: its pricer's title,
#: :func:`~firmware.math.wagers.wager_titles` of the rules in force)
MAIN_TITLE = {"blackjack": "Blackjack wager (main)"}


def wager_names(rules: GameRules) -> dict[str, str]:
    """Each wager's caption on the sheet, from the declared wagers of ``rules``."""
    return {**MAIN_TITLE, **wager_titles(rules)}


def _pct(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}%}"


def summary(sheet: list[tuple[Configuration, ParFigures]]) -> list[Block]:
    rows = []
    for i, (c, f) in enumerate(sheet):
        ins = f.insurance.get("expected_net", 0.0)
        rows.append([str(i + 1), c.label(), _pct(f.house_edge),
                     _pct(1 - f.analysis.house_edge_total), _pct(f.element_of_risk),
                     f"{f.sd_round:.4f}", f"{f.hit_frequency:.4f}", _pct(-ins, 2)])
    return [Heading("Every allowed configuration"),
            Paragraph("House edge: expected loss per round per unit of the initial Blackjack "
                      "wager, every required wager counted. Return to player: per unit of "
                      "everything the required wagers stake at the start. Element of risk: "
                      "the house edge per unit of everything wagered in the round, doubles "
                      "and splits included. The first configuration is the Rules "
                      "Submission's default."),
            table(["#", "configuration", "house edge", "return to player", "element of risk",
                   "s.d. per round", "hit frequency", "insurance house edge"], rows)]


def method(rules: GameRules, sheet: list[tuple[Configuration, ParFigures]]) -> list[Block]:
    from firmware.math.par.notes import approximations

    f = sheet[0][1]
    return [Heading("Method and what is approximated"),
            Paragraph(f"Method: {f.analysis.method}."),
            Bullets(tuple(approximations(rules, sheet)))]


def not_priced_rows(variant: str) -> list[list[str]]:
    """(key, value in force by default, reason) of every Rules Submission key of
    ``variant`` the math does not price, then every wager it does not price: declared in
    :mod:`firmware.math.rule_table` and :mod:`firmware.math.wagers`, never left out."""
    from firmware.engine.rules import load_rules
    from firmware.math.ruleset import not_priced
    from firmware.math.wagers import not_priced_wagers

    rules = load_rules(variant, {}, "")
    rows = [[key, str(value), why] for key, value, why in not_priced(rules)]
    rows += [[f"wager {name}", "not priced", why]
             for name, why in not_priced_wagers(rules.game["mechanisms"]).items()]
    return rows


def not_priced_section(variant: str) -> list[Block]:
    return [Heading("What the math does not price"),
            Paragraph("Every key of the Rules Submission is either priced or listed here "
                      "with the reason it does not change the figures (or is not priced "
                      "yet); the math refuses a key that is neither."),
            table(["key", "default", "why it is not priced"], not_priced_rows(variant))]


def configuration(n: int, c: Configuration, f: ParFigures, d: Path,
                  plot_stem: str | None) -> list[Block]:
    r = f.rules
    out: list[Block] = [Heading(f"Configuration {n}: {c.label()}"),
                        Paragraph(f"Rules SHA-256 `{r.rules_sha256}`; "
                                  + ", ".join(f"`{k}={v}`" for k, v in c.overrides().items())
                                  + f"; computed in {f.seconds:.1f} s.")]
    out += _lines(f)
    if f.analysis.by_lane is not None:
        out += bingo(f, d, plot_stem)
    out += _round(f)
    out += _ranges(f)
    out += _distribution(f, d, plot_stem)
    return out


def _lines(f: ParFigures) -> list[Block]:
    out: list[Block] = [Heading("Paytable lines", 3)]
    wagers = list(dict.fromkeys(x.wager for x in f.lines))
    for w in wagers:
        rows = []
        tot = 0.0
        for x in f.lines:
            if x.wager != w:
                continue
            tot += x.contribution
            rows.append([x.label, f"{x.probability:.10f}", f"{x.payout + 0.0:+.6g}",
                         f"{x.contribution + 0.0:+.10f}"])
        rows.append(["**total (the wager's expected net)**", "", "", f"**{tot:+.10f}**"])
        out.append(table(["line", "probability (per round)", "net payout",
                          "contribution"], rows, caption=wager_names(f.rules).get(w, w)))
    ins = f.insurance
    if ins:
        odds = float(f.rules.insurance_pays)
        out.append(table(["line", "probability (per unit insured)", "net payout",
                          "contribution"],
                         [["Dealer Blackjack", f"{ins['p_win']:.10f}", f"{odds:+g}",
                           f"{odds * ins['p_win']:+.10f}"],
                          ["No dealer Blackjack", f"{1 - ins['p_win']:.10f}", "-1",
                           f"{-(1 - ins['p_win']):+.10f}"],
                          ["**total**", "", "", f"**{ins['expected_net']:+.10f}**"]],
                         caption="Insurance wager (optional; offered on an ace up, "
                                 f"probability {ins['p_offered']:.6f} per round; never taken "
                                 "by the strategy): its own house edge "
                                 f"{-ins['expected_net']:.4%}"))
    if f.analysis.figures:
        out.append(Paragraph("Further figures: " + "; ".join(
            f"{FIGURES.get(k, k.replace('_', ' '))}: {v:.6g}"
            for k, v in f.analysis.figures.items()) + "."))
    return out


#: what each of the analysis' extra figures is (Spanish 21's super bonus and envy bonus)
FIGURES = {"super_bonus_contribution": "super bonus's part of the Blackjack wager's "
           "return (units of the wager)",
           "p_super_bonus_per_round": "probability of a super bonus per round",
           "reference_wager_cents": "wager the fixed bonuses are counted at (cents)",
           "envy_per_other_seat_per_round": "envy bonus paid to each other seat per round "
           "(units of the reference wager)"}


def _round(f: ParFigures) -> list[Block]:
    split = f.split
    names = wager_names(f.rules)
    sd = "; ".join(f"{names.get(k, k)}: {v:.4f}" for k, v in f.sd_by_wager.items())
    if f.insurance:
        sd += f"; insurance (per unit insured): {f.insurance['sd']:.4f}"
    win, p = f.max_win_unsplit()
    swin, sp = f.max_win_split()
    ew, ep, el = f.win_push_loss_se()
    items = [
        f"House edge: **{_pct(f.house_edge)}** of the Blackjack wager; per unit staked at "
        f"the start **{_pct(f.analysis.house_edge_total)}**; return to player "
        f"**{_pct(1 - f.analysis.house_edge_total)}**",
        f"Element of risk: **{_pct(f.element_of_risk)}** (amount wagered per round "
        f"{f.total_wagered:.6f} units, doubles and splits included)",
        f"Round won / pushed / lost (net of every required wager): **{f.p_win:.6f}** / "
        f"**{f.p_push:.6f}** / **{f.p_loss:.6f}** (standard errors {ew:.1e} / {ep:.1e} / "
        f"{el:.1e}); hit frequency **{f.hit_frequency:.6f}**",
        f"Standard deviation per round (every required wager): **{f.sd_round:.4f}** "
        f"(standard error {f.sd_round_se():.4f}, {f.sd_round_se() / f.sd_round:.3%}); "
        f"per wager: {sd}",
        f"Largest win of a round without a split: **{win:+g}** units, probability "
        f"**{p:.6g}** (exact, 1 in {1 / p:,.0f})" if p > 0 else "No round without a split "
        "wins",
        f"Largest win of a split round among the {split.counted:,} simulated: **{swin:+g}** "
        f"units, probability about {sp:.3g} per round (1 in {1 / sp:,.0f}); a split round "
        "rarer than that (more hands doubled and won) can win more" if sp > 0 else
        "No split round was simulated",
        f"Rounds with a split: {split.probability:.6f} of the rounds (exact); their results' "
        f"distribution from {split.counted:,} simulated split rounds (seed {split.seed}"
        + (f"; {split.strata} strata, one per Bingo target and multiplier" if split.strata > 1
           else "") + ")" + _calibration(f),
    ]
    out: list[Block] = [Heading("The round", 3), Bullets(tuple(items))]
    return out + [Paragraph(n) for n in f.notes]


def _calibration(f: ParFigures) -> str:
    s = f.split
    if not s.counted or not s.calibrated:
        return ""
    return (f". Their exact mean net is {s.mean:+.10f} (the certified return less the "
            f"exact unsplit rounds); the simulation's own is {s.raw_mean:+.6f} (standard "
            f"error {s.se_raw_mean:.6f}), and its distribution is tilted exponentially to "
            f"the exact mean (no share's weight changed by more than {s.tilt:.1%}), so the "
            "distribution's mean is the certified house edge")


def _ranges(f: ParFigures) -> list[Block]:
    rows = []
    for n, mean, rs in f.ranges():
        rows.append([f"{n:,}", f"{mean:+.2f}", *[f"{lo:+.1f} .. {hi:+.1f}" for lo, hi in rs]])
    ahead = []
    for lvl, r in f.rounds_ahead():
        ahead.append(f"{lvl:.0%}: " + (f"{r:,.0f} rounds" if r is not None else
                                       "never (the house edge is not positive)"))
    rel = f.sd_round_se() / f.sd_round if f.sd_round else 0.0
    return [Heading("Ranges of the player's net (units of the Blackjack wager)", 3),
            table(["rounds", "expected", *[f"{lvl:.0%} range" for lvl, _ in LEVELS]], rows),
            Paragraph(f"Each range's half-width carries the s.d.'s relative standard error "
                      f"({rel:.3%})."),
            Paragraph("Rounds after which the house is ahead with that probability (normal "
                      "approximation, (z s.d. / house edge)^2; relative standard error "
                      f"{2 * rel:.3%}): " + "; ".join(ahead) + ".")]


def _distribution(f: ParFigures, d: Path, stem: str | None) -> list[Block]:
    se = f.distribution_se()
    rows = [[f"{x:+g}", f"{q:.10f}", f"{se[x]:.1e}" if se.get(x) else "exact"]
            for x, q in f.distribution if q >= 1e-9]
    out: list[Block] = [Heading("Distribution of a round's net (every required wager)", 3),
                        Paragraph("Standard error: what the split rounds' simulation leaves "
                                  "on the row (rows only unsplit rounds reach are exact)."),
                        table(["net (units)", "probability", "standard error"], rows)]
    if stem is not None:
        from firmware.math.par import plots as parplots

        parplots.outcomes(d / f"{stem}-outcomes.png", f.rules.variant,
                          [(round(x * 1000), q) for x, q in f.distribution], 1)
        out.append(Image(f"{stem}-outcomes.png", "Outcome distribution"))
    return out


def strategies(sheet: list[tuple[Configuration, ParFigures]]) -> list[Block]:
    """One chart per distinct strategy (deck count and dealer rule)."""
    from firmware.math.strategy.chart import chart

    out: list[Block] = [Heading("Strategy of the automatic players")]
    seen: set[Any] = set()
    for _, f in sheet:
        key = (f.rules.decks, f.rules.dealer_hits_soft_17)
        if key in seen:
            continue
        seen.add(key)
        c = chart(f.rules)
        out += [Heading(c.title, 3), Paragraph(c.key)]
        for t in c.tables:
            out.append(table(["hand", *t.head], [[label, *cells] for label, cells in t.rows],
                             caption=t.title))
        out += [Paragraph(n) for n in c.notes]
    return out


def dealer_tables(sheet: list[tuple[Configuration, ParFigures]]) -> list[Block]:
    from firmware.math.composition import remove
    from firmware.math.dealer.final_total import dealer_distribution
    from firmware.math.dealer.rule import OUTCOMES

    out: list[Block] = [Heading("Dealer's final totals (shoe less the up card, after the "
                                "Blackjack check)")]
    seen: set[Any] = set()
    for _, f in sheet:
        r = f.rules
        key = (r.decks, r.dealer_hits_soft_17)
        if key in seen:
            continue
        seen.add(key)
        rows = []
        for up in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1):
            dist = dealer_distribution(r.shoe, remove(r.shoe.counts(), up), up,
                                       r.dealer_hits_soft_17)
            rows.append(["A" if up == 1 else up, *[f"{x:.6f}" for x in dist[:7]]])
        out.append(table(["up", *OUTCOMES[:7]], rows, caption=f"{r.shoe.label()}, dealer "
                         f"{'hits' if r.dealer_hits_soft_17 else 'stands on'} soft 17"))
    return out


def bingo(f: ParFigures, d: Path, stem: str | None) -> list[Block]:
    """Bingo: the return by target and multiplier, the weights and their derivation, and
    the return of a player who ignores the draw."""
    from firmware.math.games.bingo_weights import choose_weights, total_return
    from firmware.math.games.house_edge import bingo_plain_return
    from firmware.math.par import plots as parplots
    from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS

    r, lanes = f.rules, f.analysis.by_lane
    assert lanes is not None
    ch = choose_weights(lanes, r)
    tw, mw = r.target_weights or (1,) * 10, r.multiplier_weights or (1,) * 6
    out: list[Block] = [
        Heading("Bingo: return by target and multiplier", 3),
        Paragraph("The Blackjack wager's expected net per unit when this target and "
                  "multiplier are drawn (strategy adapted to the draw), before the activator:"),
        table(["target", *[f"{m}x" for m in BINGO_MULTIPLIERS]],
              [[t, *[f"{lanes[(t, m)]:+.6f}" for m in BINGO_MULTIPLIERS]]
               for t in BINGO_TARGETS]),
        Paragraph(f"Weights in force: target_weights {list(tw)}, multiplier_weights "
                  f"{list(mw)}: return **{total_return(lanes, r, tw, mw):.4%}**."),
        Paragraph(
            "Derivation of the defaults (firmware/math/games/bingo_weights.py, reproduced by "
            "`etg par --variant bingo --choose-weights`): target weight inversely "
            "proportional to W_t = (R(t,5x) - R(t,2x)) / 3, the gain per unit of "
            "multiplier on target t, so every target adds the same to the return "
            f"(target_weights {list(ch.target_weights)}); multiplier weight proportional "
            f"to m^-alpha, alpha found by bisection for a 97% return: alpha = "
            f"{ch.alpha:.4f}, scaled to 10000 for 2x and rounded: multiplier_weights "
            f"{list(ch.multiplier_weights)}, return **{ch.rtp:.4%}** (band 95%-99%)."),
        Paragraph(
            "**Assumption of the return above:** the player's decisions adapt to the target "
            "and multiplier drawn before the cards (the strategy is solved for each of the "
            "60 draws; the automatic players use it). A player who plays the same game's "
            "strategy without the target and multiplier, whatever the draw, gets a return "
            f"of **{bingo_plain_return(r):.4%}**."),
    ]
    if stem is not None:
        parplots.bingo_grid(d / f"{stem}-bingo.png", lanes)
        out.append(Image(f"{stem}-bingo.png", "Bingo return by target and multiplier"))
    return out
