"""A desktop stand-in for the panels: the keyboard of the machine running the UI.

The UI owns the pygame window and its event loop; it forwards key events here with
:meth:`KeyboardPanel.handle_event` (a pygame event) or :meth:`KeyboardPanel.handle_key`
(a key name or code and whether it went down). This module never imports pygame
unless handed a key *code* to name.

Key map (docs/panel.md): digits 1-7 choose the seat the letter keys act for (the
table service may also follow the action with :meth:`select_seat`); then

    B BET   C CLEAR   H HIT   S STAND   D DOUBLE   P SPLIT   R SURRENDER   I INSURANCE

(S is also NO INSURANCE while insurance is offered, R the rescue after a Spanish 21
double: the table gives the buttons those meanings, see firmware.table.devices.translate)

and for the dealer console: Return DEAL, F9 SHUFFLE, F10 VOID, F11 RECALL (held).
A key held down reports one press and, when let go, one release, for the seat it was
pressed for. Key auto-repeat is ignored, as the ICD says holding must not repeat.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from drivers.panel.buttons import BUTTONS, CONSOLE_BUTTONS, PanelReport
from drivers.panel.panel import Panel, ReportSink

#: Letter key -> panel button of the selected seat.
SEAT_KEYS: Mapping[str, str] = {
    "b": "BET", "c": "CLEAR", "h": "HIT", "s": "STAND",
    "d": "DOUBLE", "p": "SPLIT", "r": "SURRENDER", "i": "INSURANCE",
}
#: Key -> dealer console input.
CONSOLE_KEYS: Mapping[str, str] = {
    "return": "DEAL", "enter": "DEAL", "f9": "SHUFFLE", "f10": "VOID", "f11": "RECALL",
}
#: Key -> seat it selects (top row digits and the keypad).
SELECT_KEYS: Mapping[str, int] = {
    **{str(n): n for n in range(1, 8)}, **{f"[{n}]": n for n in range(1, 8)},
}

assert set(SEAT_KEYS.values()) == set(BUTTONS)
assert set(CONSOLE_KEYS.values()) == set(CONSOLE_BUTTONS)


def key_label(name: str) -> str:
    """How a key is written on the screen: ``B``, ``Return``, ``F9``."""
    return name.capitalize() if len(name) > 3 and not name.startswith("f") else name.upper()


#: What the help says beside a button's key (the table's conventions, docs/table.md)
_MEANING = {
    "BET": "BET: the table minimum, each further press one wager unit more",
    "CLEAR": "CLEAR: the seat's wagers back, while betting is open",
    "STAND": "STAND; NO INSURANCE while insurance is offered",
    "SURRENDER": "SURRENDER; RESCUE after a Spanish 21 double",
    "INSURANCE": "INSURANCE; between rounds, a Free Bet table's Push 22 wager",
    "DEAL": "DEAL (console): close the wagers, resume after a tilt",
    "SHUFFLE": "SHUFFLE (console): a new shoe is loaded",
    "VOID": "VOID (supervisor key): void the round, its wagers returned",
    "RECALL": "RECALL (attendant key, hold it): the last rounds; with it held, DEAL shows "
              "the meters, the last events, the configuration",
}


def key_legend(seats: int) -> list[tuple[str, str]]:
    """(keys, what they do) for every key of the map: the seat keys, each seat button,
    each console input."""
    rows = [(f"1-{seats}" if seats > 1 else "1",
             "choose the seat the letter keys act for (the table moves them to the seat "
             "whose turn it is)")]
    rows += [(key_label(k), _MEANING.get(b, b)) for k, b in SEAT_KEYS.items()]
    rows += [(key_label(k), _MEANING.get(b, b)) for k, b in CONSOLE_KEYS.items()
             if k != "enter"]
    return rows


def key_name(key: str | int) -> str:
    """pygame's name of a key code (``pygame.key.name``), lower case; names pass through."""
    if isinstance(key, str):
        return key.lower()
    import pygame

    return str(pygame.key.name(key)).lower()


class KeyboardPanel(Panel):
    """Panel events from key presses; lamps are only remembered (the UI may draw them)."""

    backend = "keyboard"

    def __init__(
        self, seats: int, on_report: ReportSink | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(seats, on_report)
        self.clock = clock
        self.selected = 1
        self._down: dict[str, PanelReport] = {}  # key name -> its press
        self._lock = threading.Lock()
        self._running = False

    def start(self) -> None:
        self._running = True

    def stop(self) -> None:
        self._running = False
        with self._lock:
            held, self._down = list(self._down.values()), {}
        for ev in held:  # nothing stays pressed across a restart
            self.deliver(PanelReport("release", ev.button, ev.seat, self.clock()))

    def select_seat(self, seat: int) -> None:
        """Make the letter keys act for ``seat`` (1..seats)."""
        if not 1 <= seat <= self.seats:
            raise ValueError(f"seat {seat}: this table has seats 1..{self.seats}")
        self.selected = seat

    def button_keys(self) -> dict[str, str]:
        """Panel button and console input -> the key that presses it, as the UI shows it
        (on the lit buttons, and beside every prompt that names a button or an input)."""
        keys = {button: key_label(key) for key, button in SEAT_KEYS.items()}
        for key, button in CONSOLE_KEYS.items():
            keys.setdefault(button, key_label(key))  # Return before keypad Enter
        return keys

    def key_legend(self) -> list[tuple[str, str]]:
        """(keys, what they do), every key of the map, for the screen's key help (F1)."""
        return key_legend(self.seats)

    def handle_event(self, event: Any) -> bool:
        """Feed a pygame event; True if it was a key of the map (then it is consumed)."""
        kind = getattr(event, "type", None)
        import pygame

        if kind == pygame.KEYDOWN:
            return self.handle_key(event.key, True)
        if kind == pygame.KEYUP:
            return self.handle_key(event.key, False)
        return False

    def handle_key(self, key: str | int, down: bool) -> bool:
        """A key went down (``down``) or up: a key name (``"h"``, ``"f9"``) or pygame code.

        Returns True if the key belongs to the map, whether or not it made an event.
        """
        if not self._running:
            return False
        name = key_name(key)
        if name in SELECT_KEYS:
            if down and SELECT_KEYS[name] <= self.seats:
                self.selected = SELECT_KEYS[name]
            return True
        with self._lock:
            if down:
                if name in self._down:
                    return True  # auto-repeat: holding does not repeat
                if name in SEAT_KEYS:
                    ev = PanelReport("press", SEAT_KEYS[name], self.selected, self.clock())
                elif name in CONSOLE_KEYS:
                    ev = PanelReport("press", CONSOLE_KEYS[name], None, self.clock())
                else:
                    return False
                self._down[name] = ev
            else:
                pressed = self._down.pop(name, None)
                if pressed is None:
                    return name in SEAT_KEYS or name in CONSOLE_KEYS
                ev = PanelReport("release", pressed.button, pressed.seat, self.clock())
        self.deliver(ev)
        return True
