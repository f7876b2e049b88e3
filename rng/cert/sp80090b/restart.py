"""The restart tests (90B 3.1.4): 1,000 restarts of the noise source, 1,000 samples each.

The restart file holds the restarts one after the other (the "row dataset" of 3.1.4.1,
as ``etg rng capture --restarts 1000 --samples 1000`` writes it): row i is restart i,
column j the j-th sample after every restart. Two checks, both of which must pass for
the sequential assessment H_I to stand:

* the **sanity check** (3.1.4.3): no symbol may occur in a row or a column more often
  than a source of min-entropy H_I would allow, at a false-reject rate of 1% over the
  2,000 rows and columns (alpha = 1 - 0.99^(1/2000) each). The cutoff is computed
  exactly (:mod:`rng.cert.sp80090b.kernels.restart`), not simulated as the reference
  does; the two agree except when the simulated quantile lands one off, which happens
  only when the exact tail is within a few percent of alpha;
* the **validation test** (3.1.4.2): the row and column estimates H_r and H_c (the
  non-IID estimators on the rows one after another and on the columns one after
  another; with ``iid``, the most common value estimate) must each reach H_I / 2.

The restart assessment is then min(H_r, H_c, H_I).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from etgcore.errors import UserError
from rng.cert.sp80090b import entropic, noniid
from rng.cert.sp80090b.noniid import Track
from rng.cert.sp80090b.samples import Samples

if TYPE_CHECKING:  # the IID track (and its compiled kernels) load only for --iid
    from rng.cert.sp80090b.restart_iid import RestartIid

ROWS = COLUMNS = 1000
#: the false-reject rate of the sanity check over all rows and columns
FALSE_REJECT = 0.01


def alpha() -> float:
    """Each row's and column's share of the 1% (the reference's 1 - exp(log(0.99)/2000))."""
    return 1.0 - math.exp(math.log(1.0 - FALSE_REJECT) / (ROWS + COLUMNS))


def worst_case(h_initial: float) -> np.ndarray:
    """The symbol probabilities of the worst case for H_I: floor(1/p) symbols of
    p = 2^-H_I and the rest on one more (the inverted near-uniform family)."""
    p = 2.0 ** -h_initial
    full = math.floor(1.0 / p)
    probs = [p] * full
    if math.ceil(1.0 / p) > full:
        probs.append(1.0 - full * p)
    return np.array(probs, dtype=np.float64)


def cutoff(h_initial: float) -> int:
    """The largest count of one symbol in 1,000 samples that passes: the least x with
    Pr(largest count <= x) >= 1 - alpha, found by bisection (the law is monotone in x)."""
    from rng.cert.sp80090b.kernels.restart import all_at_most

    probs = worst_case(h_initial)
    target = 1.0 - alpha()
    lo, hi = max(1, math.ceil(COLUMNS / probs.size)) - 1, COLUMNS  # F(lo) < target <= F(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if all_at_most(mid, probs, COLUMNS) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def largest_counts(matrix: np.ndarray) -> tuple[int, int]:
    """X_r and X_c: the largest count of one symbol in any row, in any column."""
    def largest(m: np.ndarray) -> int:
        keys = np.arange(m.shape[0], dtype=np.int64)[:, None] * 256 + m
        return int(np.bincount(keys.reshape(-1), minlength=m.shape[0] * 256).max())

    return largest(matrix), largest(matrix.T)


@dataclass
class RestartAssessment:
    """The restart tests on one restart file."""

    samples: Samples
    h_initial: float
    cutoff: int
    x_rows: int
    x_columns: int
    rows: Track | None = None
    columns: Track | None = None
    h_r: float | None = None
    h_c: float | None = None
    iid_tests: RestartIid | None = None  # with --iid: informative (restart_iid)

    @property
    def sanity_passed(self) -> bool:
        return max(self.x_rows, self.x_columns) <= self.cutoff

    @property
    def validation_passed(self) -> bool:
        return self.h_r is not None and self.h_c is not None \
            and min(self.h_r, self.h_c) >= self.h_initial / 2.0

    @property
    def passed(self) -> bool:
        return self.sanity_passed and self.validation_passed

    @property
    def h_assessed(self) -> float | None:
        if not self.passed or self.h_r is None or self.h_c is None:
            return None
        return min(self.h_r, self.h_c, self.h_initial)


def check_shape(s: Samples, h_initial: float) -> None:
    """The restart file must be exactly 1000 x 1000 samples, H_I at most the width."""
    if s.n != ROWS * COLUMNS:
        raise UserError(f"{s.name}: {s.n} samples, not a restart file ({ROWS} restarts x "
                        f"{COLUMNS} samples = {ROWS * COLUMNS:,}: etg rng capture "
                        f"--restarts {ROWS} --samples {COLUMNS})")
    if h_initial > s.bits:
        raise UserError(f"--h-initial {h_initial:g} is more than the {s.bits} bits per "
                        "sample")


def _estimates(seq: np.ndarray, k: int, label: str, iid: bool,
               step: Callable[[str], None] | None) -> Track:
    if iid:
        tr = Track(label, [entropic.most_common_value(seq, k)])
        if step is not None:
            step(label)
        return tr
    return noniid.run_track(seq, k, label, binary=k == 2, step=step)


def assess(s: Samples, h_initial: float, *, iid: bool = False,
           step: Callable[[str], None] | None = None,
           rng: np.random.Generator | None = None) -> RestartAssessment:
    """The sanity check, then (when it passes) the row and column estimates; with
    ``iid`` also the IID tests on the rows and columns (``rng``: their shuffles)."""
    check_shape(s, h_initial)
    matrix = s.symbols.reshape(ROWS, COLUMNS)
    x_r, x_c = largest_counts(matrix)
    a = RestartAssessment(s, h_initial, cutoff(h_initial), x_r, x_c)
    if not a.sanity_passed:
        return a
    a.rows = _estimates(np.ascontiguousarray(matrix.reshape(-1)), s.k, "Rows", iid, step)
    a.columns = _estimates(np.ascontiguousarray(matrix.T.reshape(-1)), s.k, "Columns", iid,
                           step)
    a.h_r = min(float(s.bits), a.rows.h if a.rows.h is not None else float(s.bits))
    a.h_c = min(float(s.bits), a.columns.h if a.columns.h is not None else float(s.bits))
    if iid:
        from rng.cert.sp80090b import restart_iid

        a.iid_tests = restart_iid.run(s, ROWS, COLUMNS, step=step, rng=rng)
    return a


def steps_for(s: Samples, iid: bool) -> int:
    return 4 if iid else 2 * noniid.STEPS


def test_cases(a: RestartAssessment) -> list[dict[str, Any]]:
    """The reference's ``ea_restart -o`` test cases: per estimator h_r and h_c (with
    dataWordSize), then "Overall" with h_r, h_c and h_i (only when the validation
    passed, as the reference); empty when the sanity check failed."""
    if a.rows is None or a.columns is None:
        return []
    if a.iid_tests is not None:  # ea_restart -i: one IID "Overall" case, when validated
        from rng.cert.sp80090b.restart_iid import overall_case

        if not a.validation_passed or a.h_r is None or a.h_c is None:
            return []
        return [overall_case(a.iid_tests, a.h_r, a.h_c, a.h_initial)]
    bits = float(a.samples.bits)
    cases = []
    for r, c in zip(a.rows.estimates, a.columns.estimates, strict=True):
        desc = noniid.description(r.name)
        case: dict[str, Any] = {"testCaseDesc": desc,
                                "dataWordSize": 1.0 if desc.endswith("(for bit strings only)")
                                else bits}
        if r.h is not None:
            case["h_r"] = r.h
        if c.h is not None:
            case["h_c"] = c.h
        cases.append(case)
    if a.validation_passed:
        cases.append({"testCaseDesc": "Overall", "h_r": a.h_r, "h_c": a.h_c,
                      "h_i": a.h_initial})
    return cases
