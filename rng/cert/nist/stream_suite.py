"""The full SP 800-22 suite inside ``etg cert run``: the raw DRBG stream, cut into
sequences of 10^6 bits as it is drawn, every sequence through all fifteen tests, and the
second-level figures as results of the run's family.

The sequences are the stream's consecutive 125,000-byte pieces, which is how NIST's
``assess 1000000`` (and ``etg cert bits stream.bin``) read ``stream.bin``: the lab gets
the same numbers from the file. A stream shorter than one sequence gets a note instead.
Each column (test, template, state) adds to the run's Holm family its binomial P-value of
the failures among its sequences and its uniformity P-value (:mod:`.second_level`); with
a single sequence, its P-values themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rng.cert.nist import bits_report
from rng.cert.nist import source as src
from rng.cert.nist.bits_run import BitsOptions, BitsRun, sequence_task
from rng.cert.nist.second_level import MIN_UNIFORMITY, ColumnSummary, summarize, verdict
from rng.cert.nist.suite import SECTIONS, SuiteParams, columns
from rng.cert.results import TestResult

SEQUENCE_BITS = 1_000_000
REF = "NIST SP 800-22 Rev. 1a"


@dataclass
class StreamSuite:
    """Feed the stream's bytes in order; each full sequence is tested as it completes."""

    length: int = SEQUENCE_BITS
    rows: list[np.ndarray] = field(default_factory=list)
    stats: list[np.ndarray] = field(default_factory=list)
    returns: list[int] = field(default_factory=list)
    _buffer: bytearray = field(default_factory=bytearray)

    def __post_init__(self) -> None:
        self.params = SuiteParams(self.length)

    def update(self, data: bytes) -> None:
        self._buffer += data
        size = self.length // 8
        while len(self._buffer) >= size:
            r = sequence_task(self.params, len(self.rows), bytes(self._buffer[:size]))
            del self._buffer[:size]
            self.rows.append(r.p)
            self.stats.append(r.statistic)
            self.returns.append(r.returns)

    def run(self, name: str, command: str) -> BitsRun | None:
        """The finished suite as ``etg cert bits`` reports it (None: no whole sequence)."""
        if not self.rows:
            return None
        cols = columns(self.params)
        p = np.vstack(self.rows)
        summaries = [summarize(c, p[:, i]) for i, c in enumerate(cols)]
        info = src.SourceInfo(name, len(self.rows) * self.length, None, None)
        opts = BitsOptions(name, "binary", self.params, len(self.rows), command=command)
        return BitsRun(opts, info, cols, p, np.vstack(self.stats), summaries,
                       verdict(summaries, len(self.rows)), "", "", 0.0,
                       returns=np.array(self.returns, dtype=np.int64))


def section_results(run: BitsRun, subject: str) -> list[TestResult]:
    """The suite's figures as members of the certification run's family."""
    out: list[TestResult] = []
    for s in run.summaries:
        out += _column_results(s, subject, run.streams)
    return out


def _column_results(s: ColumnSummary, subject: str, streams: int) -> list[TestResult]:
    c = s.column
    ref = f"{REF} {SECTIONS[c.key]}"
    name = f"SP 800-22 {c.title}"
    if s.tested == 0:
        return [TestResult(subject, name, float("nan"), float("nan"), "", 0,
                           "not applicable to any sequence (too few cycles)", ref,
                           applicable=False)]
    if streams == 1:
        assert s.first_level is not None
        return [TestResult(subject, name, float("nan"), s.first_level, "", SEQUENCE_BITS, "",
                           ref)]
    hist = " ".join(map(str, s.histogram))
    out = [TestResult(subject, f"{name}: proportion passing", s.passed / s.tested,
                      s.proportion_p, f"binomial({s.tested}, 0.01) failures", s.tested,
                      f"{s.passed}/{s.tested} with P >= 0.01; NIST's range {s.range_text()}"
                      + (" (outside)" if s.proportion_flag else ""), f"{REF} 4.2.1",
                      continuous=False)]
    if s.uniformity_exact is not None:
        null = "chi2(9)" if s.tested >= MIN_UNIFORMITY else "exact multinomial"
        shown = "----" if s.uniformity is None else f"{s.uniformity:.6f}"
        out.append(TestResult(subject, f"{name}: uniformity of P-values", float("nan"),
                              s.uniformity_exact, null, s.tested,
                              f"C1..C10 {hist}; assess's P-VALUE {shown}",
                              f"{REF} 4.2.2", continuous=False))
    return out


def write_report(run: BitsRun, out: Path) -> None:
    bits_report.write(run, out)
