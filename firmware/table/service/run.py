"""`etg run`: the table service, composed from the configuration.

Power-up order: journal (locked, its whole keyed chain proven), power-up event, configuration
fingerprint, software authentication (production), the RNG with its self-test, recovery of
the table, then the drivers (the shoe on its serial URL or a simulator on a fresh pty, the
panel), the UI, and only then READY to systemd. Devices talk to the controller's inbox.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from etgcore.errors import UserError
from etgcore.view import PublicView
from firmware.engine.rules import Rules, load_rules
from firmware.journal import EventCode, Journal, JournalError
from firmware.journal.lock import JournalLock
from firmware.journal.once import grant_id
from firmware.journal.opening import open_for_table, system_log
from firmware.journal.witness import WitnessRead
from firmware.table.controller import Controller
from firmware.table.happenings import (
    RequestHappening,
    StopHappening,
)
from firmware.table.meter_proof import start_proof
from firmware.table.ports import FloorPort
from firmware.table.recovery import Recovered, open_table
from firmware.table.requests.transfers import CreditLimits, Transfer
from firmware.table.service.floor_witness import await_witness, check_witness, journal_witness
from firmware.table.service.prefix_audit import prefix_audit
from firmware.table.service.preflight import check_before_start, nobody_presses
from firmware.table.service.restart import find_last_stop, new_shoe_for_the_demo, resume
from firmware.table.service.run_options import PoweredUp, RunOptions
from firmware.table.service.sdnotify import Notifier
from firmware.table.service.start_signals import StoppedWhileStarting, stopped_while_starting
from firmware.table.service.startup import Devices, start_devices
from firmware.table.settings import TableSetup

if TYPE_CHECKING:
    pass

log = logging.getLogger("etg.table")

AUTO_CREDITS = 1_000_000


def _software_check(journal: Journal) -> None:
    """Production power-up check after the journal's own (firmware.journal.opening):
    the installed program files against their signed manifest (journaled; failing stops
    the start with the reason — the table takes no input)."""
    from firmware.table.service.start_record import record_software_check

    record_software_check(journal)


def _config_hashes(cfg: TableSetup, rules: Rules, journal: Journal) -> None:
    """Journal the fingerprint of the configuration in force; a change is its own event
    with the old and new hashes (deploy.fingerprint documents the hashing)."""
    from deploy.fingerprint import fingerprint
    from firmware.table.service.start_record import record_config_at_start

    record_config_at_start(journal, fingerprint(cfg, rules.to_json()))


def _refuse_bench_powers(cfg: TableSetup, opts: RunOptions) -> None:
    if opts.control and not cfg.bench:
        raise UserError("the bench control channel is a bench power; production mode refuses it")
    if (opts.auto_play or opts.demo) and not cfg.bench:
        raise UserError("automatic players (--auto-play, --demo) press a simulated panel: a "
                        "bench power; production mode refuses them")
    if not cfg.bench:
        from drivers.shoe.port_check import production_refusal

        refusal = production_refusal(cfg.shoe.port)
        if refusal is not None:
            raise UserError(f"{refusal}; the table will not start")


def _open_journal(cfg: TableSetup, stack: contextlib.ExitStack) -> Journal:
    """The journal, locked against a second table process and verified before anything
    is written (a refused journal stays untouched); ``stack`` closes and unlocks it."""
    jpath = Path(cfg.journal.path)
    try:
        lock = JournalLock(jpath)
    except OSError as exc:
        raise UserError(f"{jpath}: cannot use the journal's directory: "
                        f"{exc.strerror or exc}; the table will not start") from None
    stack.callback(lock.release)
    journal = open_for_table(jpath, cfg.journal.key_path, bench=cfg.bench,
                             prove=start_proof)
    stack.callback(journal.close)
    return journal


def _power_up_records(cfg: TableSetup, rules: Rules, journal: Journal,
                      witnessed: WitnessRead | None) -> None:
    """POWER_UP, how the journal stood against the floor, the software check
    (production) and the configuration in force."""
    try:
        journal.append_one("event", {"mode": cfg.table.mode, "variant": rules.variant,
                                     "pid": os.getpid()}, code=int(EventCode.POWER_UP))
        journal_witness(journal, witnessed)
        if not cfg.bench:
            _software_check(journal)
        _config_hashes(cfg, rules, journal)
    except JournalError as exc:
        system_log(f"{exc}; the table will not start")
        raise UserError(f"{exc}; the table will not start") from None


def _open_rng(cfg: TableSetup, journal: Journal) -> tuple[Any, str | None]:
    """The table RNG after its power-up self-test (journaled), or None and why not."""
    try:
        import rng as rngmod
        from rng.entropy import claim_of_settings

        claim = claim_of_settings(cfg.rng)  # the assessment's claim, or the floor (said below)
        table_rng = rngmod.open_table_rng(cfg.rng, bench=cfg.bench)
    except Exception as exc:
        failure = str(getattr(exc, "cause", exc))
        journal.append_one("event", {"reason": failure}, code=int(EventCode.RNG_SELFTEST_FAIL))
        log.error("RNG unavailable: %s", failure)
        return None, failure
    event: dict[str, Any] = {"mechanism": cfg.rng.mechanism}
    if claim is not None:
        event["entropy_claim"] = claim.describe()
        log.log(logging.INFO if claim.assessed else logging.WARNING, "%s", claim.describe())
    journal.append_one("event", event, code=int(EventCode.RNG_SELFTEST_PASS))
    return table_rng, None


def _power_up(cfg: TableSetup, opts: RunOptions, rules: Rules, journal: Journal,
              witnessed: WitnessRead | None = None) -> PoweredUp:
    """Power-up records, the RNG, recovery of the table, the UI bridge, the controller."""
    from firmware.table.floor_gate import FloorGate
    from firmware.table.service.ui_bridge import UiBridge

    last_stop = find_last_stop(journal)
    ctl_box: list[Controller] = []
    floor_link: FloorPort | None = None
    if opts.floor_link is not None:
        floor_link = opts.floor_link(
            journal, lambda args: ctl_box[0].put(RequestHappening("floor", args)))
    _power_up_records(cfg, rules, journal, witnessed)
    table_rng, rng_failure = _open_rng(cfg, journal)
    rec: Recovered = open_table(journal, rules, opts.seats, cfg.bench)

    def display_failed(why: str) -> None:
        if ctl_box:
            ctl_box[0].put(RequestHappening("fault", {"code": "DISPLAY", "detail": why}))

    bridge = UiBridge(cfg, rules, headless=opts.headless, quiet=opts.quiet,
                      on_failure=display_failed, demo=opts.demo and not opts.auto_play)
    bridge.attendant_reads(journal, opts.version)  # its meters, events (docs/ui.md)
    if bridge.has_window:
        from firmware.table.recall import recent_rounds

        bridge.preload(recent_rounds(journal, bridge.recent.maxlen or 10))

    def publish(view: PublicView) -> None:
        bridge.publish(view)
        if floor_link is not None:
            floor_link.offer_view(view, view["controller"]["closed"])

    ctl = Controller(
        rec.game, journal, rng=table_rng, publish=publish, on_round=bridge.round_done,
        finals_recorded=rec.finals_recorded, round_first_seq=rec.round_first_seq,
        limits=CreditLimits(cfg.table.max_transfer_cents, cfg.table.max_seat_credits),
        epoch_seq=rec.epoch_seq, checkpoint_rounds=cfg.journal.checkpoint_rounds,
    )
    ctl.floor_gate = FloorGate.from_journal(journal)
    ctl_box.append(ctl)
    if rng_failure:
        ctl.rng_failure = f"RNG failure: {rng_failure}"
    if opts.auto_play or opts.demo:
        _grant_demo_credits(ctl, journal, opts.seats)
    resume(ctl, rec, last_stop)
    if opts.demo:
        new_shoe_for_the_demo(ctl, last_stop, window=not opts.auto_play, quiet=opts.quiet)
    return PoweredUp(ctl, bridge, table_rng, floor_link)


def _grant_demo_credits(ctl: Controller, journal: Journal, seats: int) -> None:
    """"The first time the journal is created": per seat, until its grant is journaled
    (each grant is one transaction, so a kill -9 during the first start cannot leave a
    seat without its credits for good, nor grant them twice)."""
    granted = {int(r.body["seat"]) for r in journal.records(kinds=["event"])
               if r.code == int(EventCode.CREDITS_IN)}
    for seat in range(1, seats + 1):
        if seat not in granted:  # its id: the proof holds the journal to one per seat
            ok, why = ctl.requests.credits(Transfer("credits-in", seat, AUTO_CREDITS,
                                                    grant_id(seat))) if (
                ctl.requests.limits.per_transfer >= AUTO_CREDITS) else (
                False, "more than table.max_transfer_cents")
            if not ok:
                log.warning("seat %d: the auto-play credits were not granted: %s", seat, why)


def _serve(cfg: TableSetup, opts: RunOptions, rules: Rules, up: PoweredUp,
           notifier: Notifier, started: float) -> str:
    """READY, then the controller loop (on its own thread when a window needs the main
    one) until a signal, the window closing or ``opts.rounds``; returns why it stopped."""
    ctl, bridge = up.ctl, up.bridge
    rounds_at_start = ctl.finals

    def until() -> bool:
        if not bridge.alive:
            return True
        return bool(opts.rounds) and ctl.finals - rounds_at_start >= opts.rounds

    signalled: list[str] = []  # the loop may end (bridge closed) before it sees the stop

    def on_signal(signum: int, frame: Any) -> None:
        # runs between two bytecodes of the main thread, maybe inside a lock it holds: only
        # the inbox's reentrant put; the loop closes the screen once it has stopped
        signalled.append(f"stopped by {signal.Signals(signum).name}")
        ctl.put(StopHappening(signalled[-1]))

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    ctl.journal.start_done()  # what the start read was proven (journal.start_guard)
    freeze_startup_heap()
    ready_s = time.monotonic() - started
    notifier.ready(f"table {cfg.table.table_id} {rules.variant}")
    log.info("table ready in %.2f s (%s, %s mode, journal %s)", ready_s, rules.variant,
             cfg.table.mode, cfg.journal.path)
    ctl.journal.set_info("last_ready_s", f"{ready_s:.4f}")
    ctl.event(EventCode.READY, ctl.game.round_no, seconds=round(ready_s, 3))
    if nobody_presses(cfg, opts):  # once it is up: a refused start says only why
        log.warning("no window and no automatic players: nobody will press SHUFFLE (or any "
                    "button of the %s panel); add --auto-play to watch the table play, or "
                    "--control SOCKET to press from a bench script (docs/bench.md)",
                    cfg.panel.backend)
    _loop(ctl, bridge, notifier, until)
    opts.next_game = bridge.chosen_game
    done = bool(opts.rounds) and ctl.finals - rounds_at_start >= opts.rounds
    return "rounds done" if done else (
        signalled[0] if signalled else ctl.stop_reason or "stopped")


def freeze_startup_heap() -> None:
    """Move what the start built (modules, rules, layout, fonts: ~50,000 objects) out of
    the cyclic garbage collector's sight before the first card.

    WHY: a full collection walks every object the process holds, with the GIL held, so
    every thread of the table stops meanwhile: measured in the card benchmark, one took
    34 ms, and a card arriving then reached the screen 37 ms late. Those objects live as
    long as the table does; once frozen, a full collection walks only what play made
    since. Garbage collected first, so none of it is kept for good."""
    gc.collect()
    gc.freeze()


def _loop(ctl: Controller, bridge: Any, notifier: Notifier, until: Callable[[], bool]) -> None:
    """The controller's loop, pinging the systemd watchdog at half its period; with a
    window it runs on its own thread, because SDL wants the main one."""
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


def run_table(cfg: TableSetup, opts: RunOptions) -> int:
    """Run the table until stopped (signal, window closed, or ``opts.rounds`` rounds).

    Power up, start the devices, serve. What was started is undone by one ExitStack in
    the reverse order: the devices (shoe gate locked first), POWER_DOWN in the journal,
    the floor link, the RNG (zeroized), the journal and its lock.
    """
    rules = load_rules(cfg.table.variant, dict(cfg.rules), cfg.source)
    _refuse_bench_powers(cfg, opts)
    check_before_start(cfg, opts)
    notifier = Notifier()
    started = time.monotonic()
    stop_reason = ["stop"]
    try:
        with stopped_while_starting(stop_reason):
            _run(cfg, opts, rules, notifier, started, stop_reason)
    except StoppedWhileStarting:
        log.warning("table %s: %s (not ready yet)", cfg.table.table_id, stop_reason[0])
    if stop_reason[0].startswith(INTERRUPTED):
        # Ctrl-C: one line and the shell's 128 + SIGINT, like every long etg command; a
        # SIGTERM (systemd) or the window closed is an ordinary stop, exit 0
        print(f"etg: interrupted: the table stopped (journal {cfg.journal.path})",
              file=sys.stderr, flush=True)
        return 130
    return 0


#: how a stop by Ctrl-C begins (the POWER_DOWN reason, also while starting)
INTERRUPTED = f"stopped by {signal.SIGINT.name}"


def _run(cfg: TableSetup, opts: RunOptions, rules: Rules, notifier: Notifier,
         started: float, stop_reason: list[str]) -> None:
    with contextlib.ExitStack() as stack:
        journal = _open_journal(cfg, stack)
        witnessed = check_witness(journal, opts.floor_witness)  # still nothing written
        up = _power_up(cfg, opts, rules, journal, witnessed)
        await_witness(up.ctl, up.floor_link, witnessed, opts.witness_required)
        if up.table_rng is not None:
            stack.callback(up.table_rng.close)
        if up.floor_link is not None:
            stack.callback(up.floor_link.stop)

        def power_down() -> None:
            with contextlib.suppress(JournalError):
                journal.append_one("event", {"reason": stop_reason[0]},
                                   code=int(EventCode.POWER_DOWN))

        stack.callback(power_down)
        devices = Devices()
        stack.callback(devices.stop)
        stack.callback(notifier.stopping)
        try:
            start_devices(cfg, opts, rules, up, devices)
        except UserError as exc:  # refused at the start (e.g. the SAS take marks): the
            stop_reason[0] = f"refused at the start: {exc}"  # power-down record says so
            raise
        stack.enter_context(prefix_audit(up.ctl, cfg.journal.key_path))
        stop_reason[0] = _serve(cfg, opts, rules, up, notifier, started)

