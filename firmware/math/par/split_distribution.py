"""The distribution of a split round's net result: simulated, stratified, calibrated.

A round without a split holds one hand, so its result's distribution is exact from the
paytable lines (:mod:`firmware.math.games.hitting.card_removal_par`,
:mod:`firmware.math.games.split_to_double.paytable_lines`). A split round's hands are dependent (the
dealer's one total, the cards they share), and the shape of its results comes from the fast path
(:mod:`firmware.math.simulation.fast_path`) playing only those rounds. Three things make that shape
agree with the exact figures within a stated error at a bounded cost:

* **Counted split rounds, as many as the precision needs.** :data:`SPLIT_ROUNDS` is the
  fewest split rounds counted (not rounds played: the share of forced starts that split
  is exact, so the rounds to play follow from it). The sheet then takes as many more as
  it needs for its s.d. per round to carry a relative standard error of at most
  :data:`SD_REL_SE` (:func:`simulate_to_precision`; 200,000 suffice for most
  configurations, Bingo and Split to Double need several times that).
* **Strata.** Bingo's split rounds are simulated lane by lane (each target and
  multiplier drawn alone, its rounds in proportion to its exact weight times the
  multiplier squared: the spread of a round's squared net grows with it, so this is the
  allocation that makes the second moment's error smallest), then weighted by each lane's exact
  probability of a split: the multiplier draw's frequency adds no noise. The other games
  are one stratum.
* **Calibration to the exact mean.** The exact expected net of a stratum's split rounds
  is known (the certified return less the exact unsplit lines). Each stratum's simulated
  distribution is tilted exponentially (weights ``exp(lambda x)``, the smallest change in
  the sense of relative entropy) so its mean is that figure: the distribution's mean then
  *is* the certified house edge, and the tilt, a fraction of a standard error, is stated.

Every figure taken from the simulation carries a standard error (:class:`SplitRounds`
``se_*``): of the second moment (so of every standard deviation and range), of each
distribution row and of the win / push / loss probabilities. The seed is fixed, so the
sheet is reproducible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from firmware.math.ruleset import GameRules

#: fewest split rounds counted per configuration for the PAR sheet (not rounds played),
#: and the seed
SPLIT_ROUNDS = 200_000
SPLIT_SEED = 20260301
#: the relative standard error the simulated part may leave on a sheet's s.d. per round
#: (so on its ranges; twice that on the rounds for the house to be ahead); None: exactly
#: SPLIT_ROUNDS (``etg par --sim-rounds``)
SD_REL_SE: float | None = 5e-4
#: most split rounds counted per configuration to reach it
MAX_SPLIT_ROUNDS = 4_000_000
#: fewest split rounds counted in one stratum
MIN_STRATUM = 2_000


@dataclass(frozen=True)
class Stratum:
    """Split rounds of one kind: their joint probability (a round is of this stratum and
    splits), the forced starts (a, b, up, weight), the exact mean of their net (None:
    unknown) and Bingo's lane (target index, multiplier index) or None."""

    weight: float
    starts: tuple[tuple[int, int, int, float], ...]
    mean: float | None = None
    lane: tuple[int, int] | None = None
    scale: float = 1.0  # rounds allotted in proportion to weight x scale
    lane_weight: float = 1.0  # P(the round is of this lane): Bingo's lane draw, else 1


@dataclass
class SplitRounds:
    """Net result (units of the Blackjack wager, every required wager) of split rounds,
    with the standard error of each figure taken from the simulation."""

    probability: float  # P(a round splits), exact
    counted: int = 0  # split rounds simulated (every stratum)
    played: int = 0  # rounds played to count them
    strata: int = 0
    seed: int = SPLIT_SEED
    outcomes: dict[float, float] = field(default_factory=dict)  # net -> share, calibrated
    share_var: dict[float, float] = field(default_factory=dict)  # net -> variance of share
    mean: float = 0.0  # calibrated: exact when every stratum's mean is known
    raw_mean: float = 0.0  # the simulation's own, before calibration
    se_raw_mean: float = 0.0
    second: float = 0.0  # mean of net squared (calibrated)
    se_second: float = 0.0
    main_second: float = 0.0  # the main wager's alone
    se_main_second: float | None = None  # None: not estimated (the wagers apart)
    side_second: float = 0.0  # the other required wager's (Blackjack or Bust)
    staked: float = 0.0  # mean amount wagered (every hand, doubles included)
    #: variance of the share of won / pushed / lost split rounds
    wpl_var: tuple[float, float, float] = (0.0, 0.0, 0.0)
    tilt: float = 0.0  # largest |calibrated / simulated - 1| of a share's weight
    calibrated: bool = True  # every stratum's mean was exact and tilted to

    def stderr_of_mean(self) -> float:
        return self.se_raw_mean

    def se_share(self) -> dict[float, float]:
        """The standard error of each outcome's share of split rounds."""
        return {x: math.sqrt(v) for x, v in self.share_var.items()}


def strata_for_hitting(rules: GameRules, lc: object) -> list[Stratum]:
    """The strata of a hitting game's split rounds from its line counts (one per Bingo
    lane that splits; one elsewhere), each with its exact mean."""
    from firmware.math.games.hitting.card_removal_par import LineCounts

    assert isinstance(lc, LineCounts)
    side = -float(rules.activator)
    lanes = len(lc.lane_w)
    pay = np.stack([lc.payout(i) for i in range(len(lc.book))], axis=1)  # (L, NL)
    split_part = ((lc.all_rounds - lc.no_split) * pay).sum(axis=1)  # (L,) joint
    out = []
    for lane in range(lanes):
        ps = float(lc.p_split[lane])
        if ps <= 0:
            continue
        starts = tuple((a, b, u, w) for a, b, u, w, sp in lc.split_starts if sp[lane] > 0)
        where = None
        scale = 1.0
        if rules.bingo:
            where = (lane // 6, lane % 6)
            scale = float(lc.mult[lane]) ** 2
        out.append(Stratum(float(lc.lane_w[lane]) * ps, starts,
                           float(split_part[lane]) / ps + side, where, scale,
                           float(lc.lane_w[lane])))
    return out


def simulate_splits(rules: GameRules, strata: list[Stratum], rounds: int = SPLIT_ROUNDS,
                    seed: int = SPLIT_SEED) -> SplitRounds:
    """About ``rounds`` split rounds of ``rules`` over ``strata``, calibrated."""
    p_split = sum(s.weight for s in strata)
    out = SplitRounds(p_split, seed=seed)
    if not strata or p_split <= 0 or rounds <= 0:
        return out
    alloc = np.array([s.weight * s.scale for s in strata])
    alloc = np.maximum(np.ceil(rounds * alloc / alloc.sum()), min(MIN_STRATUM, rounds))
    seeds = np.random.SeedSequence(seed).spawn(len(strata))
    acc = _Sums()
    for s, n_want, ss in zip(strata, alloc, seeds, strict=True):
        _stratum(rules, s, int(n_want), ss, s.weight / p_split, acc, out)
    out.outcomes = dict(sorted(acc.merged.items()))
    out.share_var = acc.var
    out.mean, out.se_raw_mean = acc.mean, math.sqrt(acc.var_raw_mean)
    out.second, out.se_second = acc.second, math.sqrt(acc.var_second)
    out.staked = acc.staked
    out.wpl_var = (acc.wpl[0], acc.wpl[1], acc.wpl[2])
    out.side_second, out.main_second = acc.side_sq, acc.main_sq
    if rules.hitting:  # the main wager is the round's net less a constant (the activator)
        side = -float(rules.activator)
        out.main_second = sum(q * (x - side) ** 2 for x, q in out.outcomes.items())
        out.se_main_second = out.se_second
    return out


@dataclass
class _Sums:
    """The strata's figures, weighted, as :func:`simulate_splits` adds them up."""

    merged: dict[float, float] = field(default_factory=dict)
    var: dict[float, float] = field(default_factory=dict)
    mean: float = 0.0
    var_raw_mean: float = 0.0
    second: float = 0.0
    var_second: float = 0.0
    staked: float = 0.0
    main_sq: float = 0.0
    side_sq: float = 0.0
    wpl: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])


def _stratum(rules: GameRules, s: Stratum, n_want: int, ss: np.random.SeedSequence,
             w: float, acc: _Sums, out: SplitRounds) -> None:
    """Play one stratum's rounds and add its (calibrated) figures, weighted ``w``."""
    from firmware.math.simulation.fast_path import play_fast_rounds

    offered = sum(x[3] for x in s.starts)
    # P(a forced start's round splits, the lane given), exact: the rounds to play
    share = s.weight / s.lane_weight / offered
    forced = [(a, up, b, x) for a, b, up, x in s.starts]
    played = math.ceil(n_want / share)
    got = play_fast_rounds(rules, played, ss, starts=forced, lane=s.lane)
    out.played += played
    n = got.rounds
    if n == 0:
        return
    out.counted += n
    out.strata += 1
    ref = float(rules.reference_wager)
    x = np.array([c / ref for c in got.outcomes], dtype=float)
    q = np.array(list(got.outcomes.values()), dtype=float) / n
    raw = float(q @ x)
    t = tilt_to(x, q, s.mean) if s.mean is not None else q
    out.calibrated = bool(out.calibrated and s.mean is not None  # a plain bool: the JSON
                          and abs(float(t @ x) - s.mean) <= 1e-9 * max(1.0, abs(s.mean)))
    out.tilt = max(out.tilt, float(np.max(np.abs(t / q - 1.0))))
    out.raw_mean += w * raw
    acc.mean += w * float(t @ x)
    acc.var_raw_mean += w * w * float(q @ (x - raw) ** 2) / n
    acc.second += w * float(t @ x ** 2)
    acc.var_second += w * w * max(float(q @ x ** 4) - float(q @ x ** 2) ** 2, 0.0) / n
    acc.staked += w * got.staked / n
    acc.main_sq += w * got.squares.get("blackjack", 0.0) / n
    acc.side_sq += w * sum(v for k, v in got.squares.items() if k != "blackjack") / n
    for k, part in enumerate((x > 1e-9, np.abs(x) <= 1e-9, x < -1e-9)):
        pa = float(q[part].sum())
        acc.wpl[k] += w * w * pa * (1 - pa) / n
    for xi, ti, qi in zip(x.tolist(), t.tolist(), q.tolist(), strict=True):
        acc.merged[xi] = acc.merged.get(xi, 0.0) + w * ti
        acc.var[xi] = acc.var.get(xi, 0.0) + w * w * qi * (1 - qi) / n


def simulate_to_precision(rules: GameRules, strata: list[Stratum], unsplit_second: float,
                          mean: float, rounds: int | None = None) -> SplitRounds:
    """The split rounds of a PAR sheet: at least ``rounds`` (default
    :data:`SPLIT_ROUNDS`), and when :data:`SD_REL_SE` is set as many more as it takes for
    the standard deviation per round (``sqrt(unsplit_second + P(split) second -
    mean^2)``) to carry a relative standard error of at most :data:`SD_REL_SE` from the
    simulation (at most :data:`MAX_SPLIT_ROUNDS`). The count follows from a first run's
    own error estimate, so it is as reproducible as the seed."""
    n = SPLIT_ROUNDS if rounds is None else rounds
    split = simulate_splits(rules, strata, n)
    if SD_REL_SE is None:
        return split
    need = rounds_for_precision(split, unsplit_second, mean, SD_REL_SE)
    if need > n:
        split = simulate_splits(rules, strata, min(need, MAX_SPLIT_ROUNDS))
    return split


def sd_rel_se(split: SplitRounds, unsplit_second: float, mean: float) -> float:
    """The relative standard error the simulation leaves on the s.d. per round."""
    var = unsplit_second + split.probability * split.second - mean ** 2
    return split.probability * split.se_second / (2 * var) if var > 0 else 0.0


def rounds_for_precision(split: SplitRounds, unsplit_second: float, mean: float,
                         rel: float) -> int:
    """Split rounds to count for a relative error ``rel`` on the s.d. (the error falls as
    one over the square root of the rounds; 10% to spare)."""
    now = sd_rel_se(split, unsplit_second, mean)
    if now <= rel or split.counted == 0:
        return split.counted
    return math.ceil(1.1 * split.counted * (now / rel) ** 2)


def tilt_to(x: np.ndarray, q: np.ndarray, mean: float) -> np.ndarray:
    """The exponential tilt of the distribution ``q`` on ``x`` whose mean is ``mean``:
    ``q exp(lambda x)`` normalised, lambda by bisection (the mean is monotone in it).
    ``q`` itself when its mean is already ``mean`` or ``mean`` lies outside ``x``'s range
    (then no distribution on these values has it)."""
    if len(x) < 2 or not float(x.min()) < mean < float(x.max()):
        return q
    span = float(x.max() - x.min())

    def at(lam: float) -> tuple[np.ndarray, float]:
        e = lam * (x - x.mean())
        w = q * np.exp(e - e.max())
        w /= w.sum()
        return w, float(w @ x)

    lo, hi = -50.0 / span, 50.0 / span
    for _ in range(200):
        mid = (lo + hi) / 2
        w, m = at(mid)
        if abs(m - mean) <= 1e-13 * max(1.0, abs(mean)):
            return w
        if m < mean:
            lo = mid
        else:
            hi = mid
    return at((lo + hi) / 2)[0]


__all__ = ["MAX_SPLIT_ROUNDS", "MIN_STRATUM", "SD_REL_SE", "SPLIT_ROUNDS", "SPLIT_SEED",
           "SplitRounds", "Stratum", "rounds_for_precision", "sd_rel_se", "simulate_splits",
           "simulate_to_precision", "strata_for_hitting", "tilt_to"]
