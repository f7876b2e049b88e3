"""`etg shoe`: the simulated shoe (``sim``), the technician's monitor (``monitor``) and the
simulator's remote control (``ctl``). See docs/shoe.md."""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path
from typing import Any

from etgcore.cli_context import context
from etgcore.errors import UserError


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "shoe", help="card shoe: simulator, monitor, simulator control", parents=[common],
        description="The card shoe reader (shoe ICD v1): run a simulated shoe, watch a real "
                    "or simulated one as the controller, or command a running simulator.",
    )
    ssub = p.add_subparsers(dest="shoe_command", metavar="ACTION")
    ssub.required = True
    _sim_parser(ssub, common)
    _monitor_parser(ssub, common)
    ctl = ssub.add_parser(
        "ctl", parents=[common], help="command a running simulator (--control socket)",
        description="Send one command to a simulator started with --control PATH and print "
                    "its reply, e.g. `etg shoe ctl --control /tmp/shoe.ctl fault misread`.",
    )
    ctl.add_argument("--control", required=True, metavar="PATH", help="the control socket")
    ctl.add_argument("words", nargs="+", metavar="COMMAND",
                     help="status | received | cards C... | append C... | fault KIND [ARG] | "
                          "frame BODY | raw HEX | pace S | cut N | clear | stop | help")
    ctl.set_defaults(func=_ctl)


def _sim_parser(ssub: Any, common: argparse.ArgumentParser) -> None:
    from drivers.shoe.sim_settings import FAULT_KINDS
    from etgcore.options import add_decks, add_seed, seed_hex

    s = ssub.add_parser(
        "sim", parents=[common], help="run a simulated shoe (the vendor's side of the ICD)",
        description="A simulated shoe: HEL at start, heartbeats, the gate, cards at --pace "
                    "while unlocked, the cut card, EMP, STA, faults on demand.",
    )
    where = s.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", metavar="URL", help="serve an existing port (pyserial URL)")
    where.add_argument("--pty", action="store_true",
                       help="make a pseudo-terminal; its path is the first line printed")
    where.add_argument("--listen", metavar="[HOST:]PORT",
                       help="serve TCP (host 127.0.0.1 unless given); connect with socket://")
    s.add_argument("--link", metavar="PATH", help="with --pty: also make this symlink to it")
    s.add_argument("--cards", metavar="FILE|LIST",
                   help="scripted cards instead of a shuffled shoe: a file or 'AS,TD,9C'")
    add_decks(s, "decks in the shoe")
    s.add_argument("--spanish", action="store_true", help="Spanish decks (no tens)")
    s.add_argument("--pace", type=float, default=None, metavar="S",
                   help="seconds between cards while unlocked (default: shoe.sim_pace_s)")
    s.add_argument("--penetration", type=float, default=None, metavar="F",
                   help="cut card position, fraction of the shoe (default: shoe.sim_penetration)")
    s.add_argument("--cut-after", type=int, default=None, metavar="N",
                   help="cut card after exactly N cards (overrides --penetration)")
    add_seed(s, "bench only: fixed shuffle seed (hex); refused in production mode")
    s.add_argument("--fault", action="append", default=[], metavar="KIND[@CARDS][:ARG]",
                   help="inject a fault once CARDS cards were dealt (repeatable); KIND: "
                        + ", ".join(FAULT_KINDS))
    s.add_argument("--chaos", type=float, default=0.0, metavar="P",
                   help="probability of a random link fault on each frame (bad CRC, drop, ...)")
    s.add_argument("--chaos-seed", type=seed_hex, default="00", metavar="HEX",
                   help="seed (hex) of the random link faults of --chaos (default 00)")
    s.add_argument("--control", metavar="PATH", help="Unix socket for `etg shoe ctl` / the bench")
    s.add_argument("--serial", default="SIM00001", help="serial number announced in HEL")
    s.add_argument("--time-scale", type=float, default=1.0, metavar="F",
                   help="multiply every protocol time by F (tests; 1 = the ICD)")
    s.set_defaults(func=_sim)


def _monitor_parser(ssub: Any, common: argparse.ArgumentParser) -> None:
    from drivers.shoe.session import LED_MODES

    m = ssub.add_parser(
        "monitor", parents=[common], help="act as the controller and print every shoe event",
        description="Open the shoe, answer every frame as the table would, print each event. "
                    "Ctrl-C to quit.",
    )
    m.add_argument("--port", required=True, metavar="URL",
                   help="the shoe: /dev/etg-shoe, a pty path, socket://HOST:PORT, rfc2217://...")
    m.add_argument("--json", action="store_true", help="one JSON object per line")
    m.add_argument("--new", type=int, metavar="DECKS", help="after HEL, send NEW,DECKS (1-8)")
    gate = m.add_mutually_exclusive_group()
    gate.add_argument("--unlock", action="store_true", help="after HEL, unlock the gate")
    gate.add_argument("--lock", action="store_true", help="after HEL, lock the gate")
    m.add_argument("--led", choices=LED_MODES, help="after HEL, set the LED")
    m.add_argument("--query", action="store_true", help="after HEL, ask for STA")
    m.add_argument("--reset", action="store_true", help="send RST at start")
    m.add_argument("--heartbeats", action="store_true", help="print heartbeats too")
    m.add_argument("--no-resync", action="store_true",
                   help="never send RST on our own (default: RST when the shoe did not say HEL)")
    m.add_argument("--cards", type=int, metavar="N", help="exit 0 after N cards")
    m.add_argument("--duration", type=float, metavar="S", help="exit 0 after S seconds")
    m.add_argument("--time-scale", type=float, default=1.0, metavar="F",
                   help="multiply every protocol time by F (tests; 1 = the ICD)")
    m.set_defaults(func=_monitor)


# ---- sim ---------------------------------------------------------------------------------


def parse_cards(text: str) -> list[str]:
    """``--cards``: a file of cards (whitespace or commas, ``#`` comments) or a list."""
    from drivers.shoe.reports import is_card

    path = Path(text)
    if not path.is_file() and any(ch in text for ch in "/.\\"):  # no card has these
        raise UserError(f"--cards {text}: " + ("not a file" if path.exists() else "no such file"))
    if path.is_file():
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"--cards {text}: cannot read: {exc}") from None
        text = " ".join(line.split("#", 1)[0] for line in lines)
    cards = [c.upper() for c in text.replace(",", " ").split()]
    bad = [c for c in cards if not is_card(c)]
    if bad:
        raise UserError(f"--cards: {bad[0]!r} is not a card (rank A2-9TJQK then suit SHDC, "
                        "e.g. TD)")
    if not cards:
        raise UserError("--cards: no card given")
    return cards


def _listen_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise UserError(f"--listen {text}: give [HOST:]PORT, e.g. 7001") from None
    if not 0 <= number <= 65535:
        raise UserError(f"--listen {text}: port must be 0-65535")
    return (host.strip("[]") or "127.0.0.1"), number


def _sim_settings(args: argparse.Namespace) -> Any:
    from drivers.shoe.reliability import ICD_TIMING
    from drivers.shoe.sim_settings import ScheduledFault, SimSettings
    from etgcore.options import configured_decks, seed_int

    cfg = context(args).load_config(args)
    seed: bytes | None = None
    if args.seed:
        if cfg.table.mode == "production":
            raise UserError("--seed: a fixed shuffle seed is a bench power; production mode "
                            "refuses it (table.mode = production)")
        seed = bytes.fromhex(args.seed)
    decks = configured_decks(args, cfg, args.decks)
    pace = cfg.shoe.sim_pace_s if args.pace is None else args.pace
    pen = cfg.shoe.sim_penetration if args.penetration is None else args.penetration
    if pace < 0:
        raise UserError("--pace must be 0 or more seconds")
    if not 0.0 < pen < 1.0:
        raise UserError("--penetration must be a fraction between 0 and 1, e.g. 0.75")
    if args.cut_after is not None and args.cut_after < 0:
        raise UserError("--cut-after must be 0 or more cards")
    if not 0.0 <= args.chaos <= 1.0:
        raise UserError("--chaos must be a probability between 0 and 1")
    if args.time_scale <= 0:
        raise UserError("--time-scale must be positive")
    try:
        faults = tuple(ScheduledFault.parse(f) for f in args.fault)
    except ValueError as exc:
        raise UserError(f"--fault: {exc}") from None
    return SimSettings(
        decks=decks, spanish=args.spanish or cfg.table.variant == "spanish21", pace_s=pace,
        penetration=pen, cut_after=args.cut_after,
        cards=parse_cards(args.cards) if args.cards else None, seed=seed,
        serial=args.serial, timing=ICD_TIMING.scaled(args.time_scale),
        boot_s=0.5 * args.time_scale, chaos=args.chaos, chaos_seed=seed_int(args.chaos_seed),
        faults=faults)


def _sim(args: argparse.Namespace) -> int:
    import logging

    from drivers.shoe.sim_control import ControlServer
    from drivers.shoe.simulator import ShoeSimulator

    settings = _sim_settings(args)
    if args.link and not args.pty:
        raise UserError("--link makes a symlink to the pty: use it with --pty")
    if args.pty:
        try:
            sim = ShoeSimulator.on_pty(settings, link=args.link)
        except OSError as exc:
            raise UserError(f"--link {args.link}: {exc.strerror or exc}") from None
    elif args.listen:
        host, port = _listen_address(args.listen)
        try:
            sim = ShoeSimulator.on_tcp(host, port, settings)
        except OSError as exc:
            raise UserError(f"--listen {args.listen}: {exc.strerror or exc}") from None
    else:
        sim = ShoeSimulator.on_url(args.port, settings)
    # The handler only notes the stop: stopping closes the port and joins the simulator's
    # thread, which must not run inside a signal handler. It is in place before anything
    # says the simulator is up (the path line, the control socket): a service manager or
    # a bench may send SIGTERM the moment it sees either.
    terminated: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, _frame: terminated.append(signum))
    print(sim.path, flush=True)
    control = None
    try:
        if args.control:
            try:
                control = ControlServer(sim, args.control).start()
            except OSError as exc:
                sim.stop()
                raise UserError(f"--control {args.control}: {exc.strerror or exc}") from None
        logging.getLogger("etg.shoe.sim").info(
            "simulated shoe on %s%s", sim.port.description,
            f", control socket {args.control}" if args.control else "")
        sim.start()
        while not sim.wait(0.5) and not terminated:
            pass
    except KeyboardInterrupt:
        pass
    finally:
        if control is not None:
            control.stop()
        sim.stop()
    if sim.error is not None:
        raise UserError(f"simulated shoe stopped: {sim.error}")
    return 0


# ---- monitor -----------------------------------------------------------------------------


def _monitor(args: argparse.Namespace) -> int:
    from drivers.shoe.monitor import run_monitor

    try:
        return run_monitor(args)
    except KeyboardInterrupt:
        return 0


# ---- ctl ---------------------------------------------------------------------------------


def _ctl(args: argparse.Namespace) -> int:
    from drivers.shoe.sim_control import accepted, control

    if not os.path.exists(args.control):
        raise UserError(f"--control {args.control}: no such socket (is the simulator running "
                        "with --control?)")
    try:
        reply = control(args.control, " ".join(args.words))
    except OSError as exc:
        raise UserError(f"--control {args.control}: {exc.strerror or exc}") from None
    print(reply)
    return 0 if accepted(reply) else 2
