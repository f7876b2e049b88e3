"""What ``etg cert entropy --iid`` prints: the IID track's verdicts and figures.

The wording of the figures follows the reference's ``-vvv`` lines (``Chi square
independence: T = ...``, ``Literal Longest Repeated Substring results: W = ...``,
``Permutation testing: Unpermuted result excursion = ...``) so that a lab can put the
two outputs side by side; the counters' table is the reference's ``C[i][0..2]``.
"""

from __future__ import annotations

from rng.cert.sp80090b.iid import SETTLED, IidAssessment
from rng.cert.sp80090b.kernels.shuffled import NAMES


def _g(v: float) -> str:
    return f"{v:.17g}"


def text(a: IidAssessment, *, verbose: bool = False) -> list[str]:
    """The IID track's report: figures, verdicts and (verbose) the counters."""
    s = a.samples
    out = [f"{s.name}: {s.n} samples of {s.k} distinct {s.bits}-bit-wide symbols"]
    if s.n < 1_000_000:
        out.append("warning: fewer than 1,000,000 samples (SP 800-90B 3.1.1 asks for "
                   "at least 10^6)")
    if a.h_bitstring is not None and a.h_bitstring.h is not None:
        out.append(f"H_bitstring = {_g(a.h_bitstring.h)}")
    out.append(f"H_original = {_g(a.h_original.h or 0.0)}")
    for c in a.chi_square:
        out.append(f"{c.name}: T = {_g(c.t)}")
        out.append(f"{c.name}: df = {c.df}")
        out.append(f"{c.name}: P-value = {_g(c.p)}")
    out.append(f"Chi square tests: {'Passed' if a.chi_square_passed else 'Failed'}")
    lrs = a.lrs
    label = "Literal Longest Repeated Substring results"
    out += [f"{label}: P_col = {_g(lrs.p_col)}", f"{label}: W = {lrs.w}",
            f"{label}: Pr(X >= 1) = {_g(lrs.pr_at_least_one)}",
            f"Length of longest repeated substring test: "
            f"{'Passed' if lrs.passed else 'Failed'}"]
    perm = a.permutations
    if verbose:
        for name, v in zip(NAMES, perm.original, strict=True):
            out.append(f"Permutation testing: Unpermuted result {name} = {_g(float(v))}")
        out.append(f"{'statistic':>25}  C[i][0]  C[i][1]  C[i][2]")
        for name, (c0, c1, c2) in zip(NAMES, perm.counts.tolist(), strict=True):
            bad = c0 + c1 <= SETTLED or c1 + c2 <= SETTLED
            out.append(f"{name + ('*' if bad else ''):>25}{c0:8}{c1:8}{c2:8}")
    failed = perm.failed
    out.append(f"IID permutation tests: {'Passed' if perm.passed else 'Failed'} "
               f"({perm.shuffles} shuffles"
               + (f"; failed: {', '.join(failed)})" if failed else ")"))
    if a.iid:
        out.append(f"IID: yes. Assessed min-entropy: {a.h_assessed:.6f} bits per "
                   f"{s.bits}-bit sample")
    else:
        out.append(f"IID: no (the samples fail the IID tests; assess them with the "
                   f"non-IID track). Most common value estimate: {a.h_assessed:.6f} bits "
                   f"per {s.bits}-bit sample")
    return out
