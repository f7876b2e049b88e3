"""The non-IID track equals NIST's reference (ea_non_iid) on NIST's own sample files.

Every estimate and every intermediate value the reference prints with ``-vv`` (counts
exactly; the other values to 1e-9 relative: the reference prints 17 digits, and its
searches stop at its own tolerance, so the last few digits of a solved p differ by
rounding), then H_original, H_bitstring and the assessed min-entropy.
"""

from __future__ import annotations

import math

import pytest

from rng.cert.sp80090b import noniid, samples
from tests.cert.sp80090b.reference import DATA, load

QUICK = ["rand1_short", "rand4_short", "rand8_short", "truerand_1bit", "ringOsc-nist"]
#: integers in the reference's lines (compared exactly)
COUNTS = {"Mode count", "v", "Sum t_i", "t", "u", "C", "r", "N"}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300)


def _check(name: str) -> None:
    ref = load(name)
    s = samples.read(DATA / f"{name}.bin", ref.bits)
    assert (s.n, s.bits) == (ref.samples, ref.bits)
    a = noniid.assess(s)
    seen = 0
    for track in (a.literal, a.bitstring):
        if track is None:
            continue
        for e in track.estimates:
            want = ref.values.get((track.label, e.name))
            assert want is not None, (track.label, e.name)
            for key, value in want.items():
                if key == "min entropy":
                    got = e.h
                else:
                    assert key in e.values, (track.label, e.name, key)
                    got = e.values[key]
                if key in COUNTS:
                    assert got == int(value), (track.label, e.name, key, got, value)
                else:
                    assert got is not None and _close(float(got), value), \
                        (track.label, e.name, key, got, value)
                seen += 1
            if (track.label, e.name) in ref.no_local:
                assert "P_local" not in e.values
    assert seen == sum(len(v) for v in ref.values.values())
    assert _close(a.h_original, ref.h_original)
    assert _close(a.h_assessed, ref.h_assessed)
    if ref.h_bitstring is not None:
        assert a.h_bitstring is not None and _close(a.h_bitstring, ref.h_bitstring)
    # the reference's default output: six decimals
    assert f"{a.h_assessed:.6f}" == f"{ref.h_assessed:.6f}"


@pytest.mark.parametrize("name", QUICK)
def test_noniid_equals_reference(name: str) -> None:
    _check(name)


def test_noniid_equals_reference_8bit_million() -> None:
    """10^6 samples of 8 bits (8 x 10^6 bits in the bitstring): the full-size case."""
    _check("truerand_8bit")
