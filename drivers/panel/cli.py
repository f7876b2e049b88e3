"""`etg panel`: the technician's self-test and the keyboard backend's key map."""

from __future__ import annotations

import argparse
from typing import Any

from etgcore.cli_context import context


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "panel", help="player panels, lamps and dealer console: self-test, key map",
        description="Button panels, lamps and dealer console (docs/panel.md).",
        parents=[common],
    )
    psub = p.add_subparsers(dest="panel_command", metavar="ACTION")
    psub.required = True
    t = psub.add_parser(
        "test", parents=[common], help="walk every lamp, print every press and release",
        description=(
            "Technician's self-test: light every lamp in turn, then print each press, "
            "release and stuck key with its seat and button until Ctrl-C (exit 0) or "
            "--duration. With --panel sim a script of presses runs and everything is "
            "checked against the simulated hardware (exit 1 on a fault)."
        ),
    )
    t.add_argument(
        "--panel", dest="backend", choices=["sim", "gpio"], default=None,
        help="panel backend to test, as etg run --panel (default: panel.backend if sim or "
        "gpio, else sim)",
    )
    t.add_argument("--backend", dest="backend", choices=["sim", "gpio"],
                   default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    t.add_argument(
        "--script", metavar="STEPS", default=None,
        help="sim only: presses to play, '[SEAT:]BUTTON[+HOLD_MS], ...', e.g. "
        "'1:BET, 3:HIT+200, DEAL, RECALL+1500' (default: one per seat and console input)",
    )
    t.add_argument(
        "--duration", type=float, metavar="S", default=None,
        help="keep listening this many seconds after the walk (default: sim ends after "
        "its script, gpio runs until Ctrl-C)",
    )
    t.add_argument(
        "--lamp-step", type=float, metavar="S", default=None,
        help="seconds each lamp stays lit in the walk (default 0.25 on gpio, 0.01 on sim)",
    )
    t.set_defaults(func=_test)
    k = psub.add_parser(
        "keys", parents=[common], help="print the keyboard backend's key map",
        description="The desktop key map of panel.backend = keyboard.",
    )
    k.set_defaults(func=_keys)


def _test(args: argparse.Namespace) -> int:
    from drivers.panel import open_panel
    from drivers.panel.panel import MatrixPanel
    from drivers.panel.selftest import SelfTest, default_script, parse_script
    from drivers.panel.settings import PanelBackend
    from etgcore.errors import UserError

    cfg = context(args).load_config(args)
    backend: PanelBackend = args.backend or (
        cfg.panel.backend if cfg.panel.backend != "keyboard" else "sim"
    )
    if args.script is not None and backend != "sim":
        raise UserError("--script presses simulated switches: use it with --panel sim")
    if args.duration is not None and args.duration < 0:
        raise UserError("--duration must be 0 or more seconds")
    if args.lamp_step is not None and args.lamp_step < 0:
        raise UserError("--lamp-step must be 0 or more seconds")
    steps = (
        parse_script(default_script(cfg.table.seats) if args.script is None else args.script,
                     cfg.table.seats)
        if backend == "sim" else []
    )
    shortest = cfg.panel.debounce_ms + 2 * cfg.panel.scan_period_ms
    for step in steps:
        if step.hold_ms < shortest:
            raise UserError(
                f"--script: a hold of {step.hold_ms} ms is shorter than the debounce lets "
                f"through ({shortest:g} ms: {cfg.panel.debounce_ms:g} ms and two scans)")
    lamp_step = args.lamp_step if args.lamp_step is not None else (
        0.01 if backend == "sim" else 0.25
    )
    panel = open_panel(cfg.panel, cfg.table.seats, backend)
    assert isinstance(panel, MatrixPanel)
    test = SelfTest(panel, lambda line: print(line, flush=True), max(0.0, lamp_step))
    print(
        f"panel self-test on {backend}: {cfg.table.seats} seat(s), scan every "
        f"{cfg.panel.scan_period_ms:g} ms, debounce {cfg.panel.debounce_ms:g} ms, "
        f"stuck after {cfg.panel.stuck_key_s:g} s; Ctrl-C ends", flush=True,
    )
    try:
        panel.start()
        test.walk_lamps()
        if steps:
            test.play(steps)
        if args.duration is not None:
            test.faulted.wait(args.duration)
        elif backend != "sim":
            print("press any button or key switch; Ctrl-C ends", flush=True)
            while not test.faulted.wait(3600):
                pass
        if test.faulted.is_set():
            print("the scan stopped on a pin fault: check the wiring and the pin map",
                  flush=True)
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        panel.stop()
    print(test.summary(), flush=True)
    return 0 if test.failures == 0 else 1


def _keys(args: argparse.Namespace) -> int:
    from drivers.panel.keyboard import CONSOLE_KEYS, SEAT_KEYS

    print("keyboard backend (panel.backend = keyboard):")
    print("  1..7 (or keypad 1..7)  choose the seat the button keys act for")
    also = {"STAND": "; NO INSURANCE while insurance is offered",
            "INSURANCE": " (takes insurance; in betting, the optional wager where offered)",
            "SURRENDER": "; RESCUE after a Spanish 21 double"}
    for key, button in SEAT_KEYS.items():
        print(f"  {key:<22} {button} of the chosen seat{also.get(button, '')}")
    for key, button in CONSOLE_KEYS.items():
        print(f"  {key:<22} console {button}")
    print(f"  {'f1':<22} (in the table's window) the key help on the screen")
    return 0
