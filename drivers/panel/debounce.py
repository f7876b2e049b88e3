"""The ICD's debouncer, for a group of up to 8 switches read together.

A switch changes state only after 2 consecutive scans agree on the new state AND at
least ``debounce_s`` have passed since its last accepted change. Requiring both stops
contact chatter (a few ms of bounce after a press or a release never lasts two clean
scans past the 20 ms guard) while a real second press 50 ms later still counts.

Pure: fed raw samples with their times, it returns accepted changes. No clock, no
pins. Groups are bit masks (bit n = column n, 1 = pressed) so that a row nobody
touches costs one comparison per scan.
"""

from __future__ import annotations

from typing import NamedTuple

from drivers.panel.buttons import ReportKind

AGREEING_SCANS = 2


class Change(NamedTuple):
    """An accepted change of switch ``bit``: pressed, released or reported stuck."""

    bit: int
    kind: ReportKind


class GroupDebouncer:
    """Debounce state of up to 8 switches; ``exempt`` bits are never reported stuck."""

    __slots__ = (
        "_count", "_last", "_pending", "debounce_s", "exempt", "stable", "stuck", "stuck_s",
        "width",
    )

    def __init__(
        self, width: int, debounce_s: float, stuck_s: float, exempt: int = 0
    ) -> None:
        self.width = width
        self.debounce_s = debounce_s
        self.stuck_s = stuck_s
        self.exempt = exempt
        self.stable = 0  # accepted state, bit set = pressed
        self.stuck = 0  # pressed bits already reported stuck
        self._pending = 0  # bits whose recent samples disagree with ``stable``
        self._count = [0] * width
        self._last = [float("-inf")] * width  # time of the last accepted change

    def at_rest(self) -> bool:
        """Nothing pressed and nothing pending: further samples of all-open switches
        would change nothing, so a scanner may stop sampling until an edge."""
        return not (self.stable or self._pending)

    def update(self, raw: int, t: float) -> list[Change]:
        """Feed one scan's sample (bit set = switch reads closed) taken at time ``t``."""
        diff = raw ^ self.stable
        if not (diff or self._pending or self.stable & ~self.stuck & ~self.exempt):
            return []
        out: list[Change] = []
        for bit in range(self.width):
            mask = 1 << bit
            if diff & mask:
                self._count[bit] += 1
                self._pending |= mask
                if self._count[bit] >= AGREEING_SCANS and t - self._last[bit] >= self.debounce_s:
                    self.stable ^= mask
                    self._last[bit] = t
                    self._count[bit] = 0
                    self._pending &= ~mask
                    self.stuck &= ~mask
                    out.append(Change(bit, "press" if raw & mask else "release"))
            elif self._pending & mask:
                self._count[bit] = 0
                self._pending &= ~mask
        held = self.stable & ~self.stuck & ~self.exempt
        if held:
            for bit in range(self.width):
                mask = 1 << bit
                if held & mask and t - self._last[bit] > self.stuck_s:
                    self.stuck |= mask
                    out.append(Change(bit, "stuck"))
        return out
