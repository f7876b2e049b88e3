"""The IID tests on the restart matrix (``etg cert entropy --restart --iid``): informative.

With the IID option the reference's ``ea_restart -i`` assesses the rows and columns by
the most common value estimate alone (:mod:`.restart`), and also runs the IID track's
tests, the chi-square tests, the LRS test and the permutation tests, on the row dataset
and on the column dataset. Their verdicts are reported (and written into the JSON's
"Overall" case, the reference's layout) but do not decide the restart tests: 3.1.4.2
validates the restarts by H_r and H_c; whether the source is IID was settled on the
sequential file (``etg cert entropy --iid``).

Two quirks of the reference are not copied: its permutation tests on the "columns"
shuffle the row dataset again (so the columns are never permuted), and its "Overall"
case states mean 0 and median 0; here the columns are permuted, and mean and median are
the row dataset's (the columns' are the same numbers). Like the reference, the case has
no ``binary`` field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rng.cert.sp80090b import chisquare, iid
from rng.cert.sp80090b.chisquare import ChiSquare, LrsTest
from rng.cert.sp80090b.iid import Permutations
from rng.cert.sp80090b.samples import Samples, from_bytes


@dataclass
class ViewTests:
    """The IID tests on one view of the restart matrix (``Rows`` or ``Columns``)."""

    label: str
    samples: Samples
    chi_square: list[ChiSquare]
    lrs: LrsTest
    permutations: Permutations


@dataclass
class RestartIid:
    """The IID tests on the rows and on the columns; each verdict needs both views."""

    rows: ViewTests
    columns: ViewTests

    @property
    def views(self) -> tuple[ViewTests, ViewTests]:
        return self.rows, self.columns

    @property
    def chi_square_passed(self) -> bool:
        return all(c.passed for v in self.views for c in v.chi_square)

    @property
    def lrs_passed(self) -> bool:
        return all(v.lrs.passed for v in self.views)

    @property
    def permutations_passed(self) -> bool:
        return all(v.permutations.passed for v in self.views)


def _view(label: str, s: Samples, rng: np.random.Generator | None,
          limit: int) -> ViewTests:
    return ViewTests(label, s, chisquare.tests(s.symbols, s.k),
                     chisquare.lrs_test(s.symbols, s.k),
                     iid.permutation_tests(s, rng=rng, limit=limit))


def run(s: Samples, rows: int, columns: int, *,
        step: Callable[[str], None] | None = None,
        rng: np.random.Generator | None = None,
        limit: int = iid.PERMUTATIONS) -> RestartIid:
    """The IID tests on the row dataset ``s`` (restart after restart) and on its columns."""
    cols_raw = np.ascontiguousarray(s.raw.reshape(rows, columns).T.reshape(-1))
    cols = from_bytes(cols_raw, s.bits, f"{s.name} (columns)", minimum=1)
    out = []
    for label, view in (("Rows", s), ("Columns", cols)):
        out.append(_view(label, view, rng, limit))
        if step is not None:
            step(f"{label} IID tests")
    return RestartIid(out[0], out[1])


def overall_case(t: RestartIid, h_r: float, h_c: float, h_i: float) -> dict[str, Any]:
    """The reference's IID "Overall" case of ``ea_restart -i -o``: the three verdicts,
    h_r, h_c, h_i, and the permutation counters (the rows' three, then the columns')."""
    stats = iid.statistics_of(t.rows.samples)
    case: dict[str, Any] = {
        "testCaseDesc": "Overall", "mean": stats.mean, "median": stats.median,
        "passedChiSquareTests": t.chi_square_passed,
        "passedLongestRepeatedSubstringTest": t.lrs_passed,
        "passedIidPermutationTests": t.permutations_passed,
        "h_r": h_r, "h_c": h_c, "h_i": h_i,
    }
    case["permutationTestResults"] = [
        r for v in t.views for r in iid.permutation_results(v.permutations)]
    return case


def text(t: RestartIid) -> list[str]:
    """The report's lines: each view's figures, then the three verdicts."""
    out = []
    for v in t.views:
        for c in v.chi_square:
            out.append(f"{v.label:8} {c.name}: T = {c.t:.17g}, df = {c.df}, "
                       f"P-value = {c.p:.17g}")
        out.append(f"{v.label:8} Longest Repeated Substring: W = {v.lrs.w}, "
                   f"Pr(X >= 1) = {v.lrs.pr_at_least_one:.17g}")
        failed = v.permutations.failed
        out.append(f"{v.label:8} IID permutation tests: "
                   f"{'Passed' if not failed else 'Failed'} ({v.permutations.shuffles} "
                   "shuffles" + (f"; failed: {', '.join(failed)})" if failed else ")"))
    verdict = {True: "Passed", False: "Failed"}
    out += [f"Chi square tests: {verdict[t.chi_square_passed]}",
            f"Length of longest repeated substring test: {verdict[t.lrs_passed]}",
            f"IID permutation tests: {verdict[t.permutations_passed]}",
            "(the IID tests on the restarts are informative: the restart tests stand on "
            "H_r and H_c)"]
    return out
