"""The happenings: what arrives in the table controller's inbox.

Drivers, the attendant and bench channels, and signal handlers hand these to
``Controller.put``; the controller's one thread takes them in order.
"""

from __future__ import annotations

import queue
from dataclasses import dataclass, field
from typing import Any

from drivers.panel.buttons import ReportKind
from drivers.shoe.reports import ShoeReport


@dataclass(frozen=True)
class ShoeHappening:
    report: ShoeReport


@dataclass(frozen=True)
class PanelHappening:
    kind: ReportKind  #: press | release | stuck | fault (the panel driver's vocabulary)
    button: str
    seat: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class RequestHappening:
    """An attendant or bench request; ``reply`` receives (ok, message)."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    reply: queue.Queue[tuple[bool, str]] | None = None


@dataclass(frozen=True)
class StopHappening:
    reason: str = "stop"


Happening = ShoeHappening | PanelHappening | RequestHappening | StopHappening
