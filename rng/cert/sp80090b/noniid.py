"""The non-IID track (90B 6.3) on a file of samples: every estimator on the literal
samples and on the bitstring, H_original, H_bitstring and the assessed min-entropy.

Which estimators run where follows 90B 3.1.3 and 6.3: with more than two distinct
values, all ten on the bitstring (H_bitstring, per bit) and the six that take any
alphabet on the literal samples (H_original); with binary samples, all ten on the
samples themselves. The assessed min-entropy per sample is min(H_original,
bits x H_bitstring) (3.1.3), or H_original for binary samples.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rng.cert.sp80090b import entropic, predictors, tuples
from rng.cert.sp80090b.entropic import Estimate
from rng.cert.sp80090b.samples import Samples

#: the estimators in the standard's order, each a (JSON testCaseDesc, binary only) pair
CASES = (
    ("Most Common Value", False),
    ("Collision Test (for bit strings only)", True),
    ("Markov Test (for bit strings only)", True),
    ("Compression Test (for bit strings only)", True),
    ("T-Tuple Test", False),
    ("LRS Test", False),
    ("Multi Most Common in Window Test", False),
    ("Lag Prediction Test", False),
    ("Multi Markov Model with Counting Test (MultiMMC)", False),
    ("LZ78Y Test", False),
)
#: the estimators that are the unit of progress (one step each, per view)
STEPS = 7


@dataclass
class Track:
    """The estimates on one view of the data (``Literal`` or ``Bitstring``)."""

    label: str
    estimates: list[Estimate] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def h(self) -> float | None:
        hs = [e.h for e in self.estimates if e.h is not None]
        return min(hs) if hs else None

    def get(self, name: str) -> Estimate | None:
        return next((e for e in self.estimates if e.name == name), None)


@dataclass
class Assessment:
    """The non-IID assessment of one file."""

    samples: Samples
    literal: Track
    bitstring: Track | None
    h_original: float
    h_bitstring: float | None
    h_assessed: float

    @property
    def bits(self) -> int:
        return self.samples.bits


def run_track(s: np.ndarray, k: int, label: str, *, binary: bool,
              step: Callable[[str], None] | None = None) -> Track:
    """Every estimator that applies to ``s`` (symbols 0..k-1)."""
    t0 = time.process_time()
    tr = Track(label)

    def done(what: str) -> None:
        if step is not None:
            step(f"{label} {what}")

    tr.estimates.append(entropic.most_common_value(s, k))
    if binary:
        tr.estimates.append(entropic.collision(s))
        tr.estimates.append(entropic.markov(s))
        tr.estimates.append(entropic.compression(s))
    done("entropic statistics")
    st = tuples.tuple_stats(s, k)
    tt, t = tuples.t_tuple(st, s.size)
    tr.estimates.append(tt)
    tr.estimates.append(tuples.lrs(st, s.size, t))
    done("t-tuple and LRS")
    for fn in (predictors.multi_mcw, predictors.lag, predictors.multi_mmc, predictors.lz78y):
        tr.estimates.append(fn(s, k))
        done(tr.estimates[-1].name)
    tr.seconds = time.process_time() - t0
    return tr


def steps_for(samples: Samples) -> int:
    """Progress units of :func:`assess` (one per estimator group and view)."""
    return STEPS * (1 if samples.binary else 2)


def assess(samples: Samples, *, step: Callable[[str], None] | None = None,
           bitstring_limit: int | None = None) -> Assessment:
    """The non-IID track; ``bitstring_limit`` truncates the bitstring (the reference's ``-t``)."""
    if samples.binary:
        lit = run_track(samples.symbols, 2, "Literal", binary=True, step=step)
        h = min(lit.h or float(samples.bits), float(samples.bits))
        return Assessment(samples, lit, None, h, None, h)
    bits = samples.bitstring(bitstring_limit)
    bit = run_track(bits, 2, "Bitstring", binary=True, step=step)
    lit = run_track(samples.symbols, samples.k, "Literal", binary=False, step=step)
    h_orig = min(lit.h if lit.h is not None else float(samples.bits), float(samples.bits))
    h_bit = min(bit.h if bit.h is not None else 1.0, 1.0)
    return Assessment(samples, lit, bit, h_orig, h_bit,
                      min(h_orig, samples.bits * h_bit, float(samples.bits)))


_PREFIX = {"MultiMCW Prediction": "Multi Most Common in Window Test",
           "Lag Prediction": "Lag Prediction Test",
           "MultiMMC Prediction": "Multi Markov Model with Counting Test (MultiMMC)",
           "LZ78Y Prediction": "LZ78Y Test",
           "Most Common Value": "Most Common Value",
           "Collision": "Collision Test (for bit strings only)",
           "Markov": "Markov Test (for bit strings only)",
           "Compression": "Compression Test (for bit strings only)",
           "t-Tuple": "T-Tuple Test", "LRS": "LRS Test"}


def description(name: str) -> str:
    """The reference's ``testCaseDesc`` of an estimator."""
    return _PREFIX[name]


def test_cases(a: Assessment) -> list[dict[str, Any]]:
    """The reference's ``testCases`` list (ea_non_iid ``-o``): one object per estimator
    with ``hOriginal`` (literal samples) and ``hBitstring`` (the bitstring, or binary
    samples' own estimates for the bitstring-only tests), then "Overall"."""
    cases: dict[str, dict[str, Any]] = {desc: {"testCaseDesc": desc} for desc, _ in CASES}
    binary = a.bitstring is None
    for track, is_bits in ((a.literal, binary), (a.bitstring, True)):
        if track is None:
            continue
        for e in track.estimates:
            if e.h is None:
                continue
            case = cases[_PREFIX[e.name]]
            if e.name == "t-Tuple":
                case["binTTupleRes" if is_bits and track.label == "Bitstring" else
                     "tTupleRes"] = e.h
            elif e.name == "LRS":
                case["binLrsRes" if is_bits and track.label == "Bitstring" else
                     "lrsRes"] = e.h
            elif e.name in ("Collision", "Markov", "Compression") and binary:
                case["hOriginal"] = e.h
            else:
                case["hBitstring" if track.label == "Bitstring" else "hOriginal"] = e.h
            if e.name == "Most Common Value" and track.label == "Literal":
                case["mcvEstimateMode"] = float(e.values["Mode count"])
                case["mcvEstimatePHat"] = e.values["p-hat"]
                case["mcvEstimatePU"] = e.values["p_u"]
    overall: dict[str, Any] = {"testCaseDesc": "Overall", "dataWordSize": float(a.bits),
                               "hOriginal": a.h_original, "hAssessed": a.h_assessed}
    if a.h_bitstring is not None:
        overall["hBitstring"] = a.h_bitstring
    return [*cases.values(), overall]
