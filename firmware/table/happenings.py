"""The happenings: what arrives in the table controller's inbox.

Drivers, the attendant and bench channels, and signal handlers hand these to
``Controller.put``; the controller's one thread takes them in order.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
from collections.abc import Callable, Sequence
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


class HeldReply:
    """A request's reply held until the change it made is published everywhere (the
    screen, and the SAS link's process: :attr:`Controller.before_reply`), so that whoever
    got the answer and then asks a SAS host reads the new meters, never the old ones.
    What the handler puts is passed on at :meth:`release`; a put after it goes at once."""

    def __init__(self, reply: queue.Queue[tuple[bool, str]] | None) -> None:
        self.reply = reply
        self._held: list[tuple[bool, str]] | None = []

    def put(self, item: tuple[bool, str], block: bool = True,
            timeout: float | None = None) -> None:
        if self._held is None:
            if self.reply is not None:
                self.reply.put(item, block, timeout)
        else:
            self._held.append(item)

    def release(self, before: Sequence[Callable[[], object]]) -> None:
        held, self._held = self._held or [], None
        if held:
            for wait in before:
                try:
                    wait()
                except Exception:  # a hook's trouble never keeps an answer back
                    logging.getLogger("etg.table").exception("before a reply")
        for item in held:
            if self.reply is not None:
                self.reply.put(item)


def hold_reply(h: Happening) -> tuple[Happening, HeldReply]:
    """``h`` with its reply held (a request with a reply), else ``h`` unchanged (and a
    hold that holds nothing)."""
    if not isinstance(h, RequestHappening) or h.reply is None:
        return h, HeldReply(None)
    held = HeldReply(h.reply)
    return dataclasses.replace(h, reply=held), held  # type: ignore[arg-type]


@dataclass(frozen=True)
class StopHappening:
    reason: str = "stop"


Happening = ShoeHappening | PanelHappening | RequestHappening | StopHappening
