"""The one Dask log line an interrupted run hides, and only that one.

Dask's ``sync`` cancel callback, run on its event loop when Ctrl-C reaches a thread
waiting in ``sync``, raises a NameError of its own and tornado logs it; the event-loop
thread can log it before the interrupted thread has unwound, so the filter is in place
for the client's whole life. Anything else the loop logs must still be seen.
"""

from __future__ import annotations

import logging
import sys

from lab import cluster


def _record_of(source: str, filename: str) -> logging.LogRecord:
    """A tornado-style error record of the exception ``cancel()`` raises in ``source``."""
    scope: dict[str, object] = {}
    exec(compile(source, filename, "exec"), scope)
    try:
        scope["cancel"]()  # type: ignore[operator]
    except Exception:
        exc_info = sys.exc_info()
    return logging.LogRecord("tornado.application", logging.ERROR, __file__, 1,
                             "Exception in callback", None, exc_info)


def test_only_dasks_own_cancel_slip_is_dropped_from_the_loops_log() -> None:
    slip = "def cancel():\n    if future is not None:\n        pass\n"
    assert cluster._is_dask_cancel_slip(_record_of(slip, "/x/distributed/utils.py"))
    # the same slip in our code, or another error in Dask's cancel, is still logged
    assert not cluster._is_dask_cancel_slip(_record_of(slip, "/x/lab/tasks.py"))
    other = "def cancel():\n    raise ValueError('x')\n"
    assert not cluster._is_dask_cancel_slip(_record_of(other, "/x/distributed/utils.py"))
    plain = logging.LogRecord("tornado.application", logging.ERROR, __file__, 1, "m", None,
                              None)
    assert not cluster._is_dask_cancel_slip(plain)
