"""Bench scenario files (docs/scenario-format.md): loaded and checked completely.

Both runners (engine and hil) read scenarios through :func:`load_scenario`, so a file
means the same at both depths. Every problem is a :class:`ScenarioError` naming the key
and the round, which the runner reports as a FAIL line, never a traceback.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from etgcore.errors import UserError
from firmware.bench.errors import BenchError
from firmware.bench.frames import frame_to_input
from firmware.engine.cards import CODE
from firmware.engine.inputs import ACTIONS, CONSOLE_PRESSES
from firmware.engine.mechanism import every_wager
from firmware.engine.rules import VARIANTS

RESULTS = ("win", "lose", "push", "surrender", "blackjack")
STATES = ("settled", "voided", "tilted")
START_CREDITS = 1_000_000
#: the RNG draws a round may force (docs/scenario-format.md, `draws`)
DRAW_KEYS = ("bingo_target", "bingo_multiplier")


def side_wager_keys() -> tuple[str, ...]:
    """The optional wagers a seat may place beside its main wager: our extension of the
    format (docs/bench.md; the spec has no key for them). Each is the name its mechanism
    declares (``WagerSpec``), collected from every shipped mechanism, so a new optional
    wager is a scenario key without a list here; the engine refuses one the game under
    test does not offer."""
    return tuple(sorted(n for n, w in every_wager().items() if w.optional))


class ScenarioError(BenchError, UserError):
    """A scenario file that does not follow the format."""


@dataclass(frozen=True)
class SeatPlay:
    seat: int
    wager: int
    credits: int | None = None
    #: optional wagers by name (``push22``), placed after the main wager
    side: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Action:
    """One scripted decision. ``hand`` counts from 1 like ``seat`` (the format's default
    is the seat's first hand); ``times`` is any positive multiple, the rules decide."""

    seat: int
    do: str
    hand: int = 1
    times: int = 1
    rejected: bool = False

    def describe(self) -> str:
        times = f" {self.times}x" if self.do == "double" and self.times != 1 else ""
        return f"seat {self.seat} hand {self.hand} {self.do}{times}"


@dataclass(frozen=True)
class Event:
    """A shoe fault frame or a console press injected right after the ``after``-th card."""

    after: int
    shoe: str | None = None
    press: str | None = None

    def describe(self) -> str:
        return f"shoe {self.shoe!r}" if self.shoe is not None else f"console {self.press}"


@dataclass(frozen=True)
class SeatExpect:
    seat: int
    net: int | None = None
    result: str | None = None


@dataclass(frozen=True)
class Round:
    number: int
    shoe: tuple[str, ...]
    draws: Mapping[str, int]
    seats: tuple[SeatPlay, ...]
    actions: tuple[Action, ...]
    events: tuple[Event, ...]          # faults before console presses at the same ``after``
    expects: tuple[SeatExpect, ...]
    dealer: int | str | None
    state: str = "settled"


@dataclass(frozen=True)
class Scenario:
    path: str
    name: str
    variant: str
    rules: Mapping[str, Any]
    rounds: tuple[Round, ...] = field(default_factory=tuple)


def _int(v: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ScenarioError(f"{where}: must be an integer, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        span = (f"in {lo}..{hi}" if lo is not None and hi is not None else
                f"{lo} or more" if lo is not None else f"{hi} or less")
        raise ScenarioError(f"{where}: must be {span}, got {v}")
    return v


def _keys(d: Any, allowed: tuple[str, ...], where: str, required: tuple[str, ...] = ()) -> None:
    if not isinstance(d, Mapping):
        raise ScenarioError(f"{where}: must be a table")
    extra = sorted(set(d) - set(allowed))
    if extra:
        raise ScenarioError(f"{where}: unknown key {extra[0]!r} (allowed: {', '.join(allowed)})")
    for k in required:
        if k not in d:
            raise ScenarioError(f"{where}: missing key {k!r}")


def _list(d: Mapping[str, Any], key: str, where: str) -> list[Any]:
    v = d.get(key, [])
    if not isinstance(v, list):
        raise ScenarioError(f"{where}: {key} must be an array")
    return v


def _round(n: int, r: Any) -> Round:
    where = f"round {n}"
    _keys(r, ("shoe", "draws", "seat", "action", "fault", "console", "expect", "dealer",
              "outcome"), where)
    return Round(n, _shoe(r, where), _draws(r, where), _seats(r, where), _actions(r, where),
                 _events(r, where), _expects(r, where), _dealer(r, where), _state(r, where))


def _shoe(r: Any, where: str) -> tuple[str, ...]:
    shoe = _list(r, "shoe", where)
    for i, c in enumerate(shoe):
        if not isinstance(c, str) or c not in CODE:
            raise ScenarioError(
                f"{where}: shoe[{i}]: {c!r} is not a card (rank A 2-9 T J Q K, then suit "
                "S H D C, e.g. 'TD')"
            )
    return tuple(shoe)


def _draws(r: Any, where: str) -> dict[str, int]:
    draws = r.get("draws", {})
    if not isinstance(draws, Mapping):
        raise ScenarioError(f"{where}: draws must be a table like {{ bingo_target = 21 }}")
    for k, v in draws.items():
        if k not in DRAW_KEYS:
            raise ScenarioError(
                f"{where}: draws: unknown key {k!r} (allowed: {', '.join(DRAW_KEYS)})"
            )
        _int(v, f"{where}: draws.{k}")
    return dict(draws)


def _seats(r: Any, where: str) -> tuple[SeatPlay, ...]:
    seats = []
    for i, s in enumerate(_list(r, "seat", where)):
        w = f"{where}: seat[{i}]"
        sides = side_wager_keys()
        _keys(s, ("seat", "wager", "credits", *sides), w, ("seat", "wager"))
        credits = s.get("credits")
        side = {k: _int(s[k], f"{w}.{k}", 0) for k in sides if k in s}
        seats.append(SeatPlay(
            _int(s["seat"], f"{w}.seat", 1, 7), _int(s["wager"], f"{w}.wager", 0),
            None if credits is None else _int(credits, f"{w}.credits", 0), side,
        ))
    if len({s.seat for s in seats}) != len(seats):
        raise ScenarioError(f"{where}: a seat is listed twice")
    return tuple(seats)


def _actions(r: Any, where: str) -> tuple[Action, ...]:
    actions = []
    for i, a in enumerate(_list(r, "action", where)):
        w = f"{where}: action[{i}]"
        _keys(a, ("seat", "hand", "do", "times", "rejected"), w, ("seat", "do"))
        if a["do"] not in ACTIONS:
            raise ScenarioError(f"{w}.do: {a['do']!r} is not one of {', '.join(ACTIONS)}")
        if "times" in a and a["do"] != "double":
            raise ScenarioError(f"{w}.times: only a double takes times")
        rejected = a.get("rejected", False)
        if not isinstance(rejected, bool):
            raise ScenarioError(f"{w}.rejected: must be true or false")
        hand = a.get("hand", 1)
        if hand == 0 and not isinstance(hand, bool):
            raise ScenarioError(f"{w}.hand: hands are numbered from 1 like seats (hand = 1 is "
                                "the seat's first hand), got 0")
        # any positive multiple parses: whether the table takes it is what a file may test
        actions.append(Action(
            _int(a["seat"], f"{w}.seat", 1, 7), a["do"], _int(hand, f"{w}.hand", 1),
            _int(a.get("times", 1), f"{w}.times", 1), rejected,
        ))
    return tuple(actions)


def _events(r: Any, where: str) -> tuple[Event, ...]:
    """The shoe faults and console presses, each after the card it names."""
    faults = []
    for i, f in enumerate(_list(r, "fault", where)):
        w = f"{where}: fault[{i}]"
        _keys(f, ("after", "shoe"), w, ("after", "shoe"))
        if not isinstance(f["shoe"], str):
            raise ScenarioError(f"{w}.shoe: must be a frame body string like 'ERR,MISREAD'")
        try:
            frame_to_input(f["shoe"])
        except ValueError as exc:
            raise ScenarioError(f"{w}.shoe: {exc}") from None
        faults.append(Event(_int(f["after"], f"{w}.after", 0), shoe=f["shoe"]))
    presses = []
    for i, c in enumerate(_list(r, "console", where)):
        w = f"{where}: console[{i}]"
        _keys(c, ("after", "press"), w, ("after", "press"))
        if c["press"] not in CONSOLE_PRESSES:
            raise ScenarioError(
                f"{w}.press: {c['press']!r} is not one of {', '.join(CONSOLE_PRESSES)}"
            )
        presses.append(Event(_int(c["after"], f"{w}.after", 0), press=c["press"]))
    # a stable sort keeps faults before presses at the same `after`, each in file order
    events = sorted(faults + presses, key=lambda e: e.after)
    return tuple(events)


def _expects(r: Any, where: str) -> tuple[SeatExpect, ...]:
    expects = []
    for i, e in enumerate(_list(r, "expect", where)):
        w = f"{where}: expect[{i}]"
        _keys(e, ("seat", "net", "result"), w, ("seat", "net"))
        if "result" in e and e["result"] not in RESULTS:
            raise ScenarioError(f"{w}.result: {e['result']!r} is not one of {', '.join(RESULTS)}")
        expects.append(SeatExpect(
            _int(e["seat"], f"{w}.seat", 1, 7), _int(e["net"], f"{w}.net"), e.get("result"),
        ))
    return tuple(expects)


def _dealer(r: Any, where: str) -> int | str | None:
    dealer = None
    if "dealer" in r:
        _keys(r["dealer"], ("total",), f"{where}: dealer", ("total",))
        dealer = r["dealer"]["total"]
        if dealer not in ("blackjack", "bust"):
            dealer = _int(dealer, f"{where}: dealer.total", 2, 26)
    return dealer


def _state(r: Any, where: str) -> str:
    state = "settled"
    if "outcome" in r:
        _keys(r["outcome"], ("state",), f"{where}: outcome", ("state",))
        state = r["outcome"]["state"]
        if state not in STATES:
            raise ScenarioError(f"{where}: outcome.state: {state!r} is not one of "
                                f"{', '.join(STATES)}")
    return str(state)


def parse_scenario(data: Mapping[str, Any], path: str) -> Scenario:
    _keys(data, ("name", "variant", "rules", "round"), "file", ("name", "variant", "round"))
    name = data["name"]
    if not isinstance(name, str) or not name.strip():
        raise ScenarioError("name: must be a non-empty string")
    variant = data["variant"]
    if variant not in VARIANTS:
        raise ScenarioError(f"variant: {variant!r} is not one of {', '.join(VARIANTS)}")
    rules = data.get("rules", {})
    if not isinstance(rules, Mapping):
        raise ScenarioError("rules: must be a table of Rules Submission settings")
    rounds = data["round"]
    if not isinstance(rounds, list) or not rounds:
        raise ScenarioError("round: at least one [[round]] is needed")
    return Scenario(path, name, variant, dict(rules),
                    tuple(_round(i + 1, r) for i, r in enumerate(rounds)))


def load_scenario(path: str | Path) -> Scenario:
    """Read and check one scenario file (ScenarioError says what is wrong and where)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"not valid TOML: {exc}") from None
    return parse_scenario(data, str(p))


def scenario_name(path: str | Path) -> str:
    """The scenario's name, or the file name when it cannot be read (for FAIL lines)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        name = data.get("name")
        return name if isinstance(name, str) and name.strip() else Path(path).stem
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return Path(path).stem


def find_scenarios(paths: list[str]) -> list[Path]:
    """Every ``*.toml`` under the given files and directories, in a stable order."""
    out: list[Path] = []
    for text in paths:
        p = Path(text)
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*.toml") if f.is_file()))
        elif p.is_file():
            out.append(p)
        else:
            raise UserError(f"{text}: no such scenario file or directory")
    if not out:
        raise UserError(f"no scenario files (*.toml) in {', '.join(paths)}")
    return out
