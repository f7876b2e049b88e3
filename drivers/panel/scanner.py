"""One pass over the key matrix: drive each seat's row low in turn, read the columns.

Rows idle HIGH; exactly one row is LOW at any instant (the pass raises the driven row
before lowering the next), and the columns are read only after the settle time, so
the line capacitance of a long panel cable has discharged. Columns have internal
pull-ups; a column reads LOW when a pressed switch sits on the driven row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from drivers.panel.buttons import BUTTONS, KEY_SWITCHES, PanelReport
from drivers.panel.debounce import GroupDebouncer
from drivers.panel.pins import HIGH, LOW, Pins


class MatrixScanner:
    """Scans ``rows`` (one per seat, seat 1 first) against ``columns`` and debounces."""

    def __init__(
        self,
        pins: Pins,
        rows: Sequence[int],
        columns: Sequence[int],
        settle_s: float,
        debounce_s: float,
        stuck_s: float,
        sleep: Callable[[float], None],
    ) -> None:
        self.pins = pins
        self.rows = tuple(rows)
        self.columns = tuple(columns)
        self.settle_s = settle_s
        self.sleep = sleep
        self.debouncers = [GroupDebouncer(len(columns), debounce_s, stuck_s) for _ in rows]

    def setup(self) -> None:
        for col in self.columns:
            self.pins.setup_input(col, "up")
        for row in self.rows:
            self.pins.setup_output(row, HIGH)

    def sample(self) -> list[int]:
        """Raw switch states, one mask per row (bit n set = column n reads closed)."""
        read, write, cols = self.pins.read, self.pins.write, self.columns
        masks: list[int] = []
        for row in self.rows:
            write(row, LOW)
            self.sleep(self.settle_s)
            mask = 0
            for n, col in enumerate(cols):
                if read(col) == LOW:
                    mask |= 1 << n
            write(row, HIGH)
            masks.append(mask)
        return masks

    def debounce(self, masks: Sequence[int], t: float) -> list[PanelReport]:
        out: list[PanelReport] = []
        for seat, (deb, mask) in enumerate(zip(self.debouncers, masks, strict=True), start=1):
            for ch in deb.update(mask, t):
                out.append(PanelReport(ch.kind, BUTTONS[ch.bit], seat, t))
        return out


class ConsoleInputs:
    """The dealer console: four direct inputs, pulled up, active low, same debounce."""

    def __init__(
        self, pins: Pins, inputs: Sequence[tuple[str, int]], debounce_s: float, stuck_s: float
    ) -> None:
        self.pins = pins
        self.inputs = tuple(inputs)
        exempt = sum(1 << n for n, (name, _) in enumerate(self.inputs) if name in KEY_SWITCHES)
        self.debouncer = GroupDebouncer(len(self.inputs), debounce_s, stuck_s, exempt)

    def setup(self) -> None:
        for _name, pin in self.inputs:
            self.pins.setup_input(pin, "up")

    def sample(self) -> int:
        mask = 0
        for n, (_name, pin) in enumerate(self.inputs):
            if self.pins.read(pin) == LOW:
                mask |= 1 << n
        return mask

    def debounce(self, mask: int, t: float) -> list[PanelReport]:
        return [
            PanelReport(ch.kind, self.inputs[ch.bit][0], None, t)
            for ch in self.debouncer.update(mask, t)
        ]
