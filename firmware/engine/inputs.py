"""Typed inputs: everything that can happen at the table, one small value each.

Inputs are immutable values that serialize to and from JSON (``{"type": ..., ...}``): the
journal stores them, replay feeds them back, the bench writes them. They carry no
behaviour; :class:`~firmware.engine.game.Game` decides what each one means in the state
it is in. Decisions use the button names of the panel ICD in lower case.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, ClassVar

from etgcore.errors import UserError
from firmware.engine.cards import CODE, parse_card
from firmware.engine.errors import EngineError

ACTIONS = ("hit", "stand", "double", "split", "surrender", "insurance", "no-insurance", "rescue")
CONSOLE_PRESSES = ("DEAL", "VOID", "SHUFFLE")
#: shoe faults (ICD §4, link down, empty) and the table's own: a stuck panel key, a panel
#: scan failure, a power failure during a round, an RNG or display failure
#: PROTOCOL: a frame the controller refused (malformed, unknown type or ERR code);
#: SHOE: the shoe cannot be the one the engine accounts for (after a restart)
SHOE_FAULT_CODES = ("MISREAD", "DOUBLE", "JAM", "LID", "SENSOR", "LINK", "EMPTY", "PROTOCOL",
                    "SHOE")
#: STOPPED: the table was stopped cleanly mid-round (POWER: the power failed); INTERNAL: a
#: bug caught by the controller; REPEAT: the same tilt again and again (escalated)
TABLE_FAULT_CODES = ("STUCK", "PANEL", "POWER", "STOPPED", "RNG", "DISPLAY", "INTERNAL",
                     "REPEAT")
FAULT_CODES = SHOE_FAULT_CODES + TABLE_FAULT_CODES


class InputError(EngineError, UserError):
    """A JSON record that is not a valid input."""


class Input:
    """Base of every input; subclasses list their fields in ``__slots__``."""

    __slots__: tuple[str, ...] = ()
    TYPE: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        for f in self.__slots__:
            out[f] = getattr(self, f)
        return out

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, f) == getattr(other, f) for f in self.__slots__
        )

    def __hash__(self) -> int:
        return hash((self.TYPE, *(repr(getattr(self, f)) for f in self.__slots__)))

    def __repr__(self) -> str:
        args = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__)
        return f"{type(self).__name__}({args})"


class CreditsIn(Input):
    """Credits added to a seat (bill acceptor, attendant, bench)."""

    __slots__ = ("amount", "seat")
    TYPE = "credits-in"

    def __init__(self, seat: int, amount: int) -> None:
        self.seat = seat
        self.amount = amount


class CreditsOut(Input):
    """Credits paid out of a seat (cash-out ticket)."""

    __slots__ = ("amount", "seat")
    TYPE = "credits-out"

    def __init__(self, seat: int, amount: int) -> None:
        self.seat = seat
        self.amount = amount


class Wager(Input):
    """Set a seat's Blackjack wager for the coming round (0 takes it back)."""

    __slots__ = ("amount", "seat")
    TYPE = "wager"

    def __init__(self, seat: int, amount: int) -> None:
        self.seat = seat
        self.amount = amount


class SideWager(Input):
    """Set an optional wager a mechanism offers (e.g. Push 22)."""

    __slots__ = ("amount", "name", "seat")
    TYPE = "side-wager"

    def __init__(self, seat: int, name: str, amount: int) -> None:
        self.seat = seat
        self.name = name
        self.amount = amount


class CloseBetting(Input):
    """No more wagers: the round starts (the dealer's DEAL press or a betting timer)."""

    __slots__ = ()
    TYPE = "close-betting"


class Card(Input):
    """A card read by the shoe (``CRD``); ``card`` is the code 0..51."""

    __slots__ = ("card",)
    TYPE = "card"

    def __init__(self, card: int | str) -> None:
        if isinstance(card, str):
            card = parse_card(card)
        elif isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
            raise ValueError(f"not a card: {card!r} (a code 0..51 or text like 'TD')")
        self.card = card

    def to_json(self) -> dict[str, Any]:
        return {"type": "card", "card": CODE[self.card]}

    @classmethod
    def of(cls, text: str) -> Card:
        return cls(parse_card(text))


class Decision(Input):
    """A player's decision for (seat, hand); ``hand`` counts from 1 like ``seat`` (the
    seat's hands in the order they were made; insurance is asked of hand 1). ``times``:
    the double as a multiple of the initial wager (the rules say which are legal);
    ``amount`` for insurance (None: exactly half the Blackjack wager, the bench action)."""

    __slots__ = ("action", "amount", "hand", "seat", "times")
    TYPE = "decision"

    def __init__(
        self, seat: int, hand: int, action: str, times: int = 1, amount: int | None = None
    ) -> None:
        self.seat = seat
        self.hand = hand
        self.action = action
        self.times = times
        self.amount = amount


class Draw(Input):
    """An RNG draw (``values`` by name). ``forced`` marks a bench-forced draw, which only a
    table constructed in bench mode accepts; ``record`` is the RNG's own record."""

    __slots__ = ("forced", "record", "values")
    TYPE = "draw"

    def __init__(
        self, values: Mapping[str, int], forced: bool = False,
        record: Mapping[str, Any] | None = None,
    ) -> None:
        self.values = dict(values)
        self.forced = forced
        self.record = dict(record) if record is not None else None


class Console(Input):
    """A dealer console press: DEAL (close betting / resume), VOID, SHUFFLE (new shoe)."""

    __slots__ = ("press",)
    TYPE = "console"

    def __init__(self, press: str) -> None:
        self.press = press


class NewShoe(Input):
    """A freshly shuffled shoe is loaded (``decks``: None means the rules' decks)."""

    __slots__ = ("decks",)
    TYPE = "new-shoe"

    def __init__(self, decks: int | None = None) -> None:
        self.decks = decks


class Cut(Input):
    """The shoe reached the cut (cover) card: finish this round, then a new shoe."""

    __slots__ = ()
    TYPE = "cut"


class Empty(Input):
    """The shoe is empty (``EMP``)."""

    __slots__ = ()
    TYPE = "empty"


class Fault(Input):
    """A hardware fault: shoe ``ERR`` codes, ``LINK`` (link down) or ``EMPTY``."""

    __slots__ = ("code", "detail")
    TYPE = "fault"

    def __init__(self, code: str, detail: str = "") -> None:
        self.code = code
        self.detail = detail


class FaultCleared(Input):
    """The device reports ready again (``STA,READY``, link up)."""

    __slots__ = ("code",)
    TYPE = "fault-cleared"

    def __init__(self, code: str = "") -> None:
        self.code = code


class Hello(Input):
    """The shoe (re)started (``HEL``)."""

    __slots__ = ("fw", "model", "proto", "serial")
    TYPE = "hello"

    def __init__(self, proto: str = "1", model: str = "", fw: str = "", serial: str = "") -> None:
        self.proto = proto
        self.model = model
        self.fw = fw
        self.serial = serial


INPUT_TYPES: dict[str, type[Input]] = {
    cls.TYPE: cls
    for cls in (CreditsIn, CreditsOut, Wager, SideWager, CloseBetting, Card, Decision, Draw,
                Console, NewShoe, Cut, Empty, Fault, FaultCleared, Hello)
}

_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "seat": (int,), "hand": (int,), "amount": (int, type(None)), "times": (int,),
    "decks": (int, type(None)), "card": (str,), "action": (str,), "press": (str,),
    "code": (str,), "detail": (str,), "name": (str,), "values": (dict,), "forced": (bool,),
    "record": (dict, type(None)), "proto": (str,), "model": (str,), "fw": (str,),
    "serial": (str,),
}


def _optional(cls: type[Input]) -> frozenset[str]:
    if cls.__init__ is object.__init__:  # no fields (and inspect would parse its text
        return frozenset()  # signature with the tokenizer: ~4 ms at every start)
    params = inspect.signature(cls.__init__).parameters.values()
    return frozenset(p.name for p in params if p.default is not inspect.Parameter.empty)


_OPTIONAL = {cls: _optional(cls) for cls in INPUT_TYPES.values()}


def input_from_json(data: Any) -> Input:
    """The input a JSON record describes; InputError names the field that is wrong."""
    if not isinstance(data, Mapping):
        raise InputError(f"an input must be a JSON object, got {data!r}")
    kind = data.get("type")
    cls = INPUT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InputError(f"unknown input type {kind!r} (allowed: {', '.join(INPUT_TYPES)})")
    fields = cls.__slots__
    extra = sorted(set(data) - set(fields) - {"type"})
    if extra:
        raise InputError(f"{kind}: unknown field {extra[0]!r} (allowed: {', '.join(fields)})")
    kwargs: dict[str, Any] = {}
    for f in fields:
        if f not in data:
            if f in _OPTIONAL[cls]:
                continue
            raise InputError(f"{kind}: missing field {f!r}")
        v = data[f]
        types = _FIELD_TYPES[f]
        if (isinstance(v, bool) and bool not in types) or not isinstance(v, types):
            raise InputError(f"{kind}: field {f!r} has the wrong type: {v!r}")
        kwargs[f] = v
    try:
        return cls(**kwargs)
    except ValueError as exc:
        raise InputError(f"{kind}: {exc}") from None
