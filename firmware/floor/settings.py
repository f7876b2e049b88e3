"""The ``[floor]`` section of a table's configuration: where its floor link connects.

An empty ``broker`` means no floor link: the table is an island and imports nothing of
the floor (nor paho-mqtt).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Witnessing = Literal["auto", "required", "best-effort"]


@dataclass(frozen=True)
class FloorSettings:
    broker: str = field(
        default="", metadata={"doc": "host:port of the floor's MQTT broker (TLS); '' = none"}
    )
    ca: str = field(default="", metadata={"doc": "floor CA certificate (PEM)"})
    cert: str = field(default="", metadata={"doc": "this table's client certificate (PEM)"})
    key: str = field(default="", metadata={"doc": "this table's private key (PEM, mode 0600)"})
    command_cert: str = field(
        default="",
        metadata={"doc": "the floor service's certificate: floor commands must be signed by it"},
    )
    witness_s: float = field(
        default=3.0,
        metadata={"doc": "seconds a start waits for the floor's acknowledgement (the witness "
                  "the journal is checked against) before it plays on without it",
                  "min": 0.5, "max": 60.0},
    )
    witness: Witnessing = field(
        default="auto",
        metadata={"doc": "required: a table with a floor holds play (no new round) until "
                  "the floor's witness agrees with its journal; best-effort: it plays "
                  "without one (event 711); auto: required in production, best-effort on "
                  "the bench"},
    )
