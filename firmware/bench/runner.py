"""Running scenario files at one depth: load, play through a driver, report.

:data:`DRIVERS` maps a mode to the factory of its :class:`~firmware.bench.target.TableTarget`.
``engine`` is here; ``hil`` (:mod:`firmware.bench.hil`, imported on first use) registers
its driver with :func:`register_driver` and then shares everything else: scenario
loading, playback, comparison and reports.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterable

from etgcore.errors import UserError
from firmware.bench.playback import play_scenario
from firmware.bench.report import Result
from firmware.bench.scenario import load_scenario, scenario_name
from firmware.bench.target import EngineTarget, TableTarget

DRIVERS: dict[str, Callable[[], TableTarget]] = {"engine": EngineTarget}
#: modes that exist but whose driver is not installed yet, and why
PENDING: dict[str, str] = {}
#: modes whose driver module registers itself when first imported
LAZY: dict[str, str] = {"hil": "firmware.bench.hil"}


def register_driver(mode: str, factory: Callable[[], TableTarget]) -> None:
    DRIVERS[mode] = factory
    PENDING.pop(mode, None)


def driver_for(mode: str) -> Callable[[], TableTarget]:
    if mode not in DRIVERS and mode in LAZY:
        importlib.import_module(LAZY[mode])
    if mode in DRIVERS:
        return DRIVERS[mode]
    if mode in PENDING:
        raise UserError(PENDING[mode])
    known = sorted({*DRIVERS, *PENDING, *LAZY})
    raise UserError(f"unknown mode {mode!r} (allowed: {', '.join(known)})")


def run_one(path: str, factory: Callable[[], TableTarget]) -> Result:
    """One scenario file as a Result; a bad file or a refused setting is a FAIL, not a crash."""
    t0 = time.perf_counter()
    try:
        scenario = load_scenario(path)
    except UserError as exc:
        return Result(path, scenario_name(path), (str(exc),), time.perf_counter() - t0)
    try:
        problems = play_scenario(scenario, factory())
    except UserError as exc:  # e.g. a [rules] override the Rules Submission refuses
        problems = [str(exc)]
    return Result(path, scenario.name, tuple(problems), time.perf_counter() - t0)


def run_files(paths: Iterable[str], mode: str) -> list[Result]:
    factory = driver_for(mode)
    return [run_one(p, factory) for p in paths]
