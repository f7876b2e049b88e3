"""The configurations a PAR sheet covers: every one its Rules Submission allows.

A lab signs the game as the certificate holder may set it up, so the sheet holds every
combination of the settings that change the game's figures and that the Rules
Submission leaves open: the deck count (every value allowed), the paytable (Split to
Double's Blackjack or Bust paytables, blackjack's Blackjack odds) and the dealer's soft
17 rule. The other settings keep their defaults (a sheet for other values is one
``--set`` away). ``--set`` values pin a setting: the sheet then covers the rest.

The axes are not listed here: they are the priced keys declared with an
:class:`~firmware.math.rule_table.Axis` (the base game's in
:mod:`firmware.math.rule_table`, a mechanism's in :mod:`firmware.math.wagers`), in the
order of their rank; a game's sheet takes those its Rules Submission declares as
settings with more than one allowed value.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import product
from typing import Any

from firmware.math.rule_table import BASE, Axis, Priced
from firmware.math.wagers import every_entry


def _axes() -> dict[str, Axis]:
    """Every key declared as an axis (base game and every mechanism), in rank order."""
    entries = [*BASE.items(), *every_entry()]
    found = {k: e.axis for k, e in entries if isinstance(e, Priced) and e.axis is not None}
    return dict(sorted(found.items(), key=lambda kv: kv[1].rank))


#: settings that change the figures and are offered as a configuration axis, derived
#: from the math's declarations (see the module docstring)
AXIS_LABELS: dict[str, Axis] = _axes()
AXES: tuple[str, ...] = tuple(AXIS_LABELS)


@dataclass(frozen=True)
class Configuration:
    """One set of values of the axes (the Rules Submission's other settings default)."""

    values: tuple[tuple[str, Any], ...]

    def overrides(self) -> dict[str, Any]:
        return dict(self.values)

    def label(self) -> str:
        v = dict(self.values)
        parts = [AXIS_LABELS[k].label(v[k]) for k in AXES if k in v]
        return ", ".join(parts) or "the only configuration"


def axis_values(variant: str, key: str) -> list[Any]:
    """Every value the Rules Submission allows for ``key`` ([] when it is not a setting)."""
    from firmware.engine.rules import read_rules_file

    spec = read_rules_file(variant).specs.get(key)
    if spec is None:
        return []
    if spec.allowed is not None:
        return list(dict.fromkeys(spec.allowed))
    if spec.type == "bool":
        return [False, True]
    if spec.lo is not None and spec.hi is not None:
        return list(range(int(spec.lo), int(spec.hi) + 1))
    return [spec.default]


def default_values(variant: str) -> dict[str, Any]:
    from firmware.engine.rules import read_rules_file

    specs = read_rules_file(variant).specs
    return {k: specs[k].default for k in AXES if k in specs}


def configurations(variant: str, pinned: dict[str, Any] | None = None
                   ) -> list[Configuration]:
    """Every allowed configuration of ``variant`` (``pinned`` axes held), the default
    configuration first."""
    pinned = dict(pinned or {})
    # an axis the Rules Submission fixes (one value allowed) is no axis of the sheet
    axes = [k for k in AXES if len(axis_values(variant, k)) > 1]
    choices = [[pinned[k]] if k in pinned else axis_values(variant, k) for k in axes]
    default = default_values(variant)
    if not axes:
        return [Configuration(())]
    out = [Configuration(tuple(zip(axes, combo, strict=True))) for combo in product(*choices)]
    out.sort(key=lambda c: c.overrides() != {k: pinned.get(k, default[k]) for k in axes})
    return out


def rules_digest(variant: str) -> str:
    """SHA-256 (in full) of the Rules Submission file the sheet was made from."""
    from firmware.engine.rules import rules_path

    return hashlib.sha256(rules_path(variant).read_bytes()).hexdigest()


__all__ = ["AXES", "Configuration", "axis_values", "configurations", "rules_digest"]
