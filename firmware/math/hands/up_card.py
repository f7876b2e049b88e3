"""One up card's hands, their dealer laws and the moves between them.

An :class:`UpCard` is a :class:`~firmware.math.hands.forest.Forest` (every hand the round can
hold against that up card) with the exact dealer law of each row that needs one
(:func:`laws_of`, computed lazily: a law is needed only where a hand stands) and the
payoffs read from them. The strategy solve (:mod:`firmware.math.strategy.card_removal_up_card`) and
the evaluation (:mod:`firmware.math.games.hitting.card_removal_return`) share these, and the laws
are shared across rule sets with the same shoe and dealer rule. Here too: the reach of each row
under a set of actions (:func:`forward`), and the table a split's recursion reads
(:func:`hand_table`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from firmware.math.dealer.removed_cards import exact_joint_laws
from firmware.math.hands.backward_pass import ACTIONS, PassResult, add_rows
from firmware.math.hands.forest import Forest, Instance, build_forest
from firmware.math.hands.hand_value import DOUBLE, DOUBLE_MAX, HIT, SPLIT, STAND, SURRENDER
from firmware.math.hands.payoffs import Payoffs, outcome_probabilities, payoffs
from firmware.math.ruleset import GameRules

#: deepest resplit composition valued on its own: exact up to max_hands 4 (the recursion
#: asks for at most 2 max_hands - 4 more pair cards out); a larger max_hands reuses it for
#: deeper ones (an approximation the PAR sheet states)
J_CAP = 4


@dataclass
class UpCard:
    """One up card's forest and the payoffs of the rows whose laws are known.

    A row's dealer law is needed only where a hand stands (or arrives by a double): the
    laws are computed for the rows asked for (:meth:`ensure`), the others read as zero
    and must not be used.
    """

    rules: GameRules
    up: int
    forest: Forest
    laws: np.ndarray
    have: np.ndarray
    pay: Payoffs
    lanes: int

    def masks(self) -> tuple[np.ndarray, Any]:
        """The legal actions and double kinds of every row (computed once)."""
        got = self.__dict__.get("_masks")
        if got is None:
            from firmware.math.hands.backward_pass import legal_mask

            got = self.__dict__["_masks"] = legal_mask(self.rules, self.forest)
        return got

    def pruned(self, keep: np.ndarray) -> UpCard:
        """The rows ``keep`` only (see :func:`~firmware.math.hands.forest.prune`)."""
        from firmware.math.hands.forest import prune

        f, rows = prune(self.forest, keep)
        laws = self.laws[rows].copy()
        return UpCard(self.rules, self.up, f, laws, self.have[rows].copy(),
                      payoffs(self.rules, f, laws), self.lanes)

    def ensure(self, rows: np.ndarray) -> None:
        """Compute the laws of ``rows`` (a boolean mask) that are not known yet."""
        todo = rows & ~self.have
        if not todo.any():
            return
        self.laws[todo] = laws_of(self.rules, self.forest, self.forest.removed[todo])
        self.have |= todo
        p = self.pay
        p.laws = self.laws
        p.pw[todo], p.pp[todo], p.pl[todo] = outcome_probabilities(
            self.rules, self.forest.total[todo], self.laws[todo], p.notbj[todo])


#: exact laws already computed, per (deck kind, shoe less the up card, up, H17): sorted
#: packed keys of the removed multisets and their laws (the solve, the evaluation and
#: every rule set with the same shoe and dealer rule share them)
_LAWS: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray]] = {}


_PACK = np.int64(1) << (6 * np.arange(10, dtype=np.int64))


def laws_of(rules: GameRules, f: Forest, removed: np.ndarray) -> np.ndarray:
    """(K, 8) the exact joint laws of the shoe less the up card less each of ``removed``
    (each distinct multiset once; the laws of earlier calls are reused)."""
    key = (rules.shoe.kind, tuple(int(x) for x in f.c0), f.up, rules.dealer_hits_soft_17)
    keys = removed @ _PACK
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    have_k, have_l = _LAWS.get(key, (np.zeros(0, dtype=np.int64), np.zeros((0, 8))))
    at = np.minimum(np.searchsorted(have_k, uniq), max(len(have_k) - 1, 0))
    known = (have_k[at] == uniq) if len(have_k) else np.zeros(len(uniq), dtype=bool)
    got = np.zeros((len(uniq), 8))
    got[known] = have_l[at[known]]
    todo = ~known
    if todo.any():
        got[todo] = exact_joint_laws(rules.shoe.kind, f.c0, removed[first[todo]], f.up,
                                     rules.dealer_hits_soft_17)
        all_k = np.concatenate([have_k, uniq[todo]])
        all_l = np.concatenate([have_l, got[todo]])
        order = np.argsort(all_k)
        if len(_LAWS) >= 64:
            _LAWS.clear()
        _LAWS[key] = (all_k[order], all_l[order])
    return got[inverse.reshape(-1)]


def up_card(rules: GameRules, up: int, instances: tuple[Instance, ...]) -> UpCard:
    full = rules.shoe.counts()
    assert full is not None
    c0 = list(full)
    c0[up - 1] -= 1
    f = build_forest(tuple(c0), up, instances)
    laws = np.zeros((f.rows, 8))
    pay = payoffs(rules, f, laws)
    return UpCard(rules, up, f, laws, np.zeros(f.rows, dtype=bool), pay, pay.win.shape[1])


def split_instances(rules: GameRules, pair: int, c0_pair: int, resplits: bool
                    ) -> list[Instance]:
    """The split hand kinds a split of ``pair`` needs (every lammer flag, every number of
    further pair cards out that :func:`split_value` can ask for)."""
    lams = [False]
    if rules.free_split and pair not in rules.real_split_values:
        lams.append(True)
    top = 0
    if resplits and (pair != 1 or rules.resplit_aces) and rules.max_hands > 2:
        # the recursion asks for S_j while a pair card is left in S_(j - 1), and at most
        # 2 max_hands - 4 times (each ask either makes a hand or ends one)
        top = min(J_CAP, 2 * rules.max_hands - 4, max(0, c0_pair - 2))
    return [Instance(pair, j, lam) for j in range(top + 1) for lam in lams]


def hand_table(work: list[tuple[UpCard, np.ndarray]], pair: int) -> Any:
    """The (j, lammer) -> (P_j, V_j) function :func:`split_value` reads, from whichever
    forest holds each split hand kind (a composition with more pair cards out than the
    forests hold reuses the deepest one: only with ``max_hands`` above 4, see
    :data:`J_CAP`)."""
    where: dict[Instance, tuple[UpCard, np.ndarray, int]] = {}
    tops: dict[bool, int] = {}
    for uc, res in work:
        for i, ins in enumerate(uc.forest.instances):
            if ins.pair == pair:
                where[ins] = (uc, res, i)
                tops[ins.lammer] = max(tops.get(ins.lammer, 0), ins.extra)
    got: dict[tuple[int, bool], tuple[np.ndarray, np.ndarray]] = {}

    def hands(j: int, lam: bool) -> tuple[np.ndarray, np.ndarray]:
        key = (min(j, tops[lam]), lam)
        out = got.get(key)
        if out is None:
            uc, res, i = where[Instance(pair, key[0], lam)]
            f = uc.forest
            first = f.row(i, (pair,))
            p = f.q[first].copy()
            ch = f.child[first]
            # a bust child reads the first card's own row (masked below): any row would
            # do for the full array, but a RowView holds only the rows a round reads
            got_v = res[np.where(ch >= 0, ch, first)]
            v = np.where((ch >= 0).reshape((10,) + (1,) * (got_v.ndim - 1)), got_v, 0.0)
            out = got[key] = (p, v)
        return out

    return hands


def reach(rules: GameRules, uc: UpCard, act: np.ndarray, roots: np.ndarray,
          suited: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(R,) the rows whose dealer law the pass reads with these actions (a hand reached
    that stands, or stands by itself, and a hand reached by a double), and (R,) every row
    a hand can be in (by a card or a double's)."""

    pi, pi_dbl = forward(rules, uc, PassResult(np.zeros_like(roots), act, [], []), roots)
    f = uc.forest
    stands = (act == STAND) | (act == -1)
    need = np.any((pi > 0) & stands & (f.nc >= 2)[:, None], axis=1)
    seen = np.any(pi > 0, axis=1)
    for d in pi_dbl:
        hit = np.any(d > 0, axis=1)
        need |= hit
        seen |= hit
    if suited is not None and suited != SPLIT:
        # Spanish 21's suited 7-7 against a 7 plays on where the mixed one splits
        row = f.row(0, (7, 7))
        alt = act.copy()
        alt[row] = suited
        one = np.zeros_like(roots)
        one[row] = 1.0
        n2, s2 = reach(rules, uc, alt, one)
        need |= n2
        seen |= s2
    return need, seen


def needed(rules: GameRules, uc: UpCard, act: np.ndarray, roots: np.ndarray,
           suited: int | None = None) -> np.ndarray:
    """The first mask of :func:`reach`."""
    return reach(rules, uc, act, roots, suited)[0]


def row_options(uc: UpCard, res: PassResult, row: int) -> np.ndarray:
    """(ACTIONS, L) every action's value at one row, from the pass's values of the hands
    it can become (the pass keeps only the chosen action's)."""
    from firmware.math.hands.backward_pass import NEG
    from firmware.math.hands.hand_value import DOUBLE as _D
    from firmware.math.hands.payoffs import stand_value

    r, f, pay = uc.rules, uc.forest, uc.pay
    legal, kinds = uc.masks()
    out = np.full((ACTIONS, uc.lanes), NEG)
    out[STAND] = stand_value(pay, np.array([row]))[0]
    ch = f.child[row]
    ok = ch >= 0
    q = f.q[row]
    stake = pay.stake[row]
    bust = pay.bust_notbj[row]
    if legal[row, HIT]:
        after = np.where(ok[:, None], res.value[np.maximum(ch, 0)], (-stake * bust)[:, None])
        out[HIT] = q @ after
    for code in (_D, DOUBLE_MAX):
        i = int(kinds.of_row[row, code])
        if legal[row, code] and i >= 0:
            k, free = kinds.kinds[i]
            lost = stake + (0.0 if free else float(k))
            after = np.where(ok[:, None], res.doubled[i][np.maximum(ch, 0)],
                             (-lost * bust)[:, None])
            out[code] = q @ after
    if legal[row, SURRENDER]:
        out[SURRENDER] = -(1.0 - float(r.surrender_refund)) * pay.notbj[row]
    return out

def lane_weights(rules: GameRules) -> np.ndarray:
    """(L,) the probability of each Bingo (target, multiplier) draw; [1] elsewhere."""
    if not rules.bingo:
        return np.ones(1)
    wt = np.array(rules.target_weights or [1] * 10, dtype=float)
    wm = np.array(rules.multiplier_weights or [1] * 6, dtype=float)
    return (wt[:, None] / wt.sum() * (wm[None, :] / wm.sum())).ravel()


def forward(rules: GameRules, uc: UpCard, res: PassResult, roots: np.ndarray
            ) -> tuple[np.ndarray, list[np.ndarray]]:
    """Reach probability of every row (and of every row reached by each double kind)
    from the root weights ``roots`` (R, L), with the pass's actions."""
    f = uc.forest
    _, kinds = uc.masks()
    pi = roots.copy()
    pi_dbl = [np.zeros_like(roots) for _ in kinds.kinds]
    # a split hand's first card draws its second whatever the strategy
    first = (f.nc == 1)[:, None]
    for lo, hi in reversed(f.levels):
        sl = slice(lo, hi)
        ch = f.child[sl]
        ok = ch >= 0
        if not ok.any():
            continue
        act = res.action[sl]
        flow = f.q[sl][:, :, None] * pi[sl][:, None, :]
        to = ch[ok]
        go = (act == HIT) | first[sl]
        add_rows(pi, to, (flow * go[:, None, :])[ok])
        for code in (DOUBLE, DOUBLE_MAX):
            dbl = act == code
            if not dbl.any():
                continue
            kind_of = kinds.of_row[sl, code]
            for i in range(len(kinds.kinds)):
                sel = dbl & (kind_of == i)[:, None]
                if sel.any():
                    add_rows(pi_dbl[i], to, (flow * sel[:, None, :])[ok])
    return pi, pi_dbl

__all__ = ["J_CAP", "UpCard", "forward", "hand_table", "lane_weights", "laws_of", "needed",
           "reach", "row_options", "split_instances", "up_card"]
