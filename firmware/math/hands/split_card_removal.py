"""The value of splitting a pair, every card removed: exact, with resplits.

The seat's hands are played one after the other (the first-dealt card's hand first, a
resplit's new hand last, as the engine does), each drawing from what the hands before it
left. Three facts make the value exact while each hand is valued alone:

1. *The dealer does not see later hands' cards.* The dealer draws after every hand, but
   the cards the later hands take form a stopping time of the shuffled shoe (each hand
   stops by a rule on its own cards), and the cards after a stopping time have the law
   of the cards after the hand that ended before it (optional stopping: the chance that
   the next k cards are a given sequence is a martingale). So a hand's payoff has the
   dealer's law of the shoe as that hand left it.
2. *A later hand does not see the earlier hands' drawn cards either*, by the same
   argument read forwards: the value of the hands still to play is a function of the
   composition they start from that is *harmonic* (equal to its own average after one
   card drawn at random), and an earlier hand's hits are a stopping time.
3. What an earlier hand does see is *whether its second card was a pair card*: a pair
   card makes a new hand (when a resplit is allowed and chosen), so the other cards are
   conditioned to be non-pair cards. For a harmonic function ``U``,
   ``sum over x != p of P(x) U(D - x) = U(D) - P(p) U(D - p)``: the conditioning costs
   one more composition, the shoe less one more pair card.

So with ``S_j`` the shoe less the up card and ``2 + j`` pair cards (every pair card
dealt so far), ``A_j = sum_x P_j(x) V_j(x)`` (``V_j(x)``: the hand ``p, x`` played out
with every card removed, :mod:`firmware.math.hands.backward_pass`), the hands still to play,
``pending`` (each a real wager or a Free Bet lammer) and ``n`` hands made, are worth

    F(j, n, (h, *rest)) = A_j - R P_j(p) V_j(p) + F(j, n, rest)
                          + R P_j(p) [F(j + 1, n + 1, (h, *rest, new)) - F(j + 1, n, rest)]

where ``R`` is 1 when the hand may and does resplit. Only the compositions ``S_j`` ever
appear: a few per pair, not one per card sequence.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from firmware.math.ruleset import GameRules

#: (j, lammer) -> (P_j(x) for x = 1..10 (10,), V_j(x) (10, L, ...))
HandTable = Callable[[int, bool], tuple[np.ndarray, np.ndarray]]


def split_value(rules: GameRules, pair: int, hands: HandTable, resplit: dict[bool, np.ndarray],
                lanes: int) -> np.ndarray:
    """(L, ...) joint value of splitting an initial pair of ``pair`` (all hands, units of
    the initial wager; ``V`` may carry further axes, e.g. line counts, the recursion being
    linear); ``resplit[lammer]``: (L,) True where a split hand of that kind that receives
    a pair card splits again."""
    new = bool(rules.free_split and pair not in rules.real_split_values)
    can_again = pair != 1 or rules.resplit_aces
    shape = hands(0, False)[1].shape[1:]
    memo: dict[tuple[int, int, tuple[bool, ...]], np.ndarray] = {}
    flags = {lam: np.broadcast_to(resplit[lam], (lanes,)).astype(float).reshape(
        (lanes,) + (1,) * (len(shape) - 1)) for lam in resplit}
    zero = np.zeros(shape)

    def f(j: int, n: int, pending: tuple[bool, ...]) -> np.ndarray:
        if not pending:
            return zero
        key = (j, n, pending)
        got = memo.get(key)
        if got is not None:
            return got
        lam, rest = pending[0], pending[1:]
        p, v = hands(j, lam)
        out = (p @ v if v.ndim == 2 else np.tensordot(p, v, axes=1)) + f(j, n, rest)
        if n < rules.max_hands and can_again and p[pair - 1] > 0 and flags[lam].any():
            out = out + flags[lam] * p[pair - 1] * (
                -v[pair - 1] + f(j + 1, n + 1, (lam, *rest, new)) - f(j + 1, n, rest))
        memo[key] = out
        return out

    return f(0, 2, (False, new))


def extras_needed(rules: GameRules, pair: int, counts: int) -> int:
    """The largest ``j`` :func:`split_value` can ask for (``counts``: pair cards in the
    shoe less the up card)."""
    if not (pair != 1 or rules.resplit_aces) or rules.max_hands <= 2:
        return 0
    return max(0, min(counts - 2, 2 * rules.max_hands))
