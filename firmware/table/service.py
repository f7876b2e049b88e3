"""`etg run`: the table service, composed from the configuration.

Power-up order: journal (locked against a second process, chain verified in production),
power-up event, configuration fingerprint, software authentication (production), the RNG
with its self-test, recovery of the table from the journal, then the drivers (shoe on its
serial URL — or a simulator on a fresh pseudo-terminal — and the panel backend), the UI,
and only then READY to systemd. Every device talks to the controller through its inbox.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from etgcore.errors import UserError
from firmware.config import TableConfig
from firmware.engine.inputs import Fault
from firmware.engine.rules import Rules, load_rules
from firmware.table.controller import Controller
from firmware.table.credits import add_credits_offline as add_credits_offline
from firmware.table.events import EventCode
from firmware.table.happenings import (
    CommandHappening,
    PanelHappening,
    ShoeHappening,
    StopHappening,
)
from firmware.table.journal import Journal, JournalError
from firmware.table.journal_lock import JournalLock
from firmware.table.journal_lock import TableRunning as TableRunning
from firmware.table.journal_open import open_for_table, system_log
from firmware.table.recovery import Recovered, open_table
from firmware.table.sdnotify import Notifier
from firmware.table.simulated_shoe import SimulatedShoe
from firmware.table.transfers import CreditLimits

log = logging.getLogger("etg.table")

AUTO_CREDITS = 1_000_000


@dataclass
class RunOptions:
    seats: int
    auto_play: bool = False
    rounds: int = 0
    headless: bool = False
    control: str | None = None  # bench control socket (bench mode only)
    pace: float | None = None
    quiet: bool = False
    demo: bool = False  # `make run`: every seat starts with credits on a new journal



def _software_check(journal: Journal) -> None:
    """Production power-up check after the journal's own (firmware.table.journal_open):
    the installed program files against their signed manifest (journaled; failing stops
    the start with the reason — the table takes no input)."""
    from firmware.table.start_record import record_software_check

    record_software_check(journal)


def _last_stop(journal: Journal) -> dict[str, Any] | None:
    """How the table last stopped: the POWER_DOWN body of a clean stop, or None when the
    last start has no POWER_DOWN after it (the power failed, or kill -9)."""
    codes = (int(EventCode.POWER_UP), int(EventCode.POWER_DOWN))
    last = None
    for r in journal.records(kinds=["event"]):
        if r.code in codes:
            last = r
    if last is None or last.code != int(EventCode.POWER_DOWN):
        return None
    return dict(last.body)


def _interrupted_fault(stop: dict[str, Any] | None) -> Fault:
    """The tilt a round interrupted by the last stop starts in: a clean stop (SIGTERM,
    Ctrl-C, the window closed) and a power failure read differently."""
    check = "check the layout against the display"
    if stop is None:
        return Fault("POWER", check)
    return Fault("STOPPED", f"{stop.get('reason', 'stopped')}; {check}")


def _config_hashes(cfg: TableConfig, rules: Rules, journal: Journal) -> None:
    """Journal the fingerprint of the configuration in force; a change is its own event
    with the old and new hashes (deploy.fingerprint documents the hashing)."""
    from deploy.fingerprint import fingerprint
    from firmware.table.start_record import record_config_at_start

    record_config_at_start(journal, fingerprint(cfg, rules.to_json()))


def _round_line(rec: dict[str, Any]) -> str:
    d = rec.get("dealer") or {}
    dealer = "blackjack" if d.get("blackjack") else (
        "bust" if d.get("bust") else str(d.get("total", "?")))
    seats = "  ".join(
        f"seat {s['seat']} {s['net']:+d}" for s in rec.get("seats", []) if s.get("net") is not None
    )
    bingo = rec.get("bingo") or {}
    extra = f"  bingo {bingo.get('target')}x{bingo.get('multiplier')}" if bingo else ""
    return f"round {rec['round']} {rec['state']}: dealer {dealer}  {seats}{extra}"


def run_table(cfg: TableConfig, opts: RunOptions) -> int:
    """Run the table until stopped (signal, window closed, or ``opts.rounds`` rounds)."""
    rules = load_rules(cfg.table.variant, dict(cfg.rules), cfg.source)
    bench = cfg.bench
    if opts.control and not bench:
        raise UserError("the bench control channel is a bench power; production mode refuses it")
    if (opts.auto_play or opts.demo) and not bench:
        raise UserError("automatic players (--auto-play, --demo) press a simulated panel: a "
                        "bench power; production mode refuses them")
    if not bench:
        from drivers.shoe.port_check import production_refusal

        refusal = production_refusal(cfg.shoe.port)
        if refusal is not None:
            raise UserError(f"{refusal}; the table will not start")
    jpath = Path(cfg.journal.path)
    try:
        lock = JournalLock(jpath)
    except OSError as exc:
        raise UserError(f"{jpath}: cannot use the journal's directory: "
                        f"{exc.strerror or exc}; the table will not start") from None
    notifier = Notifier()
    started = time.monotonic()
    try:
        # verified before anything is written (a refused journal stays untouched)
        journal = open_for_table(jpath, cfg.journal.key_path, bench=bench)
    except BaseException:
        lock.release()
        raise
    last_stop = _last_stop(journal)

    ctl_box: list[Controller] = []
    floor_link: Any = None
    if cfg.floor.broker:
        from firmware.floor.link import open_floor_link

        floor_link = open_floor_link(
            cfg, rules, journal, lambda args: ctl_box[0].put(CommandHappening("floor", args)))

    def early_event(code: EventCode, **body: Any) -> None:
        journal.append_one("event", body, code=int(code))

    try:
        early_event(EventCode.POWER_UP, mode=cfg.table.mode, variant=rules.variant,
                    pid=os.getpid())
        if not bench:
            _software_check(journal)
        _config_hashes(cfg, rules, journal)
    except (JournalError, UserError) as exc:
        journal.close()
        lock.release()
        if isinstance(exc, UserError):
            raise
        system_log(f"{exc}; the table will not start")
        raise UserError(f"{exc}; the table will not start") from None

    table_rng: Any = None
    rng_failure: str | None = None
    try:
        import rng as rngmod

        table_rng = rngmod.open_table_rng(cfg.rng, bench=bench)
        early_event(EventCode.RNG_SELFTEST_PASS, mechanism=cfg.rng.mechanism)
    except Exception as exc:
        rng_failure = str(getattr(exc, "cause", exc))
        early_event(EventCode.RNG_SELFTEST_FAIL, reason=rng_failure)
        log.error("RNG unavailable: %s", rng_failure)

    rec: Recovered = open_table(journal, rules, opts.seats, bench)
    table = rec.table
    from firmware.table.floor_gate import FloorGate
    from firmware.table.ui_bridge import UiBridge


    def display_failed(why: str) -> None:
        if ctl_box:
            ctl_box[0].put(CommandHappening("fault", {"code": "DISPLAY", "detail": why}))

    bridge = UiBridge(cfg, rules, headless=opts.headless, quiet=opts.quiet,
                      on_failure=display_failed)
    if bridge.has_window:
        from firmware.table.recall import recent_rounds

        bridge.preload(recent_rounds(journal, bridge.recent.maxlen or 10))
    autoplay: Any = None
    def publish(view: dict[str, Any]) -> None:
        bridge.publish(view)
        if floor_link is not None:
            floor_link.offer_view(view, bool(view["controller"]["closed"]))

    ctl = Controller(
        table, journal, rng=table_rng, publish=publish, on_round=bridge.round_done,
        finals_recorded=rec.finals_recorded, round_first_seq=rec.round_first_seq,
        limits=CreditLimits(cfg.table.max_transfer_cents, cfg.table.max_seat_credits),
    )
    ctl.floor_gate = FloorGate.from_journal(journal)
    ctl_box.append(ctl)
    if rng_failure:
        ctl.rng_failure = f"RNG failure: {rng_failure}"
    if (opts.auto_play or opts.demo) and bench:
        # "the first time the journal is created": per seat, until its grant is journaled
        # (each grant is one transaction, so a kill -9 during the first start cannot leave
        # a seat without its credits for good, nor grant them twice)
        granted = {int(r.body["seat"]) for r in journal.records(kinds=["event"])
                   if r.code == int(EventCode.CREDITS_IN)}
        for seat in range(1, opts.seats + 1):
            if seat not in granted:
                ctl.command("credits-in", {"seat": seat, "cents": AUTO_CREDITS})
    if rec.finals > rec.finals_recorded:
        ctl._record_round()  # the power failed between a round's last input and its record
    if rec.in_round:
        ctl.event(EventCode.RECOVERED, table.round_no, inputs=rec.inputs)
        ctl.event(EventCode.RECOVERY_HELD, table.round_no, phase=table.phase)
        if table.tilt is None:
            ctl.feed(_interrupted_fault(last_stop), "recovery")
    elif rec.inputs:
        ctl.event(EventCode.RECOVERED, table.round_no, inputs=rec.inputs)

    sim_shoe: SimulatedShoe | None = None
    driver: Any = None
    panel: Any = None
    control_server: Any = None
    attendant: Any = None
    stop_reason = "stop"
    try:
        from drivers.shoe.driver import ShoeDriver

        shoe_url = cfg.shoe.port
        shoe_control = None
        if shoe_url == "sim":
            if opts.control:
                shoe_control = opts.control + ".shoe"
            sim_shoe = SimulatedShoe(rules, cfg, opts.pace, shoe_control)
            shoe_url = sim_shoe.path
        driver = ShoeDriver(shoe_url, on_event=lambda e: ctl.put(ShoeHappening(e)))
        driver.start()
        ctl.shoe = driver

        from drivers.panel import open_panel

        backend = "sim" if opts.auto_play else cfg.panel.backend
        panel = open_panel(
            cfg.panel, cfg.table.seats, backend=backend,
            on_event=lambda e: ctl.put(PanelHappening(e.kind, e.button, e.seat, e.detail)),
        )
        panel.start()
        ctl.panel = panel
        bridge.attach_panel(panel)
        if opts.auto_play:
            from firmware.table.autoplay import AutoPlay

            autoplay = AutoPlay(panel.sim, rules, list(range(1, opts.seats + 1))).start()
            bridge.autoplay = autoplay
        from firmware.table.attendant_socket import AttendantServer

        attendant = AttendantServer(jpath, ctl).start()
        if floor_link is not None:
            floor_link.start()
        if opts.control:
            from firmware.table.control import ControlServer

            control_server = ControlServer(opts.control, ctl, shoe_control).start()

        rounds_at_start = ctl.finals

        def until() -> bool:
            if not bridge.alive:
                return True
            return bool(opts.rounds) and ctl.finals - rounds_at_start >= opts.rounds

        signalled: list[str] = []  # the loop may end (bridge closed) before it sees the stop

        def on_signal(signum: int, frame: Any) -> None:
            signalled.append(f"stopped by {signal.Signals(signum).name}")
            ctl.put(StopHappening(signalled[-1]))
            bridge.close()

        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, on_signal)
        ready_s = time.monotonic() - started
        notifier.ready(f"table {cfg.table.table_id} {rules.variant}")
        log.info("table ready in %.2f s (%s, %s mode, journal %s)", ready_s, rules.variant,
                 cfg.table.mode, jpath)
        journal.set_info("last_ready_s", f"{ready_s:.4f}")
        ctl.event(EventCode.READY, table.round_no, seconds=round(ready_s, 3))
        watchdog = notifier.watchdog_s

        def loop() -> None:
            last_ping = 0.0

            def stop_or_ping() -> bool:
                nonlocal last_ping
                now = time.monotonic()
                if watchdog and now - last_ping >= watchdog / 2:
                    notifier.watchdog()
                    last_ping = now
                return until()

            def next_ping() -> float | None:
                return last_ping + watchdog / 2 if watchdog else None

            ctl.run(until=stop_or_ping, wake_at=next_ping)
            bridge.close()

        if bridge.has_window:
            worker = threading.Thread(target=loop, name="controller", daemon=True)
            worker.start()
            bridge.run_window()  # SDL wants the main thread
            ctl.put(StopHappening("stopped: the window was closed"))
            worker.join(5)
        else:
            loop()
        done = bool(opts.rounds) and ctl.finals - rounds_at_start >= opts.rounds
        stop_reason = "rounds done" if done else (
            signalled[0] if signalled else ctl.stop_reason or "stopped")
    finally:
        notifier.stopping()
        if autoplay is not None:
            autoplay.stop()
        if control_server is not None:
            control_server.stop()
        if attendant is not None:
            attendant.stop()
        if driver is not None:
            driver.lock()
            time.sleep(0.05)
            driver.stop()
        if panel is not None:
            panel.stop()
        if sim_shoe is not None:
            sim_shoe.stop()
        with contextlib.suppress(JournalError):
            journal.append_one("event", {"reason": stop_reason}, code=int(EventCode.POWER_DOWN))
        if floor_link is not None:
            floor_link.stop()
        if table_rng is not None:
            table_rng.close()
        journal.close()
        lock.release()
    return 0
