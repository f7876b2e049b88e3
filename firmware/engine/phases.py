"""Names of the table's phases and of what it can wait for (public view strings)."""

from __future__ import annotations

NEW_SHOE = "new-shoe"
BETTING = "betting"
RNG = "rng"
DEALING = "dealing"
INSURANCE = "insurance"
DECISIONS = "decisions"
DEALER = "dealer"
SETTLED = "settled"
VOIDED = "voided"
TILT = "tilt"

#: phases in which a round is in play (between closing bets and settlement)
IN_ROUND = frozenset((RNG, DEALING, INSURANCE, DECISIONS, DEALER))
#: phases between rounds in which wagers may be placed
BETWEEN = frozenset((BETTING, SETTLED, VOIDED))

# What the table waits for (``expecting().kind``).
WAGERS = "wagers"
CARD = "card"
DECISION = "decision"
DRAW = "draw"
SHOE = "new-shoe"
CONSOLE = "console"
NOTHING = "none"
