"""How amounts are written on the table: integer cents shown as dollars.

Display only: no arithmetic on money happens in the UI beyond formatting the integer
cents the engine sends.
"""

from __future__ import annotations


def dollars(cents: int, sign: bool = False) -> str:
    """``123450`` -> ``"$1,234.50"``; whole dollars drop the cents (``"$25"``)."""
    neg = cents < 0
    whole, frac = divmod(abs(cents), 100)
    body = f"${whole:,}" if frac == 0 else f"${whole:,}.{frac:02d}"
    if neg:
        return "-" + body
    return ("+" + body) if sign and cents > 0 else body
