"""The fast path: many rounds at once with numpy, for very large Monte Carlo runs.

The same game as :mod:`firmware.math.enginesim` (each round from a freshly shuffled shoe,
the computed strategy from :mod:`firmware.math.fasttables`), played on arrays of rounds
instead of one engine object per round. Rounds take disjoint 40-card windows of shuffled
shoes: any fixed positions of a uniformly shuffled shoe are an ordered sample without
replacement, so every round sees exactly the fresh-shoe law (rounds of one shoe are
slightly dependent, which affects nothing but the standard error, negligibly). It is
checked against the engine by a chi-square test of the round results (tests/math).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from firmware.math.enginesim import Tally
from firmware.math.fasttables import FastTables, build_tables
from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS, GameRules
from firmware.math.strategy import strategy_for

WINDOW = 40
BATCH = 100_000
_TABLES: dict[str, FastTables] = {}

PENDING, PLAYING, DONE, BUST, SURR, RESCUED = 0, 1, 2, 3, 4, 5


def tables_for(rules: GameRules) -> FastTables:
    key = rules.rules_hash
    if key not in _TABLES:
        _TABLES[key] = build_tables(rules)
    return _TABLES[key]


def _deal_windows(rules: GameRules, n: int, rng: np.random.Generator) -> np.ndarray:
    from firmware.engine.cards import DECKS

    # int64: numpy's row shuffle is several times faster on it than on small dtypes
    deck = np.array(DECKS[rules.deck], dtype=np.int64)
    if rules.decks == 0:
        return deck[rng.integers(0, len(deck), size=(n, WINDOW))].astype(np.int16)
    shoe = np.tile(deck, rules.decks)
    per = max(1, len(shoe) // WINDOW)
    shoes = -(-n // per)
    arr = np.empty((shoes, len(shoe)), np.int64)
    arr[:] = shoe
    rng.permuted(arr, axis=1, out=arr)
    return arr[:, : per * WINDOW].astype(np.int16).reshape(shoes * per, WINDOW)[:n]


def play_fast_rounds(rules: GameRules, rounds: int, seed: object) -> Tally:
    rng = np.random.default_rng(seed)  # type: ignore[arg-type]
    ft = tables_for(rules)
    tally = Tally()
    done = 0
    while done < rounds:
        n = min(BATCH, rounds - done)
        net, main, side = simulate(rules, ft, _deal_windows(rules, n, rng), rng)
        tally.rounds += n
        tally.total += float(net.sum())
        tally.total_sq += float((net * net).sum())
        stake = 1.0 + float(rules.activator) + (0.0 if rules.hitting else 1.0)
        tally.staked += stake * n
        tally.wagers["blackjack"] = tally.wagers.get("blackjack", 0.0) + float(main.sum())
        if rules.bingo or not rules.hitting:
            name = "activator" if rules.bingo else "blackjack_or_bust"
            tally.wagers[name] = tally.wagers.get(name, 0.0) + float(side.sum())
        cents = np.rint(net * rules.reference_wager).astype(np.int64)
        vals, counts = np.unique(cents, return_counts=True)
        tally.outcomes.update(Counter(dict(zip(vals.tolist(), counts.tolist(), strict=True))))
        done += n
    return tally


def simulate(
    rules: GameRules, ft: FastTables, codes: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Net result of each round (units of the Blackjack wager): total, main, side wagers."""
    R = codes.shape[0]
    H = max(1, rules.max_hands)
    vals = np.minimum(codes // 4 + 1, 10).astype(np.int16)
    up = vals[:, 1]
    p1, p2, hole = vals[:, 0], vals[:, 2], vals[:, 3]
    ptr = np.full(R, 4, np.int16)
    lane = np.zeros(R, np.int64)
    target = np.zeros(R, np.int16)
    mult = np.ones(R)
    if rules.bingo:
        tw = np.array(rules.target_weights or [1] * 10, float)
        mw = np.array(rules.multiplier_weights or [1] * 6, float)
        ti = rng.choice(len(tw), size=R, p=tw / tw.sum())
        mi = rng.choice(len(mw), size=R, p=mw / mw.sum())
        lane = np.asarray(ti * len(BINGO_MULTIPLIERS) + mi, np.int64)
        target = np.array(BINGO_TARGETS, np.int16)[ti]
        mult = np.array(BINGO_MULTIPLIERS, float)[mi]
    dbj = ((up == 1) & (hole == 10)) | ((up == 10) & (hole == 1))
    if not rules.dealer_check:
        dbj[:] = False
    pbj = ((p1 == 1) & (p2 == 10)) | ((p1 == 10) & (p2 == 1))
    # hands
    hard = np.zeros((R, H), np.int16)
    ace = np.zeros((R, H), bool)
    nc = np.zeros((R, H), np.int16)
    fv = np.zeros((R, H), np.int16)  # first card's value (split hands)
    lam = np.zeros((R, H), bool)
    dbl = np.zeros((R, H), np.int16)
    dlam = np.zeros((R, H), bool)
    state = np.full((R, H), DONE, np.int8)
    fromsplit = np.zeros((R, H), bool)
    first3 = np.full((R, H, 3), -1, np.int16)
    nh = np.ones(R, np.int16)
    hard[:, 0] = p1 + p2
    ace[:, 0] = (p1 == 1) | (p2 == 1)
    nc[:, 0] = 2
    first3[:, 0, 0] = codes[:, 0]
    first3[:, 0, 1] = codes[:, 2]
    live = ~dbj & ~pbj
    state[live, 0] = PLAYING
    free_dbl = np.zeros(32, bool)
    for t in rules.free_double_on:
        free_dbl[t] = True

    def total(h: np.ndarray, a: np.ndarray) -> np.ndarray:
        return np.where(a & (h <= 11), h + 10, h)

    def draw(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # a round never needs 40 cards in practice; clipping keeps the array bound safe
        c = codes[idx, np.minimum(ptr[idx], WINDOW - 1)]
        ptr[idx] += 1
        return np.minimum(c // 4 + 1, 10).astype(np.int16), c

    def add_card(idx: np.ndarray, hi: np.ndarray, v: np.ndarray, c: np.ndarray) -> None:
        k = nc[idx, hi]
        sel = k < 3
        first3[idx[sel], hi[sel], k[sel]] = c[sel]
        hard[idx, hi] += v
        ace[idx, hi] |= v == 1
        nc[idx, hi] += 1

    # the initial decision
    idx = np.nonzero(live)[0]
    act = ft.init[lane[idx], up[idx], p1[idx], p2[idx]]
    times = ft.init_times[lane[idx], up[idx], p1[idx], p2[idx]]
    ci = np.zeros(R, np.int16)
    _apply(rules, ft, idx, np.zeros(len(idx), np.int16), act, times, hard, ace, nc, fv, lam,
           dbl, dlam, state, fromsplit, first3, nh, draw, add_card, total, free_dbl, lane, up,
           codes, ptr)
    # the rest of the hands, one decision per round per step
    # rounds with a hand still to play; the set only shrinks, so each step touches few rows
    todo = np.nonzero(live & (state[:, 0] != DONE) | (nh > 1))[0]
    while len(todo):
        cur_state = state[todo, np.minimum(ci[todo], H - 1)]
        finished = ci[todo] >= nh[todo]
        adv = ~finished & (cur_state >= DONE)
        ci[todo[adv]] += 1
        keep = ~finished
        todo = todo[keep]
        if adv[keep].any():
            continue
        active = todo
        hi = ci[active]
        st = state[active, hi]
        pend = st == PENDING
        if pend.any():
            ia, ih = active[pend], hi[pend]
            v, c = draw(ia)
            add_card(ia, ih, v, c)
            state[ia, ih] = PLAYING
        ia, ih = active, hi
        tot = total(hard[ia, ih], ace[ia, ih])
        auto = (tot > 21) | ((tot == 21) & rules.auto_stand_21)  # baseline §1.6
        state[ia[auto], ih[auto]] = DONE
        ia, ih = ia[~auto], ih[~auto]
        if len(ia) == 0:
            continue
        k = nc[ia, ih]
        two = k == 2
        act = np.zeros(len(ia), np.int8)
        times = np.ones(len(ia), np.int8)
        if two.any():
            a2, h2 = ia[two], ih[two]
            x = hard[a2, h2] - fv[a2, h2]
            can = (x == fv[a2, h2]) & (nh[a2] < rules.max_hands)
            if not rules.resplit_aces:
                can &= fv[a2, h2] != 1
            alive = ~np.any(state[a2] == BUST, axis=1)
            key = (lane[a2], up[a2], fv[a2, h2], x, lam[a2, h2].astype(int), can.astype(int),
                   alive.astype(int))
            act[two] = ft.split2[key]
            times[two] = ft.split2_times[key]
        if (~two).any():
            a3, h3 = ia[~two], ih[~two]
            key3 = (lane[a3], up[a3], hard[a3, h3], ace[a3, h3].astype(int),
                    np.minimum(nc[a3, h3], 7), lam[a3, h3].astype(int),
                    fromsplit[a3, h3].astype(int))
            act[~two] = ft.more[key3]
        _apply(rules, ft, ia, ih, act, times, hard, ace, nc, fv, lam, dbl, dlam, state,
               fromsplit, first3, nh, draw, add_card, total, free_dbl, lane, up, codes, ptr)
    # the dealer
    dh = (up + hole).astype(np.int16)
    da = (up == 1) | (hole == 1)
    need = ~dbj
    while True:
        dt = total(dh, da)
        soft17 = (dt == 17) & da & (dh <= 7)
        want = need & ((dt < 17) | (soft17 & rules.dealer_hits_soft_17))
        idx = np.nonzero(want)[0]
        if len(idx) == 0:
            break
        v, _ = draw(idx)
        dh[idx] += v
        da[idx] |= v == 1
    dt = total(dh, da)
    return _settle(rules, R, H, codes, up, dt, dbj, pbj, target, mult, hard, ace, nc, lam, dbl,
                   dlam, state, nh, first3, fromsplit)


def _apply(rules, ft, ia, ih, act, times, hard, ace, nc, fv, lam, dbl, dlam, state,
           fromsplit, first3, nh, draw, add_card, total, free_dbl, lane, up, codes, ptr):
    """Carry out decisions ``act`` for hands (ia, ih)."""
    stand = act == 0
    state[ia[stand], ih[stand]] = DONE
    surr = act == 4
    state[ia[surr], ih[surr]] = SURR
    hit = act == 1
    if hit.any():
        a, h = ia[hit], ih[hit]
        v, c = draw(a)
        add_card(a, h, v, c)
        t = total(hard[a, h], ace[a, h])
        state[a[t > 21], h[t > 21]] = BUST
        state[a[t == 21], h[t == 21]] = DONE
    dd = act == 2
    if dd.any():
        a, h, k = ia[dd], ih[dd], times[dd]
        free = (nc[a, h] == 2) & ~ace[a, h] & free_dbl[np.minimum(hard[a, h], 31)]
        dbl[a, h] = k
        dlam[a, h] = free
        v, c = draw(a)
        add_card(a, h, v, c)
        t = total(hard[a, h], ace[a, h])
        bust = t > 21
        st = np.where(bust, BUST, DONE).astype(np.int8)
        if rules.rescue:
            resc = ft.rescue[lane[a], up[a], np.minimum(hard[a, h], 31), ace[a, h].astype(int),
                             lam[a, h].astype(int)] == 5
            st = np.where(~bust & resc, RESCUED, st).astype(np.int8)
        state[a, h] = st
    sp = act == 3
    if sp.any():
        a, h = ia[sp], ih[sp]
        first = first3[a, h, 0]
        second = first3[a, h, 1]
        v1 = np.minimum(first // 4 + 1, 10)
        v2 = np.minimum(second // 4 + 1, 10)
        new = nh[a].astype(np.int64)
        nh[a] += 1
        free = (~np.isin(v2, rules.real_split_values) if rules.free_split
                else np.zeros(len(a), bool))
        for (hh, vv, cc) in ((h, v1, first), (new, v2, second)):
            hard[a, hh] = vv
            ace[a, hh] = vv == 1
            nc[a, hh] = 1
            fv[a, hh] = vv
            first3[a, hh, 0] = cc
            first3[a, hh, 1] = -1
            first3[a, hh, 2] = -1
            fromsplit[a, hh] = True
            state[a, hh] = PENDING
            dbl[a, hh] = 0
        lam[a, new] = free
        # split aces with one card: deal the second card now and stop, unless it may resplit
        _ = codes, ptr


def _settle(rules, R, H, codes, up, dt, dbj, pbj, target, mult, hard, ace, nc, lam, dbl,
            dlam, state, nh, first3, fromsplit):
    t = np.where(ace & (hard <= 11), hard + 10, hard)
    valid = np.arange(H)[None, :] < nh[:, None]
    dealer_bust = dt > 21
    d22 = dt == 22
    win = valid & (state == DONE) & (dealer_bust[:, None] | (t > dt[:, None]))
    push = valid & (state == DONE) & ~dealer_bust[:, None] & (t == dt[:, None])
    if rules.dealer_22_pushes:
        win &= ~d22[:, None]
        push |= valid & (state == DONE) & d22[:, None]
    if rules.player_21_wins:
        w21 = valid & (state == DONE) & (t == 21)
        win |= w21
        push &= ~w21
    lose = valid & (((state == DONE) & ~win & ~push) | (state == BUST))
    real = (~lam).astype(float)
    k = dbl.astype(float)
    kreal = np.where(dlam, 0.0, k)
    odds = np.ones((R, H))
    if rules.bingo:
        on = t == target[:, None]
        odds = np.where(on, mult[:, None], odds)
    dbl_odds = np.where(rules.multiplier_on_double, odds, 1.0) if rules.bingo else 1.0
    if rules.spanish_bonuses is not None:
        odds = odds * _spanish_odds(rules, t, nc, dbl, first3, up)
    main = np.where(win, odds + k * dbl_odds, 0.0) - np.where(lose, real + kreal, 0.0)
    main += np.where(valid & (state == SURR), -(1.0 - float(rules.surrender_refund)), 0.0)
    main += np.where(valid & (state == RESCUED), -real, 0.0)
    net_main = main.sum(axis=1)
    bj_pays = float(rules.blackjack_pays)
    bj_odds = bj_pays * np.where(target == 21, mult, 1.0) if rules.bingo else bj_pays
    on_dbj = bj_pays if rules.player_blackjack_wins else 0.0
    net_main = np.where(pbj, np.where(dbj, on_dbj, bj_odds), net_main)
    net_main = np.where(dbj & ~pbj, -1.0, net_main)
    side = np.zeros(R)
    if rules.bingo:
        side -= float(rules.activator)
    if not rules.hitting:
        side = _bob(rules, codes, dbj, pbj, dealer_bust, state, valid)
    return net_main + side, net_main, side


def _bob(rules, codes, dbj, pbj, dealer_bust, state, valid):
    from firmware.math.std import bob_dealer_bust_odds

    pay = dict(rules.bob_paytable or ())
    c1, c2 = codes[:, 0].astype(int), codes[:, 2].astype(int)
    r1, r2, s1, s2 = c1 // 4, c2 // 4, c1 % 4, c2 % 4
    ace_sp = ((c1 == 0) & (r2 == 10) & ((s2 == 0) | (s2 == 3))) | (
        (c2 == 0) & (r1 == 10) & ((s1 == 0) | (s1 == 3)))
    suited = s1 == s2
    bj = np.where(ace_sp, float(pay.get("ace-spades-jack-clubs-or-spades", 0)),
                  np.where(suited, float(pay.get("suited", 0)), float(pay.get("blackjack", 0))))
    anybust = np.any(valid & (state == BUST), axis=1)
    surr = np.any(valid & (state == SURR), axis=1)
    res = np.where(dealer_bust & ~anybust & ~surr & ~dbj, bob_dealer_bust_odds(rules), -1.0)
    return np.where(pbj, bj, res)


def _spanish_odds(rules, t, nc, dbl, first3, up):
    b = rules.spanish_bonuses
    odds = np.ones(t.shape)
    und = (dbl == 0) & (t == 21)
    odds = np.where(und & (nc == 5), float(b.five_card_21), odds)
    odds = np.where(und & (nc == 6), float(b.six_card_21), odds)
    odds = np.where(und & (nc >= 7), float(b.seven_card_21), odds)
    three = und & (nc == 3)
    ranks = np.sort(np.where(first3 >= 0, first3 // 4, -1), axis=2)
    suits = first3 % 4
    same = (suits[..., 0] == suits[..., 1]) & (suits[..., 1] == suits[..., 2])
    spade = same & (suits[..., 0] == 0)
    is678 = three & (ranks[..., 0] == 5) & (ranks[..., 1] == 6) & (ranks[..., 2] == 7)
    is777 = three & (ranks[..., 0] == 6) & (ranks[..., 2] == 6)
    for flag, mixed, suited, spades in ((is678, b.mixed_678, b.suited_678, b.spades_678),
                                        (is777, b.mixed_777, b.suited_777, b.spades_777)):
        o = np.where(spade, float(spades), np.where(same, float(suited), float(mixed)))
        odds = np.where(flag, o, odds)
    sup = is777 & same & (up[:, None] == 7)
    odds = odds + np.where(sup, float(b.super_bonus_units), 0.0)
    return odds


__all__ = ["play_fast_rounds", "simulate", "strategy_for"]
