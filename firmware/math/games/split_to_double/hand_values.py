"""Split to Double Blackjack (§ 633b.26): the hand values and the seat's total value.

What makes the game its own: no hitting (a hand stands, doubles 1x-4x for one card, or
splits); the initial two cards split whatever their values; and the mandatory Blackjack or
Bust wager couples the seat's hands: it wins on a player Blackjack (paytable) or a dealer
bust (1 to 1) but loses if *any* of the seat's hands busts (baseline §2). A double that
may bust therefore costs the Blackjack or Bust wager too, and the decision weighs that.

Per hand, a double's return is linear in its size, so only 1x and 4x are ever best.
With ``c = 2 * P(dealer busts)``, a seat with one hand is worth
``m - c * P(bust) + c - 1`` (main wager ``m``), so a hand is played to maximise
``m - c * P(bust)`` while the Blackjack or Bust wager is still alive, and ``m`` once a
hand of the seat has busted. Split hands are played in order with that flag, and the
seat's value is ``E[sum of main] + c * P(no hand busts) - 1``, computed by a small dynamic
programme over (hands made, hands waiting, still alive).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from firmware.math.composition import probabilities, remove
from firmware.math.dealer.final_total import I22, IBUST, blackjack_probability, dealer_distribution
from firmware.math.hands.hand_value import DOUBLE, DOUBLE_MAX, SPLIT, STAND, SURRENDER, total_of
from firmware.math.progress import each_up_card
from firmware.math.ruleset import GameRules

Table = dict[tuple[Any, ...], Any]

#: Blackjack or Bust hand lines of § 633b.26(i), best first.
BOB_LINES = ("ace-spades-jack-clubs-or-spades", "suited", "blackjack")
#: Of the 64 d^2 ace / ten-value pairs of a d-deck shoe: 2 d^2 are the ace of spades
#: with the jack of clubs or spades, 15 d^2 are suited otherwise, 47 d^2 are neither.
BOB_BJ_SHARES = (Fraction(2, 64), Fraction(15, 64), Fraction(47, 64))


def bob_blackjack_value(rules: GameRules) -> Fraction:
    """Expected Blackjack or Bust payout given a player Blackjack (best line pays)."""
    pay = dict(rules.bob_paytable or ())
    return sum(
        (
            share * pay.get(line, Fraction(0))
            for line, share in zip(BOB_LINES, BOB_BJ_SHARES, strict=False)
        ),
        Fraction(0),
    )


def bob_dealer_bust_odds(rules: GameRules) -> float:
    return float(dict(rules.bob_paytable or ()).get("dealer-bust", Fraction(1)))


#: dealer laws (no Blackjack) by (deck kind, composition, up, H17): the strategy solve,
#: the automatic players' strategy and the return share them, and a solve asks for an
#: up card's compositions in one batch (one call of the batched law, not twelve)
_LAWS: dict[tuple[Any, ...], tuple[float, ...]] = {}


def _dealer_law(rules: GameRules, counts: tuple[int, ...] | None, up: int
                ) -> tuple[float, ...]:
    key = (rules.shoe.kind, counts, up, rules.dealer_hits_soft_17)
    got = _LAWS.get(key)
    if got is None:
        got = dealer_distribution(rules.shoe, counts, up, rules.dealer_hits_soft_17)
        _keep(key, got)
    return got


def _prefetch_laws(rules: GameRules, comps: list[tuple[int, ...] | None], up: int) -> None:
    """The laws of ``comps`` (finite shoe) for up card ``up``, in one batch."""
    import numpy as np

    from firmware.math.dealer.many_shoes import laws

    h17 = rules.dealer_hits_soft_17
    todo = sorted({c for c in comps
                   if c is not None and (rules.shoe.kind, c, up, h17) not in _LAWS})
    if todo:
        got = laws(rules.shoe.kind, np.asarray(todo), up, h17)
        for c, law in zip(todo, got, strict=True):
            _keep((rules.shoe.kind, c, up, h17), tuple(float(x) for x in law))


def _keep(key: tuple[Any, ...], law: tuple[float, ...]) -> None:
    if len(_LAWS) >= 4096:  # a long-lived process (the bench) varies the rules
        _LAWS.clear()
    _LAWS[key] = law


class StdSolver:
    """Values for one composition (player's two cards and up card removed)."""

    def __init__(
        self,
        rules: GameRules,
        counts: tuple[int, ...] | None,
        up: int,
        policy: Callable[[tuple[Any, ...]], Any] | None,
        record: Table | None,
        own_initial: bool = False,
    ) -> None:
        shoe = rules.shoe
        #: the initial hand chooses stand or a double for its own two cards (the solver's
        #: shoe is then the shoe less the up card and those two cards)
        self.own_initial = own_initial
        self.r = rules
        self.up = up
        self.q = probabilities(shoe, counts)
        self.d = _dealer_law(rules, counts, up)
        self.pbj = float(blackjack_probability(shoe, counts, up))
        self.p_bust = self.d[I22] + self.d[IBUST]
        self.c = 2 * self.p_bust * bob_dealer_bust_odds(rules)
        self.policy = policy
        self.record = record
        d = self.d
        self.net = [0.0] * 22  # main wager's value standing on each total, per unit
        for t in range(22):
            w = self.p_bust + sum(d[i] for i, dt in enumerate(range(17, 22)) if t > dt)
            p = sum(d[i] for i, dt in enumerate(range(17, 22)) if t == dt)
            self.net[t] = w - (1 - w - p)
        lo, hi = min(rules.double_times), max(rules.double_times)
        self.multiples = (lo, hi)
        self._dp_memo: dict[tuple[Any, ...], tuple[float, float]] = {}
        self._resplit_memo: dict[tuple[Any, ...], bool] = {}
        self._hands_memo: dict[tuple[int, bool], list[tuple[float, float]]] = {}

    def _choose(
        self, key: tuple[Any, ...], opts: list[tuple[int, float, Any]]
    ) -> tuple[float, Any]:
        """Pick by score (first number); return (score, payload) of the choice."""
        if self.policy is not None:
            dec = self.policy(key)
            for code, score, payload in opts:
                if code == dec:
                    return score, payload
        best = max(opts, key=lambda o: o[1] + (1e-12 if o[0] == STAND else 0.0))
        if self.record is not None:
            self.record[key] = best[0]
        return best[1], best[2]

    def hand(self, hard: int, ace: bool, alive: bool) -> tuple[float, float]:
        """(main value, P(bust)) of a two-card hand played by the strategy."""
        return self._hand(hard, ace, alive)

    @cache  # noqa: B019 - one solver per composition, short-lived
    def _hand(self, hard: int, ace: bool, alive: bool) -> tuple[float, float]:
        t = total_of(hard, ace)
        stand = (self.net[t], 0.0)
        if t > 21 or (t == 21 and self.r.auto_stand_21):  # baseline §1.6 unless the rules
            return stand
        opts: list[tuple[int, float, Any]] = [(STAND, stand[0], stand)]
        for code, k in ((DOUBLE, self.multiples[0]), (DOUBLE_MAX, self.multiples[1])):
            m, pb = self._doubled(hard, ace, k)
            opts.append((code, m - (self.c * pb if alive else 0.0), (m, pb)))
            if k == self.multiples[1] and self.multiples[0] == k:
                break
        _, payload = self._choose(("std-hand", self.up, hard, ace, alive), opts)
        return payload

    def _hand_options(self, hard: int, ace: bool) -> list[tuple[int, float, float]]:
        """(code, main value, P(bust)) of standing and of each double of a two-card hand
        (a 21 that stands by itself: standing only)."""
        t = total_of(hard, ace)
        out = [(STAND, self.net[min(t, 21)] if t <= 21 else -1.0, 0.0)]
        if t > 21 or (t == 21 and self.r.auto_stand_21):
            return out
        for code, k in ((DOUBLE, self.multiples[0]), (DOUBLE_MAX, self.multiples[1])):
            if code == DOUBLE_MAX and k == self.multiples[0]:
                break
            m, pb = self._doubled(hard, ace, k)
            out.append((code, m, pb))
        return out

    def _doubled(self, hard: int, ace: bool, k: int) -> tuple[float, float]:
        """(main value, P(bust)) of doubling ``k`` times on the hand: its one card, then
        standing."""
        m = pb = 0.0
        for v in range(1, 11):
            p = self.q[v - 1]
            if not p:
                continue
            t2 = total_of(hard + v, ace or v == 1)
            if t2 > 21:
                m -= p * (1 + k)
                pb += p
            else:
                m += p * (1 + k) * self.net[t2]
        return m, pb

    def resplits(self, card: int, alive: bool) -> bool:
        """Whether a split hand of ``card`` that receives ``card`` is split again.

        Decided by value, not copied from the initial pair: resplitting is compared with
        playing the pair (stand or double) for the last hand of a two-hand split, where
        the comparison is exact for that hand (the seat's other hands are coupled to it
        only through the Blackjack or Bust wager's "alive" flag).
        """
        key = ("std-resplit", self.up, card, alive)
        if self.policy is not None:
            dec = self.policy(key)
            if dec is not None:
                return bool(dec == SPLIT)
        got = self._resplit_memo.get(key)
        if got is None:
            self._split_dp((card,), 2, alive, record=True)
            got = self._resplit_memo[key]
        return got

    def _objective(self, em: float, pa: float) -> float:
        """Seat value of (E[main], P(no hand busts)) up to a constant (BoB wager)."""
        return em + self.p_bust * pa * (bob_dealer_bust_odds(self.r) + 1)

    def _split_dp(
        self, pending: tuple[int, ...], n: int, alive: bool, *, record: bool = False
    ) -> tuple[float, float]:
        """(E[sum of main], P(no hand busts)) of split hands still to play, in order.

        ``pending`` holds the first card of each hand still to receive its second card;
        a resplit's new hand goes last, as the engine appends it to the seat. With
        ``record`` the resplit choice of the first hand is written to the memo the
        strategy reads (:meth:`resplits`).
        """
        key = (pending, n, alive)
        got = self._dp_memo.get(key)
        if got is not None and not record:
            return got
        q = self.q
        r = self.r
        if not pending:
            return 0.0, 1.0 if alive else 0.0
        c, rest = pending[0], pending[1:]
        em = 0.0
        pa = 0.0
        # the hands after this one do not depend on its card: valued once, not per card
        m1, a1 = self._split_dp(rest, n, alive)
        m0 = self._split_dp(rest, n, False)[0] if alive else 0.0
        hands = self._hands_of(c, alive)
        for x in range(1, 11):
            p = q[x - 1]
            if not p:
                continue
            m, pb = hands[x - 1]
            pm = m + m1
            pp = (1 - pb) * a1 if alive else 0.0
            if alive:
                pm += pb * (m0 - m1)
            if x == c and n < r.max_hands and (c != 1 or r.resplit_aces):
                sm, sa = self._split_dp((c, *rest, c), n + 1, alive)
                rkey = ("std-resplit", self.up, c, alive)
                dec = self.policy(rkey) if self.policy is not None else None
                if dec is None:
                    better = self._objective(sm, sa) > self._objective(pm, pp) + 1e-12
                    if record:
                        self._resplit_memo[rkey] = better
                        if self.record is not None:
                            self.record[rkey] = SPLIT if better else STAND
                else:
                    better = dec == SPLIT
                if better:
                    pm, pp = sm, sa
            em += p * pm
            pa += p * pp
        self._dp_memo[key] = (em, pa)
        return em, pa

    def _hands_of(self, c: int, alive: bool) -> list[tuple[float, float]]:
        """:meth:`hand` of a split hand of first card ``c`` for each second card."""
        key = (c, alive)
        got = self._hands_memo.get(key)
        if got is None:
            got = self._hands_memo[key] = [self.hand(c + x, c == 1 or x == 1, alive)
                                           for x in range(1, 11)]
        return got

    def split(self, a: int, b: int) -> tuple[float, float]:
        """(E[sum of main values], P(no hand busts)) of splitting cards ``a``, ``b``.

        ``a`` is the first card dealt: its hand is played first, as the engine does.
        """
        return self._split_dp((a, b), 2, True)

    def initial(self, a: int, b: int) -> tuple[float, float]:
        """(main value, Blackjack or Bust value) of a non-Blackjack start, no dealer BJ."""
        hard, ace = a + b, a == 1 or b == 1
        c = self.c
        bob_odds = bob_dealer_bust_odds(self.r)
        opts: list[tuple[int, float, Any]] = []
        if self.own_initial:
            for code, m, pb in self._hand_options(hard, ace):
                bob = self.p_bust * (1 - pb) * (bob_odds + 1) - 1
                opts.append((code, m + bob, (m, bob)))
        else:
            m, pb = self.hand(hard, ace, True)
            bob = self.p_bust * (1 - pb) * (bob_odds + 1) - 1
            opts.append((STAND, m + bob, (m, bob)))
        if self.r.max_hands >= 2:
            # either card may be the first dealt (the one whose hand is played first)
            em, pa = self.split(a, b)
            if a != b:
                em2, pa2 = self.split(b, a)
                em, pa = (em + em2) / 2, (pa + pa2) / 2
            bob_s = self.p_bust * pa * (bob_odds + 1) - 1
            opts.append((SPLIT, em + bob_s, (em, bob_s)))
        if self.r.late_surrender:
            opts.append(
                (
                    SURRENDER,
                    -1.0 + float(self.r.surrender_refund) - 1.0,
                    (-1.0 + float(self.r.surrender_refund), -1.0),
                )
            )
        # The stand option carries the hand's own best play (stand or double).
        _, payload = self._choose(("std-initial", self.up, a, b), opts)
        del c
        return payload


def std_deal_value(rules: GameRules, solver: StdSolver, a: int, b: int) -> tuple[float, float]:
    """(main, Blackjack or Bust) value of one start, dealer check included."""
    pbj = solver.pbj
    if {a, b} == {1, 10}:
        bob = float(bob_blackjack_value(rules))
        return (1 - pbj) * float(rules.blackjack_pays), bob
    m, bob = solver.initial(a, b)
    return -pbj + (1 - pbj) * m, -pbj + (1 - pbj) * bob


@lru_cache(maxsize=16)
def std_solve_strategy(rules: GameRules) -> Table:
    """The total-dependent strategy from the shoe less the up card (cached by rules:
    the return calculation and the automatic players share one table; read only).

    Resplit choices first (:meth:`StdSolver.resplits`, from the shoe less the up card and
    the pair), then the initial decisions and the hand decisions valued with those
    resplit choices, so that the table is consistent with itself: the value of
    splitting counts the resplits the strategy will make.
    """
    table: Table = {}
    full = rules.shoe.counts()
    each_up_card(lambda up: _solve_up(rules, table, full, up))
    return table


def _solve_up(rules: GameRules, table: Table, full: tuple[int, ...] | None, up: int) -> None:
    """:func:`std_solve_strategy`'s entries for one up card, into ``table``."""
    if full is not None:
        _prefetch_laws(rules, [remove(full, up)]
                       + [remove(full, up, c, c) for c in range(1, 11)], up)
    first = StdSolver(rules, remove(full, up), up, None, table)
    for c in range(1, 11):
        # a resplit is decided where it is met: the pair's two cards are out of the
        # shoe (a split 10-10 against a 6 stands, its tens being scarcer; measured
        # against the composition-dependent calculation, docs/math.md)
        at_pair = StdSolver(rules, remove(full, up, c, c), up, None, table)
        for alive in (True, False):
            at_pair.resplits(c, alive)

    def resplit_policy(key: tuple[Any, ...]) -> Any:
        return table.get(key) if key[0] == "std-resplit" else None

    rec = StdSolver(rules, remove(full, up), up, resplit_policy, table)
    starts = [(a, b) for a in range(1, 11) for b in range(a, 11) if {a, b} != {1, 10}]
    for a, b in starts:
        rec.initial(a, b)
    for hard in range(2, 21):
        for ace in (False, True):
            for alive in (True, False):
                rec.hand(hard, ace, alive)
    if full is None:
        return
    # the initial decision of each start from the shoe less the up card and its own two
    # cards (stand, a double of either size, split, surrender): the start is one
    # composition, so its row is its own; the split hands' plays and the resplits stay
    # the table's
    own = [(a, b) for a, b in starts if full[a - 1] - (a == up) >= 1 + (a == b)
           and full[b - 1] - (b == up) >= 1]
    _prefetch_laws(rules, [remove(full, up, a, b) for a, b in own], up)

    def hand_policy(key: tuple[Any, ...]) -> Any:
        return table.get(key) if key[0] != "std-initial" else None

    for a, b in own:
        scratch: Table = {}
        StdSolver(rules, remove(full, up, a, b), up, hand_policy, scratch,
                  own_initial=True).initial(a, b)
        table[("std-initial", up, a, b)] = scratch[("std-initial", up, a, b)]
    if up == 1:
        pbj = first.pbj
        table[("insurance", 1)] = float(rules.insurance_pays) * pbj - (1 - pbj) > 0
