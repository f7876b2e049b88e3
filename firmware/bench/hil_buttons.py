"""What the bench presses on a seat's panel for each scenario action.

The panel has fewer buttons than a scenario has actions, so some buttons mean two things
(the conventions of ``firmware.table.devices.translate``): ``STAND`` declines insurance while it
is offered, ``SURRENDER`` is the rescue where the game has one, and ``BET`` places a
wager. The HIL driver needs both directions: the button for an action, and what a button
means at this moment.
"""

from __future__ import annotations

#: the buttons a player presses for each scenario action
BUTTON = {"hit": "HIT", "stand": "STAND", "double": "DOUBLE", "split": "SPLIT",
          "surrender": "SURRENDER", "rescue": "SURRENDER", "insurance": "INSURANCE",
          "no-insurance": "STAND"}


def button_meaning(button: str, legal: list[str]) -> str:
    """What a press of ``button`` asks for given the legal decisions (the panel
    conventions of ``firmware.table.devices.translate``: one button, two meanings)."""
    if button == "STAND":
        return "no-insurance" if "no-insurance" in legal else "stand"
    if button == "SURRENDER":
        return "rescue" if "rescue" in legal else "surrender"
    return next(a for a, b in BUTTON.items() if b == button)
