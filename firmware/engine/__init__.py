"""The game engine: cards, hands, Rules Submissions and the round as a pure state machine.

No I/O, no clock, no randomness: a :class:`Game` is fed typed inputs one at a time and
says what it expects next. See docs/engine.md.
"""

from __future__ import annotations

from firmware.engine.expect import Expecting
from firmware.engine.game import Game
from firmware.engine.inputs import (
    Card,
    CloseBetting,
    Console,
    CreditsIn,
    CreditsOut,
    Cut,
    Decision,
    Draw,
    Empty,
    Fault,
    FaultCleared,
    Hello,
    Input,
    NewShoe,
    SideWager,
    Wager,
    input_from_json,
)
from firmware.engine.layout import layout_for
from firmware.engine.mechanism import (
    DrawRequest,
    Mechanism,
    RoundView,
    WagerSpec,
    register_mechanism,
)
from firmware.engine.rejected import Rejected
from firmware.engine.rules import VARIANTS, Rules, Variant, available_variants, load_rules

__all__ = [
    "VARIANTS",
    "Card",
    "CloseBetting",
    "Console",
    "CreditsIn",
    "CreditsOut",
    "Cut",
    "Decision",
    "Draw",
    "DrawRequest",
    "Empty",
    "Expecting",
    "Fault",
    "FaultCleared",
    "Game",
    "Hello",
    "Input",
    "Mechanism",
    "NewShoe",
    "Rejected",
    "RoundView",
    "Rules",
    "SideWager",
    "Variant",
    "Wager",
    "WagerSpec",
    "available_variants",
    "input_from_json",
    "layout_for",
    "load_rules",
    "register_mechanism",
]
