"""Starting a helper process that ends with ours, without losing a Ctrl-C on the way.

Two things go wrong when a command starts a child with a ``preexec_fn`` (which it needs
to ask Linux for a parent-death signal between fork and exec):

- Python then runs its at-fork hooks in the parent around the fork (``logging``
  registers one). A SIGINT that lands while such a hook runs raises KeyboardInterrupt
  *inside the hook*, where Python reports it as "Exception ignored" and drops it: the
  command carries on as if Ctrl-C had never been pressed.
- The child must not import or take locks between fork and exec.

:func:`signals_held` blocks the interrupting signals in the starting thread around the
start, so a press waits in the kernel and raises where the caller's code can see it, once
the child is recorded. :func:`dies_with_parent` is the ``preexec_fn``: it reopens those
signals in the child (which inherits the mask) and sets the parent-death signal, calling
only functions looked up beforehand.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import sys
from collections.abc import Callable, Iterator

#: what a terminal, a supervisor or a test sends to stop a command
HELD = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
#: prctl(2)'s PR_SET_PDEATHSIG
_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(None, use_errno=True).prctl
    return None


_PRCTL = _prctl()


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP in this thread for the block. Start the child and
    store its handle inside the block; a signal that came meanwhile is delivered as the
    block ends, so its KeyboardInterrupt finds the child already owned by the caller."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def dies_with_parent() -> None:
    """``preexec_fn``: in the child before exec, take the signals again (the mask survives
    exec, so the program would otherwise start deaf to Ctrl-C) and ask for SIGTERM when
    the starting thread ends, even by ``kill -9`` of the parent: an orphaned helper would
    hold its pseudo-terminal, whose number the kernel then gives to the next one."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)


def own_python(*module_args: str) -> list[str]:
    """The command line of a child running our own code: this interpreter, isolated
    (``-I``: neither the working directory nor ``PYTHON*`` variables nor the user's site
    directory on its path), so a ``firmware/`` planted in the table's working directory
    (the journal's, which the service user can write) is never imported in its place
    (issue 42, red team F5)."""
    return [sys.executable, "-I", "-m", *module_args]
