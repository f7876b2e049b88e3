"""The battery on one sequence of scaled outcomes, fed in chunks (memory bounded).

One :class:`OutcomeBattery` holds every accumulator for one outcome kind (targets,
multipliers, card draws); chunks of category indexes go in, in order, and
:meth:`OutcomeBattery.results` gives one :class:`~rng.cert.results.TestResult` per test.
No accumulator keeps more than a bounded tail of the data (the overlaps test keeps
N / 64 hashes), so 10^8 outcomes analyse in a few hundred megabytes.
"""

from __future__ import annotations

import zlib

import numpy as np
import numpy.typing as npt

from rng.cert.frequency import FrequencyCounter, IndependenceCounter
from rng.cert.overlaps import RepeatTest
from rng.cert.patterns import CouponCollector, GapTest, PokerTest
from rng.cert.results import TestResult
from rng.cert.serial import PIT_SEED, PitStream, RunsUpDown, SerialCorrelation
from rng.cert.tables import OutcomeTable

MAX_GAP_VALUES = 12


class OutcomeBattery:
    """Every test of one outcome kind; :meth:`update` with chunks, then :meth:`results`."""

    def __init__(self, table: OutcomeTable, planned_n: int, subject: str | None = None) -> None:
        self.table = table
        subject = subject or table.title
        self.subject = subject
        p = table.probabilities
        self.frequency = FrequencyCounter(p, subject)
        self.serial = SerialCorrelation(subject)
        # a tie-breaking stream of its own per kind, so two kinds never share jitter
        self.pit = PitStream(p, seed=PIT_SEED + zlib.crc32(",".join(table.labels).encode()))
        self.runs = RunsUpDown(subject)
        self.gaps: list[GapTest] = []
        if table.k <= MAX_GAP_VALUES:
            for i, lab in enumerate(table.labels):
                if table.weights[i] > 0:
                    self.gaps.append(GapTest([i], p, subject, f"value {lab}"))
        else:
            half = table.k // 2
            self.gaps.append(GapTest(range(half), p, subject,
                                     f"first {half} of {table.k} values"))
        self.poker = PokerTest(p, subject)
        self.coupon = CouponCollector(p, subject)
        self.repeat = RepeatTest(p, subject, planned_n)
        self.n = 0

    def update(self, x: npt.NDArray[np.integer]) -> None:
        if x.size == 0:
            return
        if int(x.min()) < 0 or int(x.max()) >= self.table.k:
            raise ValueError("outcome index out of range")
        self.n += x.size
        self.frequency.update(x)
        self.serial.update(x)
        self.runs.update(self.pit.transform(x))
        for g in self.gaps:
            g.update(x)
        self.poker.update(x)
        self.coupon.update(x)
        self.repeat.update(x)

    def results(self) -> list[TestResult]:
        out = [*self.frequency.results(), *self.serial.results(), *self.runs.results()]
        for g in self.gaps:
            out.extend(g.results())
        out += [*self.poker.results(), *self.coupon.results(), *self.repeat.results()]
        return out

    def plot_data(self) -> dict[str, object]:
        """What the report plots: observed vs expected counts, correlations by lag."""
        return {
            "labels": list(self.table.labels),
            "observed": self.frequency.counts.tolist(),
            "expected": (self.table.probabilities * self.n).tolist(),
            "correlations": self.serial.correlations() if self.n > 10 else [],
            "n": self.n,
        }


def run_battery(table: OutcomeTable, chunks: object, planned_n: int,
                subject: str | None = None) -> OutcomeBattery:
    """Feed an iterable of index arrays through a new battery and return it."""
    bat = OutcomeBattery(table, planned_n, subject)
    for chunk in chunks:  # type: ignore[attr-defined]
        bat.update(np.asarray(chunk))
    return bat


__all__ = ["IndependenceCounter", "OutcomeBattery", "run_battery"]
