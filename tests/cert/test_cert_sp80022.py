"""SP 800-22 Rev. 1a tests against the worked examples of the standard's section 2."""

from __future__ import annotations

import numpy as np
import pytest

from rng.cert.sp80022 import BitBattery, BitParams, bits_from_string, cusum_p, run_bits

# The 100-bit epsilon of 2.1.8, 2.2.8, 2.3.8, 2.12.8, 2.13.8 (the first bits of pi).
E100 = ("1100100100001111110110101010001000100001011010001100001000110100110001001100011001"
        "100010100010111000")
# The 128-bit epsilon of 2.4.8.
E128 = ("11001100000101010110110001001100111000000000001001001101010100010001001111010110100"
        "000001101011111001100111001101101100010110010")

MONO = "SP 800-22 frequency (monobit)"
BLOCK = "SP 800-22 frequency within a block"
RUNS = "SP 800-22 runs"
LONG = "SP 800-22 longest run of ones"
SER1 = "SP 800-22 serial (del psi^2)"
SER2 = "SP 800-22 serial (del^2 psi^2)"
APEN = "SP 800-22 approximate entropy"
CUSF = "SP 800-22 cumulative sums (forward)"
CUSR = "SP 800-22 cumulative sums (reverse)"


@pytest.mark.parametrize(("bits", "params", "test", "expected"), [
    ("1011010101", {}, MONO, 0.527089),  # 2.1.4
    (E100, {}, MONO, 0.109599),  # 2.1.8
    ("0110011010", {"block_m": 3}, BLOCK, 0.801252),  # 2.2.4
    (E100, {"block_m": 10}, BLOCK, 0.706438),  # 2.2.8
    ("1001101011", {}, RUNS, 0.147232),  # 2.3.4
    (E100, {}, RUNS, 0.500798),  # 2.3.8
    ("0011011101", {"serial_m": 3}, SER1, 0.808792),  # 2.11.4
    ("0011011101", {"serial_m": 3}, SER2, 0.670320),  # 2.11.4
    ("0100110101", {"apen_m": 3}, APEN, 0.261961),  # 2.12.4
    (E100, {"apen_m": 2}, APEN, 0.235301),  # 2.12.8
    ("1011010111", {}, CUSF, 0.4116588),  # 2.13.4
    (E100, {}, CUSF, 0.219194),  # 2.13.8
    (E100, {}, CUSR, 0.114866),  # 2.13.8
])
def test_worked_examples(bits: str, params: dict, test: str, expected: float) -> None:
    assert run_bits(bits_from_string(bits), **params)[test].p_value == pytest.approx(
        expected, abs=1e-6)


def test_longest_run_worked_example() -> None:
    """2.4.8: nu = (4, 9, 3, 0). The standard prints chi2 = 4.882457 and P = 0.180609;
    its own table of pi_i gives chi2 = 4.882605 and P = 0.180598, so the tolerance
    covers that rounding in the published example."""
    r = run_bits(bits_from_string(E128))[LONG]
    assert r.statistic == pytest.approx(4.882605, abs=1e-6)
    assert r.p_value == pytest.approx(0.180609, abs=2e-5)


def test_cusum_bounds_follow_the_reference_truncation() -> None:
    assert cusum_p(10, 4) == pytest.approx(0.4116588, abs=1e-6)
    assert cusum_p(100, 0) == 1.0


def test_streaming_in_odd_chunks_equals_one_pass() -> None:
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 2, size=1_000_003, dtype=np.uint8)
    whole = run_bits(bits)
    params = BitParams.for_length(bits.size)
    bat = BitBattery(params)
    for chunk in np.array_split(bits, 7):
        bat.update(chunk)
    for r in bat.results():
        assert r.statistic == pytest.approx(whole[r.name].statistic, rel=1e-12)
        assert r.p_value == pytest.approx(whole[r.name].p_value, rel=1e-9, abs=1e-12)
    assert params.longest_m == 10_000 and params.serial_m == 16 and params.apen_m == 10


def test_bytes_are_read_most_significant_bit_first() -> None:
    bat = BitBattery(BitParams.for_length(16))
    bat.update_bytes(bytes([0b10000000, 0b00000001]))
    assert bat.ones == 2 and bat._transitions == 2 and bat._head[0] == 1


def test_a_stuck_stream_fails_everything_it_should() -> None:
    res = run_bits(np.ones(100_000, dtype=np.uint8))
    for name in (MONO, BLOCK, RUNS, LONG, CUSF, CUSR):
        assert res[name].p_value < 1e-10, name
    alternating = run_bits(np.tile(np.array([0, 1], dtype=np.uint8), 50_000))
    assert alternating[RUNS].p_value < 1e-10 and alternating[SER1].p_value < 1e-10
