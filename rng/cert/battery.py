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

from rng.cert.coupon import CouponCollector, CouponPiece
from rng.cert.frequency import FrequencyCounter, IndependenceCounter
from rng.cert.overlaps import RepeatTest
from rng.cert.patterns import GapTest, PokerTest
from rng.cert.results import TestResult
from rng.cert.serial import PIT_SEED, PitStream, RunsUpDown, SerialCorrelation
from rng.cert.tables import OutcomeTable

#: A block's outcomes go through the streaming tests this many at a time: their 64-bit
#: temporaries then stay in the core's own cache (a whole 2^20-draw block's are 8 MiB
#: each, which two busy cores fetch from the memory they share).
PART_CHUNK = 1 << 16
MAX_GAP_VALUES = 12


class OutcomeBattery:
    """Every test of one outcome kind; :meth:`update` with chunks, then :meth:`results`."""

    def __init__(self, table: OutcomeTable, planned_n: int, subject: str | None = None,
                 offset: int = 0) -> None:
        self.table = table
        self.offset = offset  # position of this battery's first outcome in the run
        subject = subject or table.title
        self.subject = subject
        p = table.probabilities
        self.frequency = FrequencyCounter(p, subject)
        self.serial = SerialCorrelation(subject)
        # a tie-breaking stream of its own per kind, so two kinds never share jitter
        self.pit = PitStream(p, seed=PIT_SEED + zlib.crc32(",".join(table.labels).encode()),
                             offset=offset)
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
        self.poker = PokerTest(p, subject, offset=offset)
        self.coupon = CouponCollector(p, subject)
        self.coupon_piece: CouponPiece | None = None  # a block's piece (see part())
        self.repeat = RepeatTest(p, subject, planned_n, offset=offset)
        self.n = 0

    @classmethod
    def part(cls, table: OutcomeTable, planned_n: int, x: npt.NDArray[np.integer],
             offset: int, subject: str | None = None) -> OutcomeBattery:
        """The battery of one block of a run (outcomes ``offset`` .. ``offset + len(x)``),
        drawn on some worker, to :meth:`merge` in order into the run's battery."""
        bat = cls(table, planned_n, subject, offset=offset)
        for lo in range(0, len(x), PART_CHUNK):
            bat._stream(x[lo:lo + PART_CHUNK])
        if len(x):
            bat.repeat.update(x)  # windows within the block: the whole block at once
        # the piece continues any state; the block's own state is the piece from the start
        bat.coupon_piece = bat.coupon.piece(np.asarray(x))
        bat.coupon.absorb(bat.coupon_piece)
        bat.repeat.drop_lookup()  # the run's battery rebuilds it from the keys
        return bat

    def merge(self, later: OutcomeBattery) -> None:
        """Continue with the block that follows this battery's outcomes.

        Every statistic but the overlaps test comes out exactly as one battery fed the
        whole sequence would compute it (tests/cert/test_cert_merge.py); the overlaps test
        compares windows within each block and sampled windows across blocks.
        """
        if later.offset != self.offset + self.n:
            raise ValueError(f"blocks merge in order: expected the block at {self.offset + self.n},"
                             f" got {later.offset}")
        if later.coupon_piece is None and later.n and self.coupon.usable:
            raise ValueError("merge a battery made by OutcomeBattery.part()")
        self.n += later.n
        self.frequency.merge(later.frequency)
        self.serial.merge(later.serial)
        self.runs.merge(later.runs)
        for g, h in zip(self.gaps, later.gaps, strict=True):
            g.merge(h)
        self.poker.merge(later.poker)
        self.coupon.absorb(later.coupon_piece)
        self.repeat.merge(later.repeat)

    def update(self, x: npt.NDArray[np.integer]) -> None:
        self._stream(x)
        if x.size:
            self.coupon.update(x)
            self.repeat.update(x)

    def _stream(self, x: npt.NDArray[np.integer]) -> None:
        """The tests a block's part feeds chunk by chunk: all but the coupon collector
        (a part makes its piece) and the overlaps test (a part's windows are its block's)."""
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
