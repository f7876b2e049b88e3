"""The shoe simulator run for the table service (``shoe.port = "sim"``): its own
process on a fresh pseudo-terminal, ended with the table process."""

from __future__ import annotations

import select
import subprocess

from etgcore.child import dies_with_parent, own_python, signals_held
from etgcore.errors import UserError
from firmware.engine.rules import Rules
from firmware.table.settings import TableSetup


class SimulatedShoe:
    """The shoe simulator as its own process on a fresh pseudo-terminal (as on a bench):
    the driver talks the ICD to it over the pty exactly as it would to the real shoe."""

    def __init__(self, rules: Rules, cfg: TableSetup, pace: float | None,
                 control: str | None) -> None:
        cmd = [
            *own_python("firmware"), "shoe", "sim", "--pty",
            "--decks", str(rules.decks),
            "--pace", str(cfg.shoe.sim_pace_s if pace is None else pace),
            "--penetration", str(cfg.shoe.sim_penetration),
            "--set", f"table.mode={cfg.table.mode}",
        ]
        if rules.deck_kind == "spanish":
            cmd.append("--spanish")
        if cfg.rng.seed_hex and cfg.bench:
            cmd += ["--seed", cfg.rng.seed_hex]
        if control:
            cmd += ["--control", control]
        with signals_held():
            self.proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, bufsize=1,
                # ended with the table, even by kill -9: no orphan holding the pty
                preexec_fn=dies_with_parent,
                # its own process group: a terminal's Ctrl-C reaches the table, which
                # stops the simulator after its devices (else the port vanishes
                # mid-shutdown)
                process_group=0,
            )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline().strip() if ready else ""
        if not line.startswith("/"):
            self.stop()
            raise UserError(f"the shoe simulator did not start (got {line!r})")
        self.path = line

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
