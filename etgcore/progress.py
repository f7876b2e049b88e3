"""Progress of a long command on stderr, with an estimate of the time left.

On a terminal one line is rewritten in place (at most five times a second); elsewhere
(a log, CI, ``2>file``) a command given ``--progress`` prints a plain line when the first
unit is done, then every few seconds, so a lab's log shows the run advancing, and a last
line when it ends
(how much was done in how long). Standard output stays the command's own result: a
command that prints results as it goes writes them with :meth:`Progress.print`, which
keeps the terminal's progress line below them. The estimate is the plain rate so far:
elapsed / done x left (of the work done in this run: ``initial`` units done before, by
an earlier attempt, count as done but not in the rate).

A :class:`Progress` is also what :class:`lab.tasks.Progress` asks of a display
(``update(n)``), so cluster runs (``etg rtp``, ``etg cert run``) show the same line.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

#: seconds between redraws on a terminal, and between lines elsewhere
TTY_EVERY_S = 0.2
LOG_EVERY_S = 5.0


def duration(seconds: float) -> str:
    """``75`` -> ``"1 min 15 s"``: a person's reading of a duration."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


class Progress:
    """Counts ``done`` of ``total`` ``unit`` and shows it; a no-op when not ``enabled``."""

    def __init__(self, total: int, unit: str, label: str = "", *, enabled: bool = True,
                 stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic,
                 tty: bool | None = None, initial: int = 0) -> None:
        self.total = max(0, int(total))
        self.unit = unit
        self.label = label
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = self.initial = max(0, int(initial))
        self.started = clock()
        self._shown_at: float | None = None
        self._closed = False
        self._shown_done: int | None = None

    def text(self) -> str:
        """The progress line: what, how far, how long so far, about how long left."""
        elapsed = self.clock() - self.started
        head = f"{self.label}: " if self.label else ""
        if self.total:
            pct = 100 * self.done / self.total
            body = f"{self.done:,}/{self.total:,} {self.unit} ({pct:.0f}%)"
        else:
            body = f"{self.done:,} {self.unit}"
        left = ""
        ran = self.done - self.initial
        if self.total and ran > 0 and self.done < self.total:
            left = f", about {duration(elapsed / ran * (self.total - self.done))} left"
        return f"{head}{body}, {duration(elapsed)} elapsed{left}"

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = self.clock()
        every = TTY_EVERY_S if self.tty else LOG_EVERY_S
        # the first unit done is shown at once (in a log: the run is under way, and at
        # what rate), then one line per interval
        if self._shown_at is None or now - self._shown_at >= every:
            self._show()
            self._shown_at = now

    def update(self, n: int = 1) -> None:
        """``n`` more units done (the name :class:`lab.tasks.Progress` asks for)."""
        self.advance(n)

    def set_description(self, what: str) -> None:
        """What the run does now (``etg cert run``: draws, then the raw stream)."""
        self.label = what

    def print(self, text: str, stream: TextIO | None = None) -> None:
        """A result line on stdout (``stream``), above the terminal's progress line."""
        out = stream if stream is not None else sys.stdout
        redraw = self.enabled and self.tty and self._shown_at is not None
        if redraw:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        out.write(text + "\n")
        out.flush()
        if redraw:
            self._show()

    def _show(self) -> None:
        self._shown_done = self.done
        if self.tty:
            self.stream.write("\r" + self.text() + "\x1b[K")
        else:
            self.stream.write(self.text() + "\n")
        self.stream.flush()

    def close(self, finished: bool | None = None) -> None:
        """Clear the terminal line (the command prints its own result next); in a log,
        the last line: what was done in how long — not when the run ends by an exception
        (Ctrl-C is one line, the command line's). ``finished`` None: the run ended
        normally unless an exception is on its way (a ``finally`` clause)."""
        if self._closed or not self.enabled:
            return
        self._closed = True
        if finished is None:
            finished = sys.exc_info()[0] is None
        if self.tty and self._shown_at is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        elif not self.tty and finished and self._shown_done != self.done:
            self._show()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(finished=exc_type is None)


def wanted(flag: bool | None, long: bool = True, stream: TextIO | None = None) -> bool:
    """``--progress`` / ``--no-progress`` as given, else on a terminal for a long job."""
    if flag is not None:
        return flag
    return long and (stream if stream is not None else sys.stderr).isatty()


def progress_for(flag: bool | None, total: int, unit: str, label: str = "", *,
                 long: bool = True) -> Progress:
    """The progress of a command: shown as :func:`wanted` says."""
    return Progress(total, unit, label, enabled=wanted(flag, long))
