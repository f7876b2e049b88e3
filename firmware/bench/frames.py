"""Shoe ICD frame bodies (shoe -> controller) as engine inputs, for scenario faults.

A scenario injects what the shoe would send (``"ERR,MISREAD"``, ``"HEL,1,X,1,SN1"``,
``"CUT"``); the engine runner turns the body into the inputs the table controller makes
of it — the body is read as the shoe driver reads the frame (a :class:`ShoeReport`) and
the event goes through the controller's own mapping, :func:`firmware.table.devices.translate.
shoe_inputs`, so both depths give a frame the same meaning. The hil runner sends the real
frame through the shoe simulator.

One body is not a frame: ``LINK-DOWN``, the shoe falling silent past the ICD's 3000 ms
(link down, a tilt) and then speaking again (link up, the fault cleared).
"""

from __future__ import annotations

from drivers.shoe.reports import (
    SHOE_FAULT_CODES,
    CardDealt,
    CutCardReached,
    LinkDown,
    LinkUp,
    ShoeEmpty,
    ShoeFault,
    ShoeHello,
    ShoeReport,
    ShoeStatus,
    is_card,
)
from firmware.engine.inputs import Input
from firmware.table.devices.translate import shoe_inputs

STATES = ("READY", "LOCKED", "EMPTY", "FAULT")
LINK_DOWN = "LINK-DOWN"


def frame_events(body: str) -> list[ShoeReport]:
    """The shoe events a body stands for; ValueError says what is wrong with it."""
    parts = body.split(",")
    kind = parts[0]
    args = parts[1:]
    if kind == "ERR":
        if not args or args[0] not in SHOE_FAULT_CODES:
            raise ValueError(f"ERR needs a code ({', '.join(SHOE_FAULT_CODES)}), got {body!r}")
        return [ShoeFault(args[0], ",".join(args[1:]) or None, raw=body)]
    if kind == "HEL":
        if len(args) != 4:
            raise ValueError(f"HEL needs proto,model,fw,serial, got {body!r}")
        return [ShoeHello(args[0], args[1], args[2], args[3], raw=body)]
    if kind in ("CUT", "EMP") and not args:
        return [CutCardReached(raw=body) if kind == "CUT" else ShoeEmpty(raw=body)]
    if kind == "CRD":
        if len(args) != 1 or not is_card(args[0]):
            raise ValueError(f"CRD needs one card (rank then suit, e.g. TD), got {body!r}")
        return [CardDealt(args[0], raw=body)]
    if kind == "STA":
        if len(args) != 2 or args[0] not in STATES or not args[1].isdigit():
            raise ValueError(f"STA needs state ({', '.join(STATES)}) and count, got {body!r}")
        return [ShoeStatus(args[0], int(args[1]), raw=body)]
    if body == LINK_DOWN:
        return [LinkDown("no frame from the shoe for 3000 ms"), LinkUp()]
    raise ValueError(
        f"{body!r} is not a shoe frame body (ERR, HEL, CUT, EMP, CRD or STA, fields by "
        f"commas) nor {LINK_DOWN}"
    )


def frame_inputs(body: str) -> list[Input]:
    """The engine inputs the table controller makes of this body (possibly none)."""
    return [inp for ev in frame_events(body) for inp in shoe_inputs(ev)]


def frame_to_input(body: str) -> Input | None:
    """The first input of a body (None when the controller makes none of it); checks it."""
    inputs = frame_inputs(body)
    return inputs[0] if inputs else None
