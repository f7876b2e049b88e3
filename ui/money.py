"""How amounts are written on the table: :func:`etgcore.money.dollars`, the project's one
formatting of money (the felt's modules import it from here)."""

from __future__ import annotations

from etgcore.money import dollars

__all__ = ["dollars"]
