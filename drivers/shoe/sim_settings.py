"""What a simulated shoe is told before it starts: its settings and the faults it knows.

Split from :mod:`drivers.shoe.sim_machine` (the state machine) so that the command line,
the bench and the tests can describe a shoe without loading the machine that runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from drivers.shoe.reliability import ICD_TIMING, Timing
from drivers.shoe.reports import SHOE_FAULT_CODES

#: Faults the simulator can inject (CLI ``--fault``, control ``fault``, :meth:`inject`).
LINK_FAULTS = ("bad-crc", "drop", "duplicate", "late-ack", "garbage")
SHOE_FAULTS = tuple(code.lower() for code in SHOE_FAULT_CODES)
POWER_FAULTS = ("silence", "reboot")
FAULT_KINDS = LINK_FAULTS + SHOE_FAULTS + POWER_FAULTS
STICKY = ("JAM", "LID", "SENSOR")

Shuffler = Callable[[int, bool, bytes | None], list[str]]


def rng_shuffler(decks: int, spanish: bool, seed: bytes | None) -> list[str]:
    """A shoe shuffled by the table's certified RNG (``rng.shoe``)."""
    from rng.shoe import shuffled_shoe

    return shuffled_shoe(decks, spanish=spanish, seed=seed)


@dataclass(frozen=True)
class ScheduledFault:
    """A fault to inject once ``after_cards`` cards have been dealt since start."""

    kind: str
    after_cards: int = 0
    arg: float | None = None

    @classmethod
    def parse(cls, text: str) -> ScheduledFault:
        """``KIND[@CARDS][:ARG]``, e.g. ``misread@10``, ``silence@5:4``, ``garbage:32``."""
        rest, _, arg = text.partition(":")
        kind, _, after = rest.partition("@")
        kind = kind.strip().lower()
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r} (one of: {', '.join(FAULT_KINDS)})")
        try:
            n = int(after) if after else 0
            value = float(arg) if arg else None
        except ValueError:
            raise ValueError(f"fault {text!r}: use KIND[@CARDS][:ARG] with numbers") from None
        if n < 0 or (value is not None and value < 0):
            raise ValueError(f"fault {text!r}: numbers must not be negative")
        return cls(kind, n, value)


@dataclass
class SimSettings:
    decks: int = 6
    spanish: bool = False
    pace_s: float = 0.2  #: seconds between cards while unlocked (0: as fast as the link)
    penetration: float = 0.75  #: cut card position as a fraction of the shoe
    cut_after: int | None = None  #: or an exact number of cards before the cut card
    cards: Sequence[str] | None = None  #: a scripted shoe instead of a shuffled one
    seed: bytes | None = None  #: bench only: a fixed seed for the shuffles
    model: str = "ETG-SHOE-SIM"
    firmware: str = "1.0.0"
    serial: str = "SIM00001"
    timing: Timing = ICD_TIMING
    boot_s: float = 0.5  #: a reboot keeps the shoe dark this long before its HEL
    chaos: float = 0.0  #: probability of a random link fault on each frame we send
    chaos_seed: int = 0
    faults: Sequence[ScheduledFault] = field(default_factory=tuple)
