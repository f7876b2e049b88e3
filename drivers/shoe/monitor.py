"""`etg shoe monitor`: a technician's window on a shoe.

It is the controller, reduced to printing: it runs the same :class:`ShoeDriver` the table
runs (so every frame is answered exactly as in service), prints each event, and after each
``HEL`` sends what the technician asked for (``--new``, ``--unlock``/``--lock``, ``--led``,
``--query``).
"""

from __future__ import annotations

import argparse
import json
import logging
import queue
import sys
import time

from drivers.shoe import reports as ev
from drivers.shoe.driver import ShoeDriver
from drivers.shoe.reliability import ICD_TIMING
from drivers.shoe.reports import ShoeReport
from etgcore.errors import UserError


def format_event(event: ShoeReport, as_json: bool, wall: float) -> str:
    if as_json:
        data = event.to_dict()
        data.pop("at", None)
        data["time"] = round(wall, 3)
        return json.dumps(data, separators=(",", ":"))
    stamp = time.strftime("%H:%M:%S", time.localtime(wall)) + f".{int(wall * 1000) % 1000:03d}"
    return f"{stamp}  {event.describe()}"


def run_monitor(args: argparse.Namespace) -> int:
    if args.new is not None and not 1 <= args.new <= 8:
        raise UserError(f"--new {args.new}: a shoe holds 1 to 8 decks (ICD §5)")
    if args.time_scale <= 0:
        raise UserError("--time-scale must be positive")
    if not args.log_level:  # the events are printed already; keep stderr for trouble
        logging.getLogger("etg.shoe").setLevel(logging.WARNING)
    events: queue.SimpleQueue[ShoeReport] = queue.SimpleQueue()
    driver = ShoeDriver(args.port, events.put, timing=ICD_TIMING.scaled(args.time_scale),
                        resync=not args.no_resync, heartbeats=args.heartbeats)
    driver.start(require_port=True)
    if not args.json:
        print(f"monitoring the shoe on {args.port} (Ctrl-C to quit)", flush=True)
    if args.reset:
        driver.reset()
    deadline = None if args.duration is None else time.monotonic() + args.duration
    cards = 0
    try:
        while deadline is None or time.monotonic() < deadline:
            try:
                event = events.get(timeout=0.2)
            except queue.Empty:
                continue
            sys.stdout.write(format_event(event, args.json, time.time()) + "\n")
            sys.stdout.flush()
            if isinstance(event, ev.ShoeHello):
                _after_hello(driver, args)
            elif isinstance(event, ev.CardDealt):
                cards += 1
                if args.cards is not None and cards >= args.cards:
                    break
    finally:
        driver.stop()
    return 0


def _after_hello(driver: ShoeDriver, args: argparse.Namespace) -> None:
    if args.new is not None:
        driver.new(args.new)
    if args.led:
        driver.led(args.led)
    if args.unlock:
        driver.unlock()
    elif args.lock:
        driver.lock()
    if args.query:
        driver.query()
