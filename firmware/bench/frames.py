"""Shoe ICD frame bodies (shoe -> controller) as engine inputs, for scenario faults.

A scenario injects what the shoe would send (``"ERR,MISREAD"``, ``"HEL,1,X,1,SN1"``,
``"CUT"``); the engine runner turns the body into the input the table controller would
make of it, the hil runner sends the real frame through the shoe simulator.
"""

from __future__ import annotations

from firmware.engine.inputs import Card, Cut, Empty, Fault, FaultCleared, Hello, Input

ERR_CODES = ("MISREAD", "DOUBLE", "JAM", "LID", "SENSOR")
STATES = ("READY", "LOCKED", "EMPTY", "FAULT")


def frame_to_input(body: str) -> Input:
    """The input for one frame body; ValueError says what is wrong with it."""
    parts = body.split(",")
    kind = parts[0]
    args = parts[1:]
    if kind == "ERR":
        if not args or args[0] not in ERR_CODES:
            raise ValueError(f"ERR needs a code ({', '.join(ERR_CODES)}), got {body!r}")
        return Fault(args[0], ",".join(args[1:]))
    if kind == "HEL":
        if len(args) != 4:
            raise ValueError(f"HEL needs proto,model,fw,serial, got {body!r}")
        return Hello(*args)
    if kind == "CUT" and not args:
        return Cut()
    if kind == "EMP" and not args:
        return Empty()
    if kind == "CRD":
        if len(args) != 1:
            raise ValueError(f"CRD needs one card, got {body!r}")
        return Card(args[0])
    if kind == "STA":
        if len(args) != 2 or args[0] not in STATES or not args[1].isdigit():
            raise ValueError(f"STA needs state ({', '.join(STATES)}) and count, got {body!r}")
        if args[0] == "FAULT":
            return Fault("SENSOR", "status FAULT")
        if args[0] == "EMPTY":
            return Empty()
        return FaultCleared(args[0])
    raise ValueError(
        f"{body!r} is not a shoe frame body (ERR, HEL, CUT, EMP, CRD or STA, fields by commas)"
    )
