"""Checkpoints: keyed records that let a start prove a long journal from its last one.

Proving a journal means walking its keyed chain, adding its round records and transfers
up to the meters, and replaying its inputs through the engine (the table's meter proof).
That is linear in the journal's length: about 20 records a round, so a table with
100,000 rounds behind it would need tens of seconds to start. So the table writes a
checkpoint in the same transaction as every N-th round record (``journal.checkpoint_rounds``)
and as the first record of every epoch: a ``meta`` record whose body is

    {"checkpoint": {"meters": [[name, seat, wager, value], ...], ...the table's part}}

``meters`` is what the meters table holds once that transaction has committed (the journal
fills it in: :func:`checkpoint_body`); the table's part is the engine's whole state and the
round count (:mod:`firmware.table.meter_proof`). A checkpoint is a record like any other:
inside the keyed chain, so it cannot be forged or edited without the secret.

Every start proves the journal from its last checkpoint: the chain from there to the end,
the meters as the checkpoint's plus what the later records add, the engine replayed from
the checkpoint's state. ``etg audit verify`` proves everything from record 1 and compares
every checkpoint on the way with what the full walk computed at that point, so a
checkpoint that lied would be found there. docs/table.md ("What the journal guarantees")
says what the start therefore checks and what only the audit does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from firmware.journal.chain import Record

MeterKey = tuple[str, int, str]

#: called inside the append transaction with the records written so far; returns the
#: table's part of the checkpoint (see the module docstring)
Checkpointer = Callable[[list[Record]], Mapping[str, Any]]


def checkpoint_body(meters: Mapping[MeterKey, int], part: Mapping[str, Any]) -> dict[str, Any]:
    rows = [[n, s, w, v] for (n, s, w), v in sorted(meters.items()) if v]
    return {"checkpoint": {**part, "meters": rows}}


def is_checkpoint(r: Record) -> bool:
    return r.kind == "meta" and isinstance(r.body.get("checkpoint"), dict)


def checkpoint_meters(r: Record) -> dict[MeterKey, int]:
    """The meters a checkpoint record holds (after its transaction)."""
    return {(str(n), int(s), str(w)): int(v) for n, s, w, v in r.body["checkpoint"]["meters"]}


def last_checkpoint(records_newest_first: Iterable[Record]) -> Record | None:
    """The newest checkpoint among ``meta`` records given newest first."""
    for r in records_newest_first:
        if is_checkpoint(r):
            return r
    return None
