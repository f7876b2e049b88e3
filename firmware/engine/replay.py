"""Replay: a Rules Submission (with overrides) plus an input list gives back the table.

This is how power-fail recovery, game recall, the bench and the audit rebuild a table: the
engine is deterministic, so applying the same inputs to a table built the same way
reproduces the state exactly (compare :meth:`Table.private_view`). Inputs the table
refused when they were journaled are refused again identically and change nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from firmware.engine.inputs import Input, InputError, input_from_json
from firmware.engine.rejected import Rejected
from firmware.engine.rules import Rules, rules_from_json
from firmware.engine.table import Table


class Recorder:
    """Applies inputs to a table and keeps every one of them, accepted or not, in order."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.inputs: list[Input] = []
        self.refused = 0

    def apply(self, inp: Input) -> None:
        self.inputs.append(inp)
        try:
            self.table.apply(inp)
        except Rejected:
            self.refused += 1
            raise

    def to_json(self) -> dict[str, Any]:
        return recording_json(self.table, self.inputs)


def table_options(table: Table) -> dict[str, Any]:
    return {"seats": table.nseats, "bench": table.bench}


def recording_json(
    table: Table, inputs: Iterable[Input], shoe_in_play: bool = False
) -> dict[str, Any]:
    """``{"rules": ..., "table": {...}, "inputs": [...]}``: everything replay needs."""
    return {
        "rules": table.rules.to_json(),
        "table": {**table_options(table), "shoe_in_play": shoe_in_play},
        "inputs": [i.to_json() for i in inputs],
    }


def replay(
    rules: Rules, inputs: Iterable[Input], seats: int | None = None, bench: bool = False,
    shoe_in_play: bool = False,
) -> Table:
    """A new table with these rules, fed ``inputs`` in order (refusals change nothing)."""
    table = Table(rules, seats=seats, bench=bench, shoe_in_play=shoe_in_play)
    apply = table.apply
    for inp in inputs:
        with contextlib.suppress(Rejected):
            apply(inp)
    return table


def replay_json(data: Mapping[str, Any]) -> Table:
    """Replay a recording made by :func:`recording_json` (InputError if it is malformed)."""
    try:
        rules = rules_from_json(data["rules"])
        opts = dict(data.get("table", {}))
        inputs = [input_from_json(d) for d in data["inputs"]]
    except (KeyError, TypeError) as exc:
        raise InputError(f"not a recording: {exc}") from None
    return replay(
        rules, inputs, seats=opts.get("seats"), bench=bool(opts.get("bench", False)),
        shoe_in_play=bool(opts.get("shoe_in_play", False)),
    )
