"""`etg bench soak`: the table service played for a long time, disturbed on purpose.

The soak starts the shoe simulator as its own process on a pseudo-terminal (a separate
device: it outlives the table's restarts, as a real shoe does) and the real `etg run`
service with auto-players and an auto-dealer (``--auto-play``: they press switches on
the simulated key matrix). While the rounds go on it injects, at random moments chosen
from ``--seed``, about ``--faults`` disturbances per round:

- **shoe faults** through the simulator's control socket: ``misread``, ``double``,
  ``jam``/``lid``/``sensor`` (cleared by the "technician" a moment later), ``silence``
  (link down), ``reboot`` (a ``HEL`` mid-round) and link noise (``bad-crc``, ``drop``,
  ``duplicate``, ``garbage``, ``late-ack``);
- **panel bounce**: bursts of contact chatter on a seat's switch through the bench
  control channel, which the scanner's debouncer must turn into at most one press;
- **service restarts**: ``kill -9`` of the table process at any instant, then a start
  on the same journal (power-fail recovery); with ``--kill-every N`` also after every
  N-th round recorded, so a short soak restarts for sure.

After every restart the meters are compared with an engine replay of the journal as the
table just started on it (the meter proof, read-only beside the running table), and
when ``--rounds`` rounds are recorded the service is stopped and the whole journal
checked (:mod:`firmware.bench.soak_checks`). A table that makes no progress for
:data:`STALL_S` seconds is a violation too.
"""

from __future__ import annotations

import contextlib
import random
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from etgcore.child import own_python
from etgcore.errors import UserError
from etgcore.progress import Progress
from firmware.bench.hil_service import ServiceError, ServiceProcess
from firmware.bench.soak_checks import Check, check_journal, replay_problem
from firmware.bench.soak_sas import SoakHost
from firmware.engine.rules import load_rules

SHOE_FAULTS = ("misread", "double", "jam", "lid", "sensor", "silence", "reboot")
LINK_NOISE = ("bad-crc", "drop", "duplicate", "garbage", "late-ack")
STICKY = ("jam", "lid", "sensor")
PANEL_BUTTONS = ("BET", "CLEAR", "HIT", "STAND", "DOUBLE", "SPLIT", "SURRENDER", "INSURANCE")
#: kinds of disturbance and their shares
KINDS = (("shoe", 0.45), ("noise", 0.15), ("bounce", 0.25), ("restart", 0.15))
#: no new round for this long: the table is stuck
STALL_S = 90.0
#: seconds between cards from the simulated shoe
SHOE_PACE_S = 0.02


@dataclass
class SoakResult:
    variant: str
    rounds: int = 0
    seconds: float = 0.0
    injected: Counter[str] = field(default_factory=Counter)
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def rate(self) -> float:
        return self.rounds / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, object]:
        return {"ok": self.ok, "variant": self.variant, "rounds": self.rounds,
                "seconds": round(self.seconds, 3), "rounds_per_s": round(self.rate, 3),
                "injected": dict(sorted(self.injected.items())),
                "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail}
                           for c in self.checks]}

    def lines(self) -> list[str]:
        out = [f"{'PASS' if c.ok else 'FAIL'} {c.name}: {c.detail}" for c in self.checks]
        faults = ", ".join(f"{k} {n}" for k, n in sorted(self.injected.items())) or "none"
        out.append(f"soak {self.variant}: {self.rounds} rounds in {self.seconds:.1f} s = "
                   f"{self.rate:.2f} rounds/s; injected: {faults}")
        bad = sum(not c.ok for c in self.checks)
        out.append(f"{len(self.checks) - bad} invariants held, {bad} violated")
        return out


class ShoeProcess:
    """``etg shoe sim --pty --control`` as its own process; ``path`` is its pty."""

    def __init__(self, workdir: Path, decks: int, spanish: bool, seed: int) -> None:
        self.control = str(workdir / "shoe.sock")
        cmd = [*own_python("firmware"), "shoe", "sim", "--pty", "--decks", str(decks),
               "--pace", str(SHOE_PACE_S), "--control", self.control,
               "--seed", f"{seed & 0xFFFFFFFF:08x}" * 4, "--set", 'table.mode="bench"']
        if spanish:
            cmd.append("--spanish")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                     stderr=open(workdir / "shoe.log", "ab"),  # noqa: SIM115
                                     text=True, start_new_session=True)
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        line = self.proc.stdout.readline().strip() if ready else ""
        if not line.startswith("/"):
            self.stop()
            raise UserError(f"the shoe simulator did not start (got {line!r})")
        self.path = line

    def send(self, line: str) -> str:
        from drivers.shoe.sim_control import control

        return control(self.control, line)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class Soak:
    def __init__(self, variant: str, rounds: int, faults: float, seed: int,
                 seats: int = 3, kill_every: int = 0, checkpoint_rounds: int = 2,
                 sas_host: bool = False) -> None:
        if rounds < 1:
            raise UserError("--rounds must be at least 1")
        if not 0 <= faults <= 10:
            raise UserError("--faults is disturbances per round, 0 to 10")
        if kill_every < 0:
            raise UserError("--kill-every must be 0 (none) or more rounds")
        self.kill_every = kill_every
        #: small, so that every game passes several checkpoints and, after each restart,
        #: the background proof of the history before the last one (issue 42)
        self.checkpoint_rounds = checkpoint_rounds
        self.sas_host = sas_host  # a slot system's host polls every seat (soak_sas)
        self._sas: SoakHost | None = None
        #: after each restart: (restart number, the proof's problem or "")
        self.after_restarts: list[tuple[int, str]] = []
        self.rules = load_rules(variant, {}, source="soak")
        self.variant = variant
        self.rounds = rounds
        self.faults = faults
        self.rng = random.Random(seed)
        self.seed = seed
        self.seats = min(seats, self.rules.max_seats)
        self.result = SoakResult(variant)
        self._sticky: list[tuple[float, str]] = []
        self._progress: Progress | None = None

    def run(self, keep: Path | None = None, progress: Progress | None = None) -> SoakResult:
        """Play and check; ``keep``: a directory to keep the journal and logs in;
        ``progress``: told of every round recorded."""
        self._progress = progress
        work = Path(tempfile.mkdtemp(prefix="etg-soak-"))
        shoe = svc = None
        t0 = time.monotonic()
        try:
            shoe = ShoeProcess(work, self.rules.decks, self.rules.deck_kind == "spanish",
                               self.seed)
            sections: dict[str, dict[str, object]] = {
                "table": {"variant": self.variant}, "shoe": {"port": shoe.path},
                "panel": {"backend": "sim"},
                "journal": {"checkpoint_rounds": self.checkpoint_rounds}}
            if self.sas_host:
                sections["sas"] = {"port": "pty"}
            svc = ServiceProcess(sections, seats=self.seats, extra_args=("--auto-play",),
                                 workdir=str(work))
            svc.start()
            if self.sas_host:
                self._sas = SoakHost(self.seats, svc.log_path, journal=svc.journal_path)
                self._sas.attach()
            t0 = time.monotonic()
            self._play(svc, shoe)
            self.result.seconds = time.monotonic() - t0
            if self._sas is not None:
                self._sas.detach()
            svc.stop()
            self.result.checks = [*check_journal(svc.journal_path), self._restart_check()]
            if self._sas is not None:
                self.result.checks += self._sas.checks(svc.journal_path)
        except ServiceError as exc:
            self.result.seconds = time.monotonic() - t0
            self.result.checks = [Check("table service", False, str(exc))]
        finally:
            if self._sas is not None:
                self._sas.detach()
            if svc is not None:
                svc.stop()
            if shoe is not None:
                shoe.stop()
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                for f in work.iterdir():
                    if f.is_file() and not f.is_socket():
                        shutil.copy2(f, keep / f.name)
            shutil.rmtree(work, ignore_errors=True)
        return self.result

    def _recorded(self, svc: ServiceProcess) -> int:
        try:
            return len(svc.journal.records("round"))
        except Exception:  # the file is being created or locked for a moment: ask again
            return self.result.rounds

    def _play(self, svc: ServiceProcess, shoe: ShoeProcess) -> None:
        last_progress = time.monotonic()
        round_s = 1.0  # running estimate of a round's duration
        next_at: float | None = None
        seen = 0
        while True:
            now = time.monotonic()
            n = self._recorded(svc)
            if n != seen:
                seen_before = seen
                if seen:
                    round_s = 0.8 * round_s + 0.2 * (now - last_progress) / (n - seen)
                if self._progress is not None:
                    self._progress.advance(max(0, min(n, self.rounds) - min(seen, self.rounds)))
                seen, last_progress = n, now
                self.result.rounds = n
                if n >= self.rounds:
                    return
                if self.kill_every and n // self.kill_every > seen_before // self.kill_every:
                    self._restart(svc, "kill -9 restart (every "
                                  f"{self.kill_every} rounds)")
                if next_at is None and self.rng.random() < min(self.faults, 1.0):
                    next_at = now + self.rng.uniform(0.0, round_s)
            if next_at is not None and now >= next_at:
                next_at = None
                extra = max(self.faults - 1.0, 0.0)  # more than one per round: chain them
                if self.rng.random() < extra / max(self.faults, 1e-9):
                    next_at = now + self.rng.uniform(0.0, round_s)
                self._disturb(svc, shoe)
            for when, kind in list(self._sticky):
                if now >= when:
                    self._sticky.remove((when, kind))
                    with contextlib.suppress(OSError):
                        shoe.send("clear")  # the technician freed the jam / closed the lid
            if not svc.alive():
                raise ServiceError(f"etg run died: {svc.last_log_line()}")
            if now - last_progress > STALL_S:
                why = ""
                with contextlib.suppress(Exception):
                    why = svc.control("status")["view"]["expecting"]["why"]
                raise ServiceError(f"no round ended for {STALL_S:.0f} s (table: {why})")
            time.sleep(0.05)

    def _disturb(self, svc: ServiceProcess, shoe: ShoeProcess) -> None:
        kind = self.rng.choices([k for k, _ in KINDS], [w for _, w in KINDS])[0]
        if kind == "shoe":
            fault = self.rng.choice(SHOE_FAULTS)
            arg = " 3.5" if fault == "silence" else ""
            shoe.send(f"fault {fault}{arg}")
            if fault in STICKY:
                self._sticky.append((time.monotonic() + self.rng.uniform(0.3, 4.0), fault))
            self.result.injected[f"shoe {fault}"] += 1
        elif kind == "noise":
            fault = self.rng.choice(LINK_NOISE)
            shoe.send(f"fault {fault}")
            self.result.injected["link noise"] += 1
        elif kind == "bounce":
            self._bounce(svc)
            self.result.injected["panel bounce"] += 1
        else:
            self._restart(svc, "kill -9 restart")

    def _restart(self, svc: ServiceProcess, kind: str) -> None:
        """kill -9, a start on the same journal, then the meters against an engine replay
        of the journal as the table just started on it."""
        if self._sas is not None:
            self._sas.detach()
        svc.kill9()
        svc.start()
        if self._sas is not None:
            self._sas.attach()
        self.result.injected[kind] += 1
        self.after_restarts.append((svc.starts - 1, replay_problem(svc.journal_path)))

    def _restart_check(self) -> Check:
        name = "meters equal the replay after every restart"
        bad = [f"restart {i}: {why}" for i, why in self.after_restarts if why]
        if bad:
            return Check(name, False, "; ".join(bad[:3]))
        return Check(name, True, f"{len(self.after_restarts)} restart(s), each followed by "
                     "an engine replay of the journal equal to its meters")

    def _bounce(self, svc: ServiceProcess) -> None:
        """Contact chatter: a switch closing and opening a few times within milliseconds,
        then settling open (a press with a bad contact, or a knock on the panel)."""
        seat = self.rng.randint(1, self.seats)
        button = self.rng.choice(PANEL_BUTTONS)
        for _ in range(self.rng.randint(2, 6)):
            svc.control("press", seat=seat, button=button)
            time.sleep(self.rng.uniform(0.0005, 0.004))
            svc.control("release", seat=seat, button=button)
            time.sleep(self.rng.uniform(0.0005, 0.004))
