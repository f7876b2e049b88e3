"""How an amount of money is written for a person: integer cents shown as dollars.

The one formatting function of the project: the felt, the recall screen, ``etg recall``,
the table's log and the prompts the engine writes all show ``$5``, ``$2.50``, ``-$5`` the
same way. Display only: money is integer cents everywhere it is counted; this never
rounds (every cent is written when there are any).
"""

from __future__ import annotations


def dollars(cents: int, sign: bool = False, *, exact: bool = False) -> str:
    """``123450`` -> ``"$1,234.50"``; whole dollars drop the cents (``"$25"``) unless
    ``exact`` (a column of amounts: ``"$25.00"``); ``sign`` writes ``+`` on a gain."""
    neg = cents < 0
    whole, frac = divmod(abs(int(cents)), 100)
    body = f"${whole:,}" if frac == 0 and not exact else f"${whole:,}.{frac:02d}"
    if neg:
        return "-" + body
    return ("+" + body) if sign and cents > 0 else body
