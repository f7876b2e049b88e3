"""The IID track equals NIST's reference (ea_iid) on NIST's sample files.

Every deterministic figure the reference prints with ``-vvv`` (the chi-square statistics,
degrees of freedom and p-values, the LRS test's P_col, W and Pr(X >= 1), the 19
unpermuted statistics, mean, median, H_original and H_bitstring) to 1e-9 relative, and
the three verdicts equal. The shuffles are seeded here so that a run is repeatable; the
verdicts do not depend on the seed (the reference's own runs differ in their counters).
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from firmware.cli import main
from rng.cert.sp80090b import iid, samples
from rng.cert.sp80090b.kernels.shuffled import NAMES
from tests.cert.sp80090b.iid_reference import load_iid
from tests.cert.sp80090b.reference import DATA

#: rand4_short's periodicity(1) is borderline: the reference's run had 9995 of 10,000
#: shuffles above the original and 5 equal or below (fail at <= 5); its verdict turns on
#: the shuffles, so it is compared under a fixed seed
QUICK = ["rand1_short", "rand4_short", "rand8_short"]
#: NIST's larger files: the deterministic figures (chi-square, LRS, the unpermuted
#: statistics, H_original/H_bitstring) in make test; their permutation verdicts need
#: up to 10,000 shuffles of 10^6 samples (minutes: ringOsc-nist is not IID, so no
#: statistic settles early) and run with ETG_SP80090B_SLOW=1 (docs/cert.md)
LARGE = ["truerand_8bit", "ringOsc-nist"]
#: the files whose permutation verdicts run only with ETG_SP80090B_SLOW=1
SLOW_VERDICTS = ["truerand_1bit", *LARGE]
SLOW = pytest.mark.skipif(not os.environ.get("ETG_SP80090B_SLOW"),
                          reason="minutes of shuffles: set ETG_SP80090B_SLOW=1")


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300)


def _check(name: str, seed: int = 2026, *, shuffles: bool = True) -> None:
    """Every deterministic figure equal to the reference's; the verdicts too (the
    permutation tests' only when ``shuffles``: without them no shuffle is made)."""
    ref = load_iid(name)
    s = samples.read(DATA / f"{name}.bin", None)
    a = iid.assess(s, rng=np.random.default_rng(seed),
                   limit=iid.PERMUTATIONS if shuffles else 0)
    v = ref.values
    stats = iid._Stats(s)
    ours: dict[str, float] = {"Raw Mean": stats.mean, "Median": stats.median,
                              "H_original": a.h_original.h or 0.0}
    if a.h_bitstring is not None:
        ours["H_bitstring"] = a.h_bitstring.h or 0.0
    for c in a.chi_square:
        ours[f"{c.name}: T"], ours[f"{c.name}: df"], ours[f"{c.name}: P-value"] = \
            c.t, c.df, c.p
    label = "Literal Longest Repeated Substring results"
    ours[f"{label}: P_col"] = a.lrs.p_col
    ours[f"{label}: W"] = a.lrs.w
    ours[f"{label}: Pr(X >= 1)"] = a.lrs.pr_at_least_one
    for stat, value in zip(NAMES, a.permutations.original, strict=True):
        ours[f"Permutation testing: Unpermuted result {stat}"] = float(value)
    for key, want in ours.items():
        assert key in v, key
        assert _close(want, v[key]), (key, want, v[key])
    ours_verdicts = {
        "Chi square tests": a.chi_square_passed,
        "Length of longest repeated substring test": a.lrs.passed,
    }
    if shuffles:
        ours_verdicts["IID permutation tests"] = a.permutations.passed
    else:
        assert a.permutations.shuffles == 0
    assert {k: ref.verdicts[k] for k in ours_verdicts} == ours_verdicts


@pytest.mark.parametrize("name", QUICK)
def test_iid_equals_reference(name: str) -> None:
    _check(name)


def test_iid_equals_reference_1bit_million() -> None:
    """10^6 binary samples: the binary statistics (Conversions I and II, m-bit blocks),
    the chi-square and LRS verdicts. Its permutation verdict takes 1,000 to 2,200
    shuffles (20-30 s of CPU): with the large files' (ETG_SP80090B_SLOW=1); the
    permutation verdict on binary data stays in make test with rand1_short."""
    _check("truerand_1bit", shuffles=False)


@pytest.mark.parametrize("name", LARGE)
def test_iid_deterministic_figures_equal_reference_on_the_large_files(name: str) -> None:
    """truerand_8bit (passes every test) and ringOsc-nist (fails the chi-square and LRS
    tests: P-value 0, W = 103): every figure that does not depend on the shuffles."""
    _check(name, shuffles=False)


@SLOW
@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_VERDICTS)
def test_iid_permutation_verdicts_equal_reference_on_10e6_samples(name: str) -> None:
    if "IID permutation tests" not in load_iid(name).verdicts:
        pytest.skip(f"{name}: the reference's verdict is not in its result file")
    _check(name)


def test_iid_json_has_the_references_structure(capsys: pytest.CaptureFixture) -> None:
    f = DATA / "rand1_short.bin"
    assert main(["cert", "entropy", str(f), "--iid", "--json"]) == 0  # IID: exit 0
    ours = json.loads(capsys.readouterr().out)
    ref = json.loads((DATA / "rand1_short.iid.json").read_text())
    assert set(ours) == set(ref)
    a, b = ours["testCases"][0], ref["testCases"][0]
    assert set(a) == set(b)
    assert [set(x) for x in a["permutationTestResults"]] == \
        [set(x) for x in b["permutationTestResults"]]
    for key in ("hOriginal", "hBitstring", "hAssessed", "mean", "median", "binary",
                "passedChiSquareTests", "passedLongestRepeatedSubstringTest",
                "passedIidPermutationTests"):
        assert a[key] == pytest.approx(b[key], rel=1e-12), key


def test_not_iid_exits_1(capsys: pytest.CaptureFixture) -> None:
    """rand8_short fails the chi-square independence test (p = 3.6e-11, as the
    reference's): not IID, exit 1."""
    assert main(["cert", "entropy", str(DATA / "rand8_short.bin"), "--iid"]) == 1
    assert "Chi square tests: Failed" in capsys.readouterr().out


def test_a_correlated_source_fails_the_permutation_tests(tmp_path) -> None:
    """A sticky source (each bit repeats the last with probability 0.6): the directional
    number of median runs and the compression tell it from its shuffles."""
    rng = np.random.default_rng(7)
    flips = rng.random(20_000) < 0.4
    bits = (np.cumsum(flips) % 2).astype(np.uint8)
    s = samples.from_bytes(bits.tobytes(), 1)
    # its failing statistics never settle, so all 10,000 shuffles would run (four minutes
    # here); 100 tell them already: no shuffle reaches the original on their side
    perm = iid.permutation_tests(s, rng=np.random.default_rng(1), limit=100)
    assert perm.shuffles == 100
    assert not perm.passed
    assert "numRunsMedian" in perm.failed and "compression" in perm.failed


def test_the_shuffles_generator_is_xoshiro256starstar() -> None:
    """Blackman and Vigna's xoshiro256** from the state (1, 2, 3, 4): its published
    first outputs."""
    from rng.cert.sp80090b.kernels.fisher_yates import next_u64

    s = np.array([1, 2, 3, 4], dtype=np.uint64)
    assert [int(next_u64(s)) for _ in range(4)] == [11520, 0, 1509978240,
                                                    1215971899390074240]


def test_the_shuffle_is_uniform_and_moves_both_arrays_alike() -> None:
    from rng.cert.sp80090b.kernels.fisher_yates import shuffle_one, shuffle_together

    state = np.array([5, 6, 7, 8], dtype=np.uint64)
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(24_000):
        x = np.arange(4, dtype=np.uint8)
        shuffle_one(x, state)
        counts[tuple(x.tolist())] = counts.get(tuple(x.tolist()), 0) + 1
    assert len(counts) == 24 and all(850 < c < 1150 for c in counts.values())
    a = np.arange(200, dtype=np.uint8)
    b = (np.arange(200) * 7 % 256).astype(np.uint8)
    before = dict(zip(a.tolist(), b.tolist(), strict=True))
    shuffle_together(a, b, state)
    assert dict(zip(a.tolist(), b.tolist(), strict=True)) == before  # pairs kept
    assert sorted(a.tolist()) == list(range(200)) and a.tolist() != list(range(200))
