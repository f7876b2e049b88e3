"""Where the UI gets its layout data: the engine's ``layout_for`` on the rules in force.

The rules are the variation's Rules Submission with the table configuration's
overrides, so the felt shows exactly the inscriptions and paytables the engine pays by.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ui.layout_data import Layout, parse_layout


def rules_for(variant: str, overrides: Mapping[str, Any] | None = None,
              source: str = "") -> Any:
    """The engine's Rules of ``variant`` (raises a UserError naming a bad override)."""
    from firmware.engine import load_rules

    return load_rules(variant, dict(overrides or {}), source)


def layout_for_rules(rules: Any, certificate_holder: str) -> Layout:
    from firmware.engine import layout_for

    return parse_layout(layout_for(rules), certificate_holder)


def layout_for_variant(variant: str, certificate_holder: str,
                       overrides: Mapping[str, Any] | None = None,
                       source: str = "") -> Layout:
    """Layout of ``variant`` under its Rules Submission (with ``overrides``)."""
    return layout_for_rules(rules_for(variant, overrides, source), certificate_holder)
