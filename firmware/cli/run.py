"""`etg run` and `etg credits`: the table service and the attendant's credit transfers."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from etgcore.cli_context import context
from etgcore.errors import UserError
from etgcore.money import dollars
from firmware.engine.rules import VARIANTS

if TYPE_CHECKING:
    from firmware.journal import Journal
    from firmware.journal.witness import WitnessRead
    from firmware.table.ports import FloorPort, OpenFloorLink, ReadWitness


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "run", parents=[common], help="run the table (shoe, panels, RNG, engine, UI, journal)",
        description="Run one table from the configuration. Without a display (or with "
        "--headless) it prints a line per round.",
    )
    p.add_argument("--variant", choices=VARIANTS, help="the game (table.variant)")
    p.add_argument("--shoe", metavar="URL|sim", help="shoe port: a pyserial URL or sim")
    p.add_argument("--panel", choices=["gpio", "sim", "keyboard"], help="panel backend")
    p.add_argument("--headless", action="store_true", help="no window; a line per round")
    p.add_argument("--auto-play", action="store_true",
                   help="automatic players on the simulated panel and an automatic dealer")
    p.add_argument("--seats", type=int, metavar="N",
                   help="seats in play (default: 3 with --auto-play, else table.seats)")
    p.add_argument("--rounds", type=int, default=0, metavar="N", help="stop after N rounds")
    p.add_argument("--journal", metavar="PATH", help="journal file (journal.path)")
    p.add_argument("--pace", type=_pace, metavar="S",
                   help="simulated shoe: seconds between cards (shoe.sim_pace_s, 0 to 10)")
    p.add_argument("--control", metavar="SOCKET",
                   help="bench only: open the bench control channel on this Unix socket")
    p.add_argument("--demo", action="store_true",
                   help="what `make run` does: a simulated table; keyboard panel in a "
                   "window, auto-play headless when there is no display")
    p.add_argument("--quiet", action="store_true", help="no line per round")
    p.set_defaults(func=cmd_run)

    c = sub.add_parser(
        "credits", parents=[common], help="attendant credit transfers to and from seats",
        description="Add or pay out credits of a seat; recorded in the journal and meters.",
    )
    csub = c.add_subparsers(dest="credits_command", metavar="ACTION")
    csub.required = True
    for name, what in (("add", "add credits to a seat"), ("out", "pay credits out of a seat")):
        a = csub.add_parser(name, parents=[common], help=what, description=what + ". "
                            "Each transfer has an id (--id, else a new one is printed): the "
                            "table applies an id at most once, so repeating a command whose "
                            "answer was lost is safe.")
        a.add_argument("--seat", type=_digits("--seat"), required=True, metavar="N")
        a.add_argument("--cents", type=_digits("--cents"), required=True, metavar="C")
        a.add_argument("--id", metavar="ID", help="the transfer's id (1-64 of A-Z a-z 0-9 . _ "
                       ": -); give the same id to retry")
        a.add_argument("--journal", metavar="PATH", help="journal file (journal.path)")
        a.set_defaults(func=cmd_credits, sign=1 if name == "add" else -1)
    st = csub.add_parser("status", parents=[common], help="what became of a transfer",
                         description="applied (with the journal record), pending (the "
                         "running table has it in hand) or not-applied (safe to send again)")
    st.add_argument("--id", required=True, metavar="ID")
    st.add_argument("--journal", metavar="PATH", help="journal file (journal.path)")
    st.add_argument("--json", action="store_true", help="print one JSON object")
    st.set_defaults(func=cmd_credits_status)


def _digits(flag: str) -> Any:
    """An argparse type: decimal digits only (no sign, spaces, '_' or exponent), at most
    15 of them: far inside every limit, so the configured maximum speaks next."""

    def parse(text: str) -> int:
        if not (text.isascii() and text.isdigit()) or len(text) > 15:
            raise argparse.ArgumentTypeError(f"{flag} takes a whole number of digits, not "
                                             f"{text[:20]!r}")
        return int(text)

    return parse


def _pace(text: str) -> float:
    """An argparse type: seconds between the simulated shoe's cards, in the range of
    ``shoe.sim_pace_s`` (its settings say it), refused before anything starts."""
    import dataclasses as dc
    import math

    from drivers.shoe.settings import ShoeSettings

    meta = next(f.metadata for f in dc.fields(ShoeSettings) if f.name == "sim_pace_s")
    lo, hi = float(meta["min"]), float(meta["max"])
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and lo <= value <= hi):
        raise argparse.ArgumentTypeError(
            f"{text[:20]!r}: seconds between cards, from {lo:g} to {hi:g}")
    return value


def _effective(args: argparse.Namespace) -> Any:
    """The configuration with the command's own options merged in; a message about one
    of them names the option as the user typed it (``--variant free-bet``), not ``--set``.

    The window demo offers every game with the shipped table.toml: a game seating fewer
    players than ``table.seats`` (Free Bet Blackjack, 6) plays with as many as it seats.
    """
    from firmware.config import load_config

    extra = list(args.overrides or [])
    named: dict[str, str] = {}

    def option(item: str, typed: str) -> None:
        extra.append(item)
        named[item] = typed

    if getattr(args, "variant", None):
        option(f"table.variant={args.variant}", f"--variant {args.variant}")
    if getattr(args, "shoe", None):
        option(f'shoe.port="{args.shoe}"', f"--shoe {args.shoe}")
    if getattr(args, "panel", None):
        option(f"panel.backend={args.panel}", f"--panel {args.panel}")
    if getattr(args, "journal", None):
        option(f'journal.path="{args.journal}"', f"--journal {args.journal}")
    seats = getattr(args, "seats", None)
    if seats is None and getattr(args, "auto_play", False):
        seats = 3
        option("table.seats=3", "--auto-play (3 seats)")
    elif seats is not None:
        # validated with the rest (Free Bet seats at most 6: --seats 6 must not meet the
        # configured 7 first)
        if not 1 <= seats <= 7:
            raise UserError(f"--seats {seats}: a table has 1 to 7 seats")
        option(f"table.seats={seats}", f"--seats {seats}")
    elif getattr(args, "demo", False):
        cap = _demo_seats(args)
        if cap is not None:
            option(f"table.seats={cap}", f"the demo's {cap} seats")
    if extra != list(args.overrides or []):
        from firmware.config import default_config_path

        return load_config(args.config or default_config_path(), extra, named)
    return context(args).load_config(args)


def _demo_seats(args: argparse.Namespace) -> int | None:
    """The seats of the window demo when the configured ``table.seats`` is more than the
    game seats (None: the configured seats fit)."""
    from firmware.config import default_config_path, load_config
    from firmware.engine.rules import read_rules_file

    base = load_config(args.config or default_config_path(), list(args.overrides or []))
    variant = getattr(args, "variant", None) or base.table.variant
    most = int(read_rules_file(variant).game["max_seats"])
    return most if base.table.seats > most else None


def cmd_run(args: argparse.Namespace) -> int:
    """Run the table; in the window demo, F2 closes the window asking for the next game,
    which starts at once in its own journal (docs/ui.md)."""
    while True:
        rc, next_game = _run_once(args)
        if rc != 0 or next_game is None:
            return rc
        from firmware.engine.rules import read_rules_file

        args.variant = next_game
        most = int(read_rules_file(next_game).game["max_seats"])
        if args.seats is not None and args.seats > most:  # --seats 7, then Free Bet
            args.seats = most


def _run_once(args: argparse.Namespace) -> tuple[int, str | None]:
    from firmware.table.service.run import RunOptions, run_table
    from firmware.table.service.ui_bridge import display_available

    if args.rounds < 0:
        raise UserError("--rounds must be 0 (no limit) or more")
    if args.demo:
        if not args.shoe:
            args.shoe = "sim"
        if display_available() and not args.headless:
            args.panel = args.panel or "keyboard"
        else:
            args.headless = True
            args.auto_play = True
    cfg = _effective(args)
    seats = args.seats if args.seats is not None else (3 if args.auto_play else cfg.table.seats)
    if not 1 <= seats <= 7:
        raise UserError(f"--seats {seats}: a table has 1 to 7 seats")
    cfg = dataclasses.replace(cfg, table=dataclasses.replace(cfg.table, seats=seats))
    if args.demo and not args.journal:
        cfg = dataclasses.replace(cfg, journal=dataclasses.replace(
            cfg.journal, path=demo_journal_path(cfg.journal.path, cfg.table.variant, seats,
                                                args.auto_play)))
    opts = RunOptions(seats=seats, auto_play=args.auto_play, rounds=args.rounds,
                      headless=args.headless, control=args.control, pace=args.pace,
                      quiet=args.quiet, demo=args.demo, version=context(args).version,
                      floor_link=floor_link_opener(cfg, context(args).version),
                      floor_witness=floor_witness_reader(cfg),
                      witness_required=witness_required(cfg),
                      strategy_for=computed_strategy)
    from firmware.journal.opening import JournalRefused

    try:
        rc = run_table(cfg, opts)
        return rc, (opts.next_game if args.demo else None)
    except JournalRefused as exc:  # on the screen as well as on stderr and in the syslog
        from firmware.engine.rules import load_rules
        from firmware.table.service.ui_bridge import show_refusal

        show_refusal(cfg, load_rules(cfg.table.variant, dict(cfg.rules), cfg.source), str(exc),
                     headless=args.headless)
        raise


def floor_link_opener(cfg: Any, version: str) -> OpenFloorLink | None:
    """The floor link of a table whose configuration names a floor broker (None: an
    island). The floor's package and paho-mqtt are imported only when it opens."""
    if not cfg.floor.broker:
        return None

    def open_link(journal: Journal, on_command: Callable[[dict[str, Any]], None]) -> FloorPort:
        from firmware.engine.rules import load_rules
        from firmware.floor.link import open_floor_link
        from firmware.table.service.software_signature import seeded_signature
        from firmware.table.service.start_record import software_of

        rules = load_rules(cfg.table.variant, dict(cfg.rules), cfg.source)
        return open_floor_link(cfg.floor, cfg.table.table_id,
                               software_of(cfg, rules, journal, version), journal, on_command,
                               signature=seeded_signature)

    return open_link


def floor_witness_reader(cfg: Any) -> ReadWitness | None:
    """How a table whose configuration names a floor asks it for its acknowledgement at
    start (firmware.journal.witness; None: an island, nothing to ask)."""
    if not cfg.floor.broker:
        return None

    def read() -> WitnessRead:
        from firmware.floor.witness_read import read_witness

        return read_witness(cfg.floor, cfg.table.table_id, cfg.floor.witness_s)

    return read


def witness_required(cfg: Any) -> bool:
    """floor.witness: "auto" is required in production (a table with a floor)."""
    if not cfg.floor.broker:
        return False
    return cfg.floor.witness == "required" or (cfg.floor.witness == "auto"
                                               and not cfg.bench)


def computed_strategy(rules: Any) -> Any:
    """The auto-players' computed basic strategy (numpy: imported only when asked for;
    solved once, then read from the math cache at every start)."""
    from firmware.math.strategy.on_disk import players_strategy

    return players_strategy(rules)


def demo_journal_path(configured: str, variant: str, seats: int, auto_play: bool) -> str:
    """The journal of one demo configuration, beside the configured one.

    `make run` is headless auto-play (3 seats) on one machine and a 7-seat window on
    another, or both on the same one in either order: each configuration keeps its own
    journal and resumes it, so a round left in play under one never blocks the other.
    """
    from pathlib import Path

    where = Path(configured).parent
    how = "auto" if auto_play else "window"
    return str(where / f"demo-{variant}-{seats}-{how}.sqlite")


def cmd_credits(args: argparse.Namespace) -> int:
    import uuid

    from firmware.cli.credits import add_credits_offline

    if args.cents <= 0:
        raise UserError("--cents must be more than 0")
    cfg = _effective(args)
    tid = args.id or uuid.uuid4().hex
    msg = add_credits_offline(cfg, args.seat, args.sign * args.cents, cfg.journal.path, tid)
    print(f"{msg} (transfer {tid})")
    return 0


def cmd_credits_status(args: argparse.Namespace) -> int:
    import json

    from firmware.cli.credits import transfer_status
    from firmware.table.requests.transfers import TransferRefused, transfer_id

    try:
        tid = transfer_id(args.id)
    except TransferRefused as exc:
        raise UserError(f"--id: {exc}") from None
    cfg = _effective(args)
    st = transfer_status(cfg.journal.path, str(tid), cfg.journal.key_path)
    if args.json:
        print(json.dumps(st, sort_keys=True))
    elif st["state"] == "applied":
        print(f"transfer {tid}: applied, {st['kind']} seat {st['seat']} {dollars(st['cents'])} "
              f"(journal record {st['seq']})")
    else:
        print(f"transfer {tid}: {st['state']}")
    return 0
