"""SIGTERM or Ctrl-C while the table is still starting: undo what started, say why.

Kept apart from :mod:`firmware.table.service.run` (which composes the start) because it
is one self-contained rule about signals before READY.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any

from firmware.table.errors import TableError


class StoppedWhileStarting(TableError):
    """SIGTERM came before the table was ready: what had started is undone."""


@contextlib.contextmanager
def stopped_while_starting(stop_reason: list[str]) -> Iterator[None]:
    """SIGTERM before READY (systemd stopping a table that is still starting) unwinds
    what has started, like Ctrl-C does: the devices stop and the journal's POWER_DOWN
    says why, instead of the signal's default action ending the process with nothing
    recorded. From READY on, the serving loop (firmware.table.service.run) takes SIGTERM
    as a stop request. The handlers in place before are restored on the way out."""

    def stop(signum: int, _frame: Any) -> None:
        stop_reason[0] = f"stopped by {signal.Signals(signum).name} while starting"
        raise StoppedWhileStarting(stop_reason[0])

    # SIGINT too: _serve installs its own for both
    before = {signal.SIGINT: signal.getsignal(signal.SIGINT),
              signal.SIGTERM: signal.signal(signal.SIGTERM, stop)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
