"""Button names of the panel ICD and the events a panel delivers.

The names are the contract with the table service (docs/interfaces.md): a player
panel's buttons in matrix-column order, and the dealer console's inputs. Everything
else in this package refers to buttons by these names or by their column index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

#: Player panel buttons, index = matrix column (panel ICD table).
BUTTONS: tuple[str, ...] = (
    "BET", "CLEAR", "HIT", "STAND", "DOUBLE", "SPLIT", "SURRENDER", "INSURANCE",
)
#: Dealer console inputs, in pin-map order.
CONSOLE_BUTTONS: tuple[str, ...] = ("DEAL", "SHUFFLE", "VOID", "RECALL")
#: Key switches are legitimately held (RECALL for as long as the recall screen is
#: wanted, VOID while the supervisor's key is turned), so holding them is no fault.
KEY_SWITCHES: frozenset[str] = frozenset({"VOID", "RECALL"})
MAX_SEATS = 7

ReportKind = Literal["press", "release", "stuck", "fault"]


@dataclass(frozen=True)
class PanelReport:
    """One accepted happening on a panel or the console.

    ``seat`` is 1..7 for a player panel and ``None`` for the dealer console. ``t`` is
    the panel clock's time (monotonic seconds) when the change was accepted. A ``stuck``
    event means the key has been held past ``panel.stuck_key_s``; its ``release``
    still follows when it lets go. A ``fault`` (button ``SCAN``) means the scanner
    stopped on a pin error, explained in ``detail``: no more events will come.
    """

    kind: ReportKind
    button: str
    seat: int | None = None
    t: float = 0.0
    detail: str = ""

    @property
    def console(self) -> bool:
        return self.seat is None

    def where(self) -> str:
        """``seat 3 HIT`` or ``console DEAL``: for logs and the self-test."""
        return f"console {self.button}" if self.seat is None else f"seat {self.seat} {self.button}"

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "seat": self.seat, "button": self.button,
                             "t": self.t}
        if self.detail:
            d["detail"] = self.detail
        return d


def button_index(name: str) -> int:
    """Column index of a player button name (case-insensitive); ValueError if unknown."""
    try:
        return BUTTONS.index(name.upper())
    except ValueError:
        raise ValueError(
            f"unknown panel button {name!r} (known: {' '.join(BUTTONS)})"
        ) from None
