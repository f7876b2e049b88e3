"""What `etg run` checks before it creates anything, and what it says of a table nobody
can drive.

A refused start leaves no journal, socket or process behind (issue 38): the options are
checked first, then the devices this machine can open and the local sockets' paths, and
only then does the start open the journal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from etgcore.errors import UserError
from firmware.table.settings import TableSetup

if TYPE_CHECKING:
    from firmware.table.service.run_options import RunOptions


def check_before_start(cfg: TableSetup, opts: RunOptions) -> None:
    """Every option and device the start will need, checked before anything is created
    (a refused `etg run` leaves no journal, socket or process behind): the panel backend
    this machine can open, and the local sockets' paths (a Unix socket path is short)."""
    from drivers.panel import check_backend
    from etgcore.line_server import socket_path_problem
    from firmware.table.requests.attendant_socket import socket_path

    check_backend("sim" if opts.auto_play else cfg.panel.backend)
    problem = socket_path_problem(socket_path(cfg.journal.path), parent_will_exist=True)
    if problem:
        raise UserError(f"the attendant socket beside the journal: {problem}; use a shorter "
                        "journal path (--journal)")
    if opts.control:
        for path in (opts.control, opts.control + ".shoe"):
            problem = socket_path_problem(path)
            if problem:
                raise UserError(f"--control: {problem}")


def nobody_presses(cfg: TableSetup, opts: RunOptions) -> bool:
    """A table no one can drive: no window (so no keyboard and no touches), a simulated or
    keyboard panel, no automatic players and no bench control channel."""
    from firmware.table.service.ui_bridge import display_available

    if opts.auto_play or opts.control or cfg.panel.backend == "gpio":
        return False
    return opts.headless or not cfg.display.enabled or not display_available()
