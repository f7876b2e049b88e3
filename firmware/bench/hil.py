"""`etg bench run --mode hil`: the hil driver registered with the shared runner.

Importing this module installs :class:`~firmware.bench.hil_target.HilTarget` as the
``hil`` mode of :mod:`firmware.bench.runner`; loading, playback, comparison, the PASS/FAIL
lines, the exit code and the JUnit report are the engine mode's own.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from etgcore.errors import UserError
from firmware.bench.hil_config import table_sections
from firmware.bench.hil_target import HilTarget
from firmware.bench.runner import register_driver
from firmware.bench.target import TableTarget
from firmware.table.settings import TableSetup

register_driver("hil", HilTarget)


def hil_factory(cfg: TableSetup, target: type[HilTarget] = HilTarget,
                **kw: Any) -> Callable[[], TableTarget]:
    """The hil driver for this configuration, its service built from the table's own
    sections (:func:`~firmware.bench.hil_config.table_sections`: the file, ``--set``,
    the defaults); production refuses the bench's powers."""
    if not cfg.bench:
        raise UserError(
            "--mode hil drives the table through the bench control channel, a bench power: "
            "this configuration is in production mode (table.mode = \"production\"), "
            "which refuses it"
        )
    return partial(target, table=table_sections(cfg), **kw)
