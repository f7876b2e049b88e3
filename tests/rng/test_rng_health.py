"""SP 800-90B 4.4 health tests and the entropy sources: cutoffs from the standard, a stuck
and a biased source caught, a failing source never used again, and the table tilting."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy.stats import binom

from rng import RngUnavailable, open_table_rng
from rng.ctr_drbg import CtrDrbg
from rng.entropy import HealthTestedSource, SeededSource, open_source, os_noise
from rng.errors import EntropyError
from rng.health import HealthFailure, HealthTests, apt_cutoff, critbinom, rct_cutoff
from rng.settings import RngSettings
from rng.table_rng import TableRng


def test_rct_cutoff_is_1_plus_ceil_of_log2_alpha_over_h() -> None:
    """90B 4.4.1: C = 1 + ceil(-log2(alpha) / H); 90B's example H = 2, alpha = 2^-20 -> 11."""
    assert rct_cutoff(2.0, 20) == 11
    for h in (0.5, 1, 3.3, 8):
        assert rct_cutoff(h, 30) == 1 + math.ceil(30 / h)


def test_apt_cutoffs_match_the_table_in_sp800_90b() -> None:
    """90B 4.4.2 Table 2 (alpha = 2^-20): non-binary W = 512 and binary W = 1024."""
    assert [apt_cutoff(h, False, 20) for h in (0.5, 1, 2, 4, 8)] == [410, 311, 177, 62, 13]
    assert [apt_cutoff(h, True, 20) for h in (0.2, 0.4, 0.6, 0.8, 1)] == [
        941, 840, 748, 664, 589]


@pytest.mark.parametrize("w,h,a", [(512, 8, 30), (512, 2, 30), (1024, 1, 40), (512, 0.7, 25)])
def test_critbinom_is_the_binomial_quantile(w: int, h: float, a: int) -> None:
    k = critbinom(w, 2.0**-h, a)
    assert binom.sf(k, w, 2.0**-h) <= 2.0**-a < binom.sf(k - 1, w, 2.0**-h)


def _trip(samples: bytes | list[int], h: float = 8.0, binary: bool = False) -> str | None:
    try:
        HealthTests(h, binary=binary).check(samples)
    except HealthFailure as exc:
        return exc.test
    return None


def test_stuck_source_trips_the_repetition_count_test() -> None:
    cutoff = rct_cutoff(8.0)
    assert _trip(bytes([0x5A]) * (cutoff - 1)) is None
    assert _trip(bytes([0x5A]) * cutoff) == "repetition count test"


def test_biased_source_trips_the_adaptive_proportion_test() -> None:
    rng = np.random.Generator(np.random.PCG64(7))  # fake noise, fixed seed
    biased = np.where(rng.random(20000) < 0.06, 0x33, rng.integers(0, 256, 20000)).astype(
        np.uint8)
    assert _trip(biased.tobytes()) == "adaptive proportion test"


def test_binary_source_uses_a_1024_window() -> None:
    tests = HealthTests(0.9, binary=True)
    assert tests.apt_w == 1024
    rng = np.random.Generator(np.random.PCG64(8))
    assert _trip((rng.random(8192) < 0.75).astype(int).tolist(), 0.9, True) == (
        "adaptive proportion test")
    assert _trip((rng.random(8192) < 0.5).astype(int).tolist(), 0.9, True) is None


def test_healthy_os_output_passes() -> None:
    tests = HealthTests(8.0)
    tests.check(os_noise(200_000))
    assert tests.samples == 200_000


def _source(noise: Callable[[int], bytes], h: float = 8.0) -> HealthTestedSource:
    return HealthTestedSource("fake", noise, h)


def test_startup_test_rejects_a_stuck_source_before_any_output() -> None:
    with pytest.raises(EntropyError, match="repetition count"):
        _source(lambda n: bytes(n))


def test_failing_source_is_never_used_again() -> None:
    state = {"stuck": False}

    def noise(n: int) -> bytes:
        return bytes(n) if state["stuck"] else os_noise(n)

    src = _source(noise)
    assert len(src.get_entropy(48)) == 48
    state["stuck"] = True
    with pytest.raises(EntropyError, match="health test"):
        src.get_entropy(48)
    state["stuck"] = False  # even if the noise recovers, the source stays dead
    with pytest.raises(EntropyError, match="failed earlier"):
        src.get_entropy(48)


def test_low_entropy_source_is_conditioned_to_full_entropy() -> None:
    src = _source(os_noise, h=2.0)
    before = src.tests.samples
    out = src.get_entropy(48)
    assert len(out) == 48
    assert src.tests.samples - before == 2 * math.ceil(320 / 2.0)  # two 32-byte blocks


def test_table_tilts_when_the_source_fails_at_a_reseed() -> None:
    """A reseed that finds the source failing makes the RNG unavailable, with the cause."""
    state = {"stuck": False}

    def noise(n: int) -> bytes:
        return bytes(n) if state["stuck"] else os_noise(n)

    table = TableRng(CtrDrbg(_source(noise), reseed_interval=2), "fake", cycle_hz=0)
    table.randbelow(10)
    state["stuck"] = True
    with pytest.raises(RngUnavailable, match="repetition count") as info:
        for _ in range(3):
            table.randbelow(10)
    assert "entropy" in info.value.cause
    with pytest.raises(RngUnavailable):
        table.randbelow(10)
    assert table.status()["failure"]


def test_power_up_self_test_failure_makes_the_rng_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import rng.cavp

    monkeypatch.setattr(rng.cavp, "run_case", lambda *a, **k: False)
    with pytest.raises(RngUnavailable, match="self-test failed: ctr-drbg known-answer"):
        open_table_rng(RngSettings(), bench=True)


def test_open_source_choices(tmp_path: object) -> None:
    assert open_source("os").name == "os"
    assert isinstance(open_source("auto", seed=b"x"), SeededSource)
    with pytest.raises(EntropyError, match="unknown entropy source"):
        open_source("dice")


def test_missing_hwrng_makes_the_rng_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    import rng.entropy

    monkeypatch.setattr(rng.entropy, "HWRNG_PATH", "/nonexistent/hwrng")
    monkeypatch.setattr(rng.entropy.HwrngNoise.__init__, "__defaults__", ("/nonexistent/hwrng",))
    with pytest.raises(RngUnavailable, match="cannot open /nonexistent/hwrng"):
        open_table_rng(RngSettings(entropy="hwrng"), bench=True)
