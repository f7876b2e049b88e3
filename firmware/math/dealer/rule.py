"""The dealer's rule and the outcome indices every dealer law is read by.

Outcomes are indexed ``17 18 19 20 21 22 23+ BJ`` (:data:`OUTCOMES`). Kept apart from the
laws themselves so that the exact recursion (:mod:`.final_total`) and the batched one
(:mod:`.many_shoes`) both read one rule without importing each other.
"""

from __future__ import annotations

OUTCOMES: tuple[str, ...] = ("17", "18", "19", "20", "21", "22", "23+", "BJ")
I22, IBUST, IBJ = 5, 6, 7


def dealer_stands(hard: int, ace: bool, hits_soft_17: bool) -> bool:
    """The dealer's rule: stand on 17 or more, except soft 17 when the dealer hits it.

    Split to Double's "draw to hard 17 and stand on all 18s" is this rule with
    ``hits_soft_17`` (baseline §2).
    """
    total = hard + 10 if ace and hard <= 11 else hard
    if total < 17:
        return False
    return not (total == 17 and ace and hard <= 7 and hits_soft_17)


__all__ = ["I22", "IBJ", "IBUST", "OUTCOMES", "dealer_stands"]
