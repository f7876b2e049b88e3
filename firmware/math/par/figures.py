"""Every figure of one configuration's PAR sheet, in one object (:class:`ParFigures`).

What a lab re-derives: each wager's paytable lines (probability, payout, contribution;
they add up to the wager's return exactly), the distribution of a round's net result, its
standard deviation (per wager and for the round), the hit frequency and the win, push
and loss probabilities, the element of risk, the 90/95/99% ranges over a number of
rounds and the rounds after which the house is ahead at those levels, the insurance
wager's own edge and the largest win of a round. Lines and the unsplit rounds'
distribution are exact; the split rounds' distribution (their probability exact) comes
from :mod:`firmware.math.par.split_distribution`, so the figures that need it say so.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from firmware.math.games.house_edge import Analysis, analyse
from firmware.math.par.split_distribution import (
    SplitRounds,
    Stratum,
    simulate_splits,
    simulate_to_precision,
    strata_for_hitting,
)
from firmware.math.paytable import PaytableLine
from firmware.math.ruleset import GameRules
from firmware.math.wagers import BUST_PAYTABLE, PAIRED_STAKE, dealer_total_wagers, wager_key

#: the confidence levels of the ranges, and their two-sided normal quantiles
LEVELS = ((0.90, 1.6448536269514722), (0.95, 1.959963984540054), (0.99, 2.5758293035489004))
#: numbers of rounds the ranges are given for
SPANS = (100, 1_000, 10_000, 100_000, 1_000_000)


@dataclass
class ParFigures:
    rules: GameRules
    analysis: Analysis
    lines: list[PaytableLine]
    distribution: list[tuple[float, float]]  # (net of the round, probability)
    split: SplitRounds
    sd_round: float
    sd_by_wager: dict[str, float]
    p_win: float
    p_push: float
    p_loss: float
    total_wagered: float  # expected amount wagered per round (doubles and splits in)
    insurance: dict[str, float] = field(default_factory=dict)
    unsplit: dict[float, float] = field(default_factory=dict)  # exact: rounds without a split
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def house_edge(self) -> float:
        return self.analysis.house_edge

    @property
    def element_of_risk(self) -> float:
        return self.house_edge / self.total_wagered

    @property
    def hit_frequency(self) -> float:
        return self.p_win

    def sd_round_se(self) -> float:
        """The standard error the split rounds' simulation leaves on :attr:`sd_round`
        (so, relative, on every range; twice that on the rounds for the house to be
        ahead). The rounds without a split are exact."""
        s = self.split
        return s.probability * s.se_second / (2 * self.sd_round) if self.sd_round > 0 else 0.0

    def win_push_loss_se(self) -> tuple[float, float, float]:
        p = self.split.probability
        a, b, c = (p * math.sqrt(v) for v in self.split.wpl_var)
        return a, b, c

    def distribution_se(self) -> dict[float, float]:
        """Each distribution row's standard error (0 for a value only unsplit rounds
        reach), keyed as :attr:`distribution` is (nets rounded to 1e-9)."""
        out: dict[float, float] = {}
        for x, v in self.split.share_var.items():
            k = round(x, 9)
            out[k] = out.get(k, 0.0) + v
        return {k: self.split.probability * math.sqrt(v) for k, v in out.items()}

    def ranges(self) -> list[tuple[int, float, list[tuple[float, float]]]]:
        """(rounds, expected net, [(low, high) per level]) of the player's net."""
        out = []
        for n in SPANS:
            mean = -self.house_edge * n
            out.append((n, mean, [(mean - z * self.sd_round * math.sqrt(n),
                                   mean + z * self.sd_round * math.sqrt(n))
                                  for _, z in LEVELS]))
        return out

    def rounds_ahead(self) -> list[tuple[float, float | None]]:
        """(level, rounds after which the house is ahead with that probability; None when
        the house edge is not positive)."""
        return [(lvl, (z * self.sd_round / self.house_edge) ** 2 if self.house_edge > 0
                 else None) for lvl, z in LEVELS]

    def max_win(self) -> tuple[float, float]:
        """The largest net of a round in the distribution, and its probability."""
        net, p = max(self.distribution, key=lambda x: x[0])
        return net, p

    def max_win_unsplit(self) -> tuple[float, float]:
        """The largest net of a round without a split and its probability, both exact."""
        return max(self.unsplit.items(), key=lambda x: x[0]) if self.unsplit else (0.0, 0.0)

    def max_win_split(self) -> tuple[float, float]:
        """The largest net among the simulated split rounds, and its probability per round
        (P(split), exact, times its share of the simulated split rounds)."""
        if not self.split.outcomes:
            return 0.0, 0.0
        net, share = max(self.split.outcomes.items(), key=lambda x: x[0])
        return net, share * self.split.probability

    def _split_json(self) -> dict[str, Any]:
        s = self.split
        return {"probability": s.probability, "simulated": s.counted, "played": s.played,
                "strata": s.strata, "seed": s.seed, "sd_round_se": self.sd_round_se(),
                "win_push_loss_se": list(self.win_push_loss_se()),
                "calibrated_to_exact_mean": s.calibrated, "mean": s.mean,
                "simulated_mean": s.raw_mean, "simulated_mean_se": s.se_raw_mean,
                "largest_tilt": s.tilt}

    def to_json(self) -> dict[str, Any]:
        win, p = self.max_win()
        se = self.distribution_se()
        return {
            "rules": self.rules.to_json(), "rules_hash": self.rules.rules_hash,
            "rules_sha256": self.rules.rules_sha256,
            "house_edge": self.house_edge, "house_edge_total": self.analysis.house_edge_total,
            "return_to_player": 1 - self.analysis.house_edge_total,
            "element_of_risk": self.element_of_risk, "total_wagered": self.total_wagered,
            "wagers": self.analysis.wagers, "optional_wagers": self.analysis.optional,
            "lines": [{"wager": x.wager, "line": x.label, "probability": x.probability,
                       "payout": x.payout, "contribution": x.contribution,
                       "stake": x.stake, "exact": x.exact} for x in self.lines],
            "hit_frequency": self.hit_frequency, "win": self.p_win, "push": self.p_push,
            "loss": self.p_loss, "sd_round": self.sd_round, "sd_by_wager": self.sd_by_wager,
            "distribution": [{"net": n, "probability": q, "se": se.get(n, 0.0)}
                             for n, q in self.distribution],
            "split_rounds": self._split_json(),
            "ranges": [{"rounds": n, "expected": m,
                        "levels": {f"{lvl:.0%}": list(r) for (lvl, _), r in
                                   zip(LEVELS, rs, strict=True)}}
                       for n, m, rs in self.ranges()],
            "rounds_for_house_ahead": {f"{lvl:.0%}": r for lvl, r in self.rounds_ahead()},
            "max_win": {"net": win, "probability": p,
                        "unsplit": dict(zip(("net", "probability"), self.max_win_unsplit(),
                                            strict=True)),
                        "split_simulated": dict(zip(("net", "probability"),
                                                    self.max_win_split(), strict=True))},
            "insurance": self.insurance,
            "figures": self.analysis.figures, "method": self.analysis.method,
            "notes": self.notes, "seconds": round(self.seconds, 2),
        }


def par_figures(rules: GameRules, split_rounds: int | None = None) -> ParFigures:
    """The :class:`ParFigures` of ``rules`` (a finite shoe); ``split_rounds``: exactly
    that many split rounds simulated (default: as many as the sheet's precision needs)."""
    t0 = time.perf_counter()
    res = analyse(rules)
    n = split_rounds
    fig = _hitting(rules, res, n) if rules.hitting else _std(rules, res, n)
    reconcile(fig)
    fig.seconds = time.perf_counter() - t0
    return fig


#: how far a wager's paytable lines may add up from its certified figure (float sums)
AGREE = 1e-9


def reconcile(fig: ParFigures) -> dict[str, tuple[float, float]]:
    """Every wager's line total beside its certified figure ({wager: (lines, certified)});
    raises :class:`FiguresDisagree` when one differs by more than :data:`AGREE` or a wager
    has lines and no certified figure (or the other way round), or when the round's
    distribution, calibrated to the exact means, does not have the certified house edge
    for its mean. The sheet prints one figure per wager, so the two computations of it
    must agree before it is written."""
    from firmware.math.errors import FiguresDisagree

    certified = {**fig.analysis.wagers, **{k: v for k, v in fig.analysis.optional.items()
                                           if k != "insurance"}}
    totals: dict[str, float] = {}
    for x in fig.lines:
        totals[x.wager] = totals.get(x.wager, 0.0) + x.contribution
    if set(totals) != set(certified):
        raise FiguresDisagree(f"{fig.rules.variant}: paytable lines for {sorted(totals)}, "
                              f"certified figures for {sorted(certified)}")
    out = {}
    for w, tot in totals.items():
        if not abs(tot - certified[w]) <= AGREE:
            raise FiguresDisagree(f"{fig.rules.variant} ({fig.rules.shoe.label()}): the "
                                  f"{w} wager's lines add up to {tot:+.10f}, its certified "
                                  f"figure is {certified[w]:+.10f}")
        out[w] = (tot, certified[w])
    mean = sum(x * q for x, q in fig.distribution)
    if fig.split.calibrated and not abs(mean + fig.house_edge) <= AGREE:
        raise FiguresDisagree(f"{fig.rules.variant} ({fig.rules.shoe.label()}): the "
                              f"distribution's mean is {mean:+.10f}, the certified house "
                              f"edge {fig.house_edge:+.10f}")
    out["distribution"] = (mean, -fig.house_edge)
    if fig.insurance and "insurance" in fig.analysis.optional:
        ins, cert = fig.insurance["expected_net"], fig.analysis.optional["insurance"]
        if not abs(ins - cert) <= AGREE:
            raise FiguresDisagree(f"{fig.rules.variant}: insurance {ins:+.10f} against the "
                                  f"certified {cert:+.10f}")
        out["insurance"] = (ins, cert)
    return out


def _hitting(rules: GameRules, res: Analysis, n: int | None) -> ParFigures:
    from firmware.math.games.hitting.card_removal_par import line_counts

    lc = line_counts(rules)
    lines: list[PaytableLine] = []
    book = lc.book
    mults = sorted(set(lc.mult.tolist()))
    for i, ln in enumerate(book.lines):
        for m in (mults if ln.target else [None]):
            lanes = lc.mult == m if m is not None else slice(None)
            p = float((lc.lane_w[lanes] * lc.all_rounds[lanes, i]).sum())
            if p <= 0:
                continue
            label = ln.label + (f" at {m:g}x" if m is not None else "")
            lines.append(PaytableLine("blackjack", label, p,
                                      book.pay(ln, m if m is not None else 1.0), ln.stake))
    side = -float(rules.activator)
    if rules.bingo:
        lines.append(PaytableLine(wager_key(rules, PAIRED_STAKE), "Activator (every round; "
                                  "buys the target and multiplier draw)", 1.0, side,
                                  float(rules.activator)))
    dist: dict[float, float] = {}
    second_main = 0.0
    for lane, w in enumerate(lc.lane_w):
        for i, ln in enumerate(book.lines):
            c = lc.no_split[lane, i]
            if c > 0:
                net = book.pay(ln, float(lc.mult[lane]))
                dist[net + side] = dist.get(net + side, 0.0) + w * c
                second_main += w * c * net * net
    p_split = float(lc.lane_w @ lc.p_split)
    unsplit = dict(dist)
    split = _simulated(rules, strata_for_hitting(rules, lc), n,
                       sum(q * x * x for x, q in dist.items()), res.net)
    split.probability = p_split
    for net, share in split.outcomes.items():
        dist[net] = dist.get(net, 0.0) + p_split * share
    second_main += p_split * split.main_second
    mean = res.net
    second = sum(q * x * x for x, q in dist.items())
    sd = {"blackjack": math.sqrt(max(second_main - res.wagers["blackjack"] ** 2, 0.0))}
    if rules.bingo:
        sd[wager_key(rules, PAIRED_STAKE)] = 0.0
    stake = sum(x.probability * x.stake for x in lines)
    fig = _assemble(rules, res, lines, dist, split, math.sqrt(max(second - mean ** 2, 0.0)),
                    sd, stake)
    fig.unsplit = unsplit
    fig.insurance = _insurance(rules, lc.insurance_win, lc.p_insurance)
    for w, odds in dealer_total_wagers(rules):
        fig.lines += w.lines(odds, lc.p_dealer_22, _odds(odds))
        sd[w.key] = w.sd(odds, lc.p_dealer_22)
    return fig


def _std(rules: GameRules, res: Analysis, n: int | None) -> ParFigures:
    from firmware.math.games.split_to_double.paytable_lines import std_lines

    side = wager_key(rules, BUST_PAYTABLE)
    sl = std_lines(rules, res.wagers["blackjack"], res.wagers[side])
    exact = ((res.net - sum(x * q for x, q in sl.no_split.items())) / sl.p_split
             if sl.p_split else None)
    split = _simulated(rules, [Stratum(sl.p_split, tuple(sl.split_starts), exact)], n,
                       sum(q * x * x for x, q in sl.no_split.items()), res.net)
    dist = dict(sl.no_split)
    for net, share in split.outcomes.items():
        dist[net] = dist.get(net, 0.0) + sl.p_split * share
    second = sum(q * x * x for x, q in dist.items())
    sm = sum(q * x * x for x, q in sl.no_split_main.items()) + sl.p_split * split.main_second
    ss = sum(q * x * x for x, q in sl.no_split_side.items()) + sl.p_split * split.side_second
    sd = {"blackjack": math.sqrt(max(sm - res.wagers["blackjack"] ** 2, 0.0)),
          side: math.sqrt(max(ss - res.wagers[side] ** 2, 0.0))}
    # amount wagered: the unsplit rounds' lines are exact; a split round's from the
    # simulation of those rounds (its hands and doubles)
    stake = sum(x.probability * x.stake for x in sl.lines if x.stake
                and not x.label.startswith("Rounds with a split"))
    stake += sl.p_split * split.staked
    fig = _assemble(rules, res, sl.lines, dist, split,
                    math.sqrt(max(second - res.net ** 2, 0.0)), sd, stake)
    fig.unsplit = dict(sl.no_split)
    fig.insurance = _insurance(rules, *_std_insurance(rules))
    fig.notes.append("A round with a split is one line of the Blackjack wager (its hands "
                     "together; the certified return less the unsplit rounds' lines), and "
                     "its amount wagered comes from the simulation of split rounds.")
    return fig


def _simulated(rules: GameRules, strata: list[Stratum], n: int | None,
               unsplit_second: float, mean: float) -> SplitRounds:
    """The split rounds: exactly ``n`` when given, else as many as the sheet's precision
    needs (:func:`~firmware.math.par.split_distribution.simulate_to_precision`)."""
    if n is not None:
        return simulate_splits(rules, strata, n)
    return simulate_to_precision(rules, strata, unsplit_second, mean)


def _assemble(rules: GameRules, res: Analysis, lines: list[PaytableLine],
              dist: dict[float, float], split: SplitRounds, sd_round: float,
              sd: dict[str, float], stake: float) -> ParFigures:
    items = sorted((round(x, 9), q) for x, q in dist.items())
    merged: dict[float, float] = {}
    for x, q in items:
        merged[x] = merged.get(x, 0.0) + q
    out = sorted(merged.items())
    return ParFigures(rules, res, lines, out, split, sd_round, sd,
                      sum(q for x, q in out if x > 1e-9), sum(q for x, q in out
                                                              if abs(x) <= 1e-9),
                      sum(q for x, q in out if x < -1e-9), stake)


def _insurance(rules: GameRules, p_win: float, p_offered: float) -> dict[str, float]:
    """The insurance wager per unit insured, when offered (an ace up)."""
    odds = float(rules.insurance_pays)
    return {"p_offered": p_offered, "p_win": p_win,
            "expected_net": odds * p_win - (1 - p_win),
            "sd": (odds + 1) * math.sqrt(p_win * (1 - p_win))}


def _std_insurance(rules: GameRules) -> tuple[float, float]:
    from firmware.math.composition import initial_deals

    full = rules.shoe.counts()
    assert full is not None
    win = offered = 0.0
    for a, b, up, w in initial_deals(rules.shoe):
        if up != 1:
            continue
        c = list(full)
        for v in (a, b, up):
            c[v - 1] -= 1
        offered += float(w)
        win += float(w) * c[9] / sum(c)
    return (win / offered if offered else 0.0), offered


def _odds(x: Any) -> str:
    from fractions import Fraction

    f = Fraction(x)
    return f"{f.numerator}:{f.denominator}"


__all__ = ["AGREE", "LEVELS", "SPANS", "ParFigures", "par_figures", "reconcile"]
