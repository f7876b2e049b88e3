"""The compiled round loop of the fast path (numba): one round at a time, no allocation.

Why a scalar loop: the numpy version spent most of its time shuffling whole shoes and
moving arrays of rounds that had long finished; a compiled loop deals only the cards a
round uses (a partial Fisher-Yates draw from the full shoe: each draw picks uniformly among
the cards not yet dealt this round, so a round sees exactly the fresh-shoe law of the
calculation and of :mod:`firmware.math.simulation.engine_rounds`) and keeps a hand's state in
registers.

The game is the numpy fast path's, line for line: decisions come from the dense tables of
:mod:`firmware.math.strategy.dense_tables` (filled by ``Strategy.decide`` with the engine's legal
actions), settlement follows the engine's rules as :class:`GameRules` states them. The
rule values reach the kernel as two flat arrays (:data:`I_*`, :data:`F_*` indices) so the
compiled signature never changes with the game. Round results are counted in cents in an
open-addressing table the caller drains
(:func:`firmware.math.simulation.fast_path.play_fast_rounds`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# -- indices into the integer parameters ------------------------------------------------
I_DECKS_INFINITE = 0
I_H17 = 1
I_DEALER_CHECK = 2
I_AUTO_STAND_21 = 3
I_MAX_HANDS = 4
I_RESPLIT_ACES = 5
I_FREE_SPLIT = 6
I_D22_PUSH = 7
I_P21_WINS = 8
I_PBJ_WINS = 9
I_RESCUE = 10
I_BINGO = 11
I_MULT_ON_DOUBLE = 12
I_HITTING = 13
I_SPANISH = 14
I_N_MULT = 15
I_REFERENCE = 16
#: Spanish 21: the decision (a kernel action code) for a suited initial 7-7 against a 7
#: (the init table holds the mixed 7-7's)
I_SUITED_77 = 17
#: count only the rounds in which a hand was split (the PAR sheet's split rounds)
I_ONLY_SPLIT = 18
#: the generator the draws read: MT19937 or XOSHIRO (see :func:`_below`)
I_GENERATOR = 19
N_INT = 20
# -- indices into the float parameters --------------------------------------------------
F_SURRENDER_REFUND = 0
F_BJ_PAYS = 1
F_ACTIVATOR = 2
F_BOB_ACE_SPADES = 3
F_BOB_SUITED = 4
F_BOB_BLACKJACK = 5
F_BOB_BUST = 6
F_B5, F_B6, F_B7 = 7, 8, 9
F_MX678, F_SU678, F_SP678 = 10, 11, 12
F_MX777, F_SU777, F_SP777 = 13, 14, 15
F_SUPER = 16
N_FLOAT = 17
# -- sums the kernel adds to ------------------------------------------------------------
S_TOTAL, S_TOTAL_SQ, S_MAIN, S_SIDE, S_MAIN_SQ, S_SIDE_SQ, S_STAKE = 0, 1, 2, 3, 4, 5, 6
N_SUMS = 7

PENDING, PLAYING, DONE, BUST, SURR, RESCUED = 0, 1, 2, 3, 4, 5
EMPTY = np.iinfo(np.int64).min
MAX_HANDS = 8


#: ``st[ST_GENERATOR]``: which generator the draws read (see :func:`_below`)
ST_GENERATOR = 3
MT19937, XOSHIRO = 0, 1
_M32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, inline="always", error_model="numpy")
def _next64(rs: np.ndarray) -> np.uint64:
    """xoshiro256** (Blackman and Vigna): the next 64-bit output of the state ``rs[0:4]``."""
    s0, s1, s2, s3 = rs[0], rs[1], rs[2], rs[3]
    m = s1 * np.uint64(5)
    r = ((m << np.uint64(7)) | (m >> np.uint64(57))) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    rs[0], rs[1], rs[2], rs[3] = s0, s1, s2, s3
    return r


@njit(cache=True, inline="always", error_model="numpy")
def _below(st: np.ndarray, rs: np.ndarray, n: int) -> np.int64:
    """Uniform in [0, n) (n < 2^32). WHY two generators: numba's ``np.random.randint``
    (MT19937 behind a call per draw, masked rejection) costs about 17 ns a draw, half a
    round; xoshiro256** with Lemire's multiply-and-reject costs about 1.5 ns, exactly
    uniform too. MT19937 stays for the runs whose seeded figures are printed to the
    last digit (the PAR sheet's split rounds,
    :func:`firmware.math.simulation.fast_path.play_fast_rounds`)."""
    if st[ST_GENERATOR] == MT19937:
        return np.int64(np.random.randint(0, n))
    un = np.uint64(n)
    m = (_next64(rs) >> np.uint64(32)) * un
    if (m & _M32) < un:  # Lemire: reject the low products that would bias the result
        floor = ((_M32 - un) + np.uint64(1)) % un
        while (m & _M32) < floor:
            m = (_next64(rs) >> np.uint64(32)) * un
    return np.int64(m >> np.uint64(32))


@njit(cache=True, inline="always", error_model="numpy")
def _uniform(st: np.ndarray, rs: np.ndarray) -> float:
    """Uniform in [0, 1) from the run's generator (53 bits for xoshiro256**)."""
    if st[ST_GENERATOR] == MT19937:
        return np.random.random()
    return np.float64(_next64(rs) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always", error_model="numpy")
def _draw(shoe: np.ndarray, st: np.ndarray, rs: np.ndarray) -> int:
    """The next card of the round: uniform among the cards of the shoe not yet dealt."""
    n = st[1]
    if st[2]:
        return shoe[_below(st, rs, n)]
    p = st[0]
    if p >= n:  # never in practice (a round uses far fewer cards than a shoe holds)
        p = 0
    j = p + _below(st, rs, n - p)
    c = shoe[j]
    shoe[j] = shoe[p]
    shoe[p] = c
    st[0] = p + 1
    return c


@njit(cache=True, inline="always", error_model="numpy")
def _draw_value(shoe: np.ndarray, st: np.ndarray, rs: np.ndarray, v: int) -> int:
    """The next card of the round given its value: uniform among the shoe's cards of
    value ``v`` not yet dealt (a forced start, :func:`play_rounds`)."""
    n = st[1]
    if st[2]:
        while True:
            c = shoe[_below(st, rs, n)]
            if _value(c) == v:
                return c
    p = st[0]
    while True:
        j = p + _below(st, rs, n - p)
        if _value(shoe[j]) == v:
            break
    c = shoe[j]
    shoe[j] = shoe[p]
    shoe[p] = c
    st[0] = p + 1
    return c


@njit(cache=True, inline="always", error_model="numpy")
def _value(c: int) -> int:
    v = c // 4 + 1
    return 10 if v > 10 else v


@njit(cache=True, inline="always", error_model="numpy")
def _total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard <= 11 else hard


@njit(cache=True, inline="always", error_model="numpy")
def _pick(cum: np.ndarray, st: np.ndarray, rs: np.ndarray) -> int:
    u = _uniform(st, rs) * cum[cum.shape[0] - 1]
    for i in range(cum.shape[0]):
        if u < cum[i]:
            return i
    return cum.shape[0] - 1


@njit(cache=True, error_model="numpy")
def _spanish_odds(fp: np.ndarray, f3: np.ndarray, h: int, nc: int, up: int) -> float:
    """§ 635a.12(b)/(c) odds of a winning undoubled 21 (1.0 when no bonus applies)."""
    if nc == 5:
        return fp[F_B5]
    if nc == 6:
        return fp[F_B6]
    if nc >= 7:
        return fp[F_B7]
    if nc != 3:
        return 1.0
    r0, r1, r2 = f3[h, 0] // 4, f3[h, 1] // 4, f3[h, 2] // 4
    lo = min(r0, r1, r2)
    hi = max(r0, r1, r2)
    mid = r0 + r1 + r2 - lo - hi
    s0, s1, s2 = f3[h, 0] % 4, f3[h, 1] % 4, f3[h, 2] % 4
    same = s0 == s1 and s1 == s2
    spade = same and s0 == 0
    if lo == 5 and mid == 6 and hi == 7:
        return fp[F_SP678] if spade else (fp[F_SU678] if same else fp[F_MX678])
    if lo == 6 and hi == 6:
        o = fp[F_SP777] if spade else (fp[F_SU777] if same else fp[F_MX777])
        if same and up == 7:
            o += fp[F_SUPER]
        return o
    return 1.0


@njit(cache=True, error_model="numpy")
def play_rounds(
    rounds: int,
    seed: int,
    shoe: np.ndarray,
    ip: np.ndarray,
    fp: np.ndarray,
    init: np.ndarray,
    init_t: np.ndarray,
    split2: np.ndarray,
    split2_t: np.ndarray,
    more: np.ndarray,
    rescue: np.ndarray,
    free_dbl: np.ndarray,
    real_split: np.ndarray,
    tcum: np.ndarray,
    mcum: np.ndarray,
    targets: np.ndarray,
    mults: np.ndarray,
    sums: np.ndarray,
    keys: np.ndarray,
    counts: np.ndarray,
    forced: np.ndarray,
    forced_cum: np.ndarray,
    rs: np.ndarray,
) -> int:
    """Play up to ``rounds`` rounds; return how many (fewer when ``keys`` is 3/4 full).

    ``ip[I_GENERATOR]``: :data:`MT19937` (numba's ``np.random``: ``seed`` >= 0 seeds it
    first, the caller's first call of a run; later calls continue its stream) or
    :data:`XOSHIRO` (the state ``rs[0:4]``, seeded by the caller and carried over in
    ``rs`` from call to call). ``forced`` (S, 3): when not empty, every round starts
    with one of these (player card, up card, player card) values, drawn by the cumulative
    weights ``forced_cum`` (suits at random, the hole card from the rest).
    """
    if seed >= 0 and ip[I_GENERATOR] == MT19937:
        np.random.seed(seed)
    st = np.zeros(4, np.int64)
    st[ST_GENERATOR] = ip[I_GENERATOR]
    st[1] = shoe.shape[0]
    st[2] = ip[I_DECKS_INFINITE]
    h17 = ip[I_H17] != 0
    check = ip[I_DEALER_CHECK] != 0
    auto21 = ip[I_AUTO_STAND_21] != 0
    max_hands = min(ip[I_MAX_HANDS], MAX_HANDS)
    resplit_aces = ip[I_RESPLIT_ACES] != 0
    free_split = ip[I_FREE_SPLIT] != 0
    d22push = ip[I_D22_PUSH] != 0
    p21 = ip[I_P21_WINS] != 0
    pbj_wins = ip[I_PBJ_WINS] != 0
    has_rescue = ip[I_RESCUE] != 0
    bingo = ip[I_BINGO] != 0
    mult_dbl = ip[I_MULT_ON_DOUBLE] != 0
    hitting = ip[I_HITTING] != 0
    spanish = ip[I_SPANISH] != 0
    nmult = ip[I_N_MULT]
    ref = float(ip[I_REFERENCE])
    refund = fp[F_SURRENDER_REFUND]
    bj_pays = fp[F_BJ_PAYS]
    mask = keys.shape[0] - 1
    used = 0
    for i in range(keys.shape[0]):
        if keys[i] != EMPTY:
            used += 1

    hard = np.zeros(MAX_HANDS, np.int64)
    ace = np.zeros(MAX_HANDS, np.bool_)
    nc = np.zeros(MAX_HANDS, np.int64)
    fv = np.zeros(MAX_HANDS, np.int64)
    lam = np.zeros(MAX_HANDS, np.bool_)
    dbl = np.zeros(MAX_HANDS, np.int64)
    dlam = np.zeros(MAX_HANDS, np.bool_)
    state = np.zeros(MAX_HANDS, np.int64)
    fsplit = np.zeros(MAX_HANDS, np.bool_)
    f3 = np.full((MAX_HANDS, 3), -1, np.int64)

    done = 0
    while done < rounds:
        st[0] = 0
        lane = 0
        target = 0
        mult = 1.0
        if bingo:
            ti = _pick(tcum, st, rs)
            mi = _pick(mcum, st, rs)
            lane = ti * nmult + mi
            target = targets[ti]
            mult = mults[mi]
        if forced.shape[0]:
            fi = _pick(forced_cum, st, rs)
            c0 = _draw_value(shoe, st, rs, forced[fi, 0])
            cu = _draw_value(shoe, st, rs, forced[fi, 1])
            c2 = _draw_value(shoe, st, rs, forced[fi, 2])
        else:
            c0 = _draw(shoe, st, rs)
            cu = _draw(shoe, st, rs)
            c2 = _draw(shoe, st, rs)
        ch = _draw(shoe, st, rs)
        p1, up, p2, hole = _value(c0), _value(cu), _value(c2), _value(ch)
        dbj = check and ((up == 1 and hole == 10) or (up == 10 and hole == 1))
        pbj = (p1 == 1 and p2 == 10) or (p1 == 10 and p2 == 1)
        hard[0] = p1 + p2
        ace[0] = p1 == 1 or p2 == 1
        nc[0] = 2
        fv[0] = 0
        lam[0] = False
        dbl[0] = 0
        dlam[0] = False
        fsplit[0] = False
        f3[0, 0] = c0
        f3[0, 1] = c2
        f3[0, 2] = -1
        live = not dbj and not pbj
        state[0] = PLAYING if live else DONE
        nh = 1
        first = live
        ci = 0
        # -- the player's decisions, hand by hand --------------------------------------
        while ci < nh:
            s = state[ci]
            if s >= DONE:
                ci += 1
                continue
            if first:
                act = init[lane, up, p1, p2]
                times = init_t[lane, up, p1, p2]
                if spanish and up == 7 and p1 == 7 and p2 == 7 and c0 % 4 == c2 % 4:
                    act = ip[I_SUITED_77]
                    times = 1
                first = False
            else:
                if s == PENDING:
                    c = _draw(shoe, st, rs)
                    if nc[ci] < 3:
                        f3[ci, nc[ci]] = c
                    v = _value(c)
                    hard[ci] += v
                    ace[ci] = ace[ci] or v == 1
                    nc[ci] += 1
                    state[ci] = PLAYING
                t = _total(hard[ci], ace[ci])
                if t > 21 or (t == 21 and auto21):
                    state[ci] = DONE
                    continue
                if nc[ci] == 2:
                    x = hard[ci] - fv[ci]
                    can = x == fv[ci] and nh < max_hands and (resplit_aces or fv[ci] != 1)
                    alive = 1
                    for k in range(nh):
                        if state[k] == BUST:
                            alive = 0
                    a = fv[ci]
                    li = 1 if lam[ci] else 0
                    cs = 1 if can else 0
                    act = split2[lane, up, a, x, li, cs, alive]
                    times = split2_t[lane, up, a, x, li, cs, alive]
                else:
                    act = more[lane, up, hard[ci], 1 if ace[ci] else 0, min(nc[ci], 7),
                               1 if lam[ci] else 0, 1 if fsplit[ci] else 0]
                    times = 1
            # -- carry the decision out ------------------------------------------------
            if act == 0:
                state[ci] = DONE
            elif act == 4:
                state[ci] = SURR
            elif act == 1 or act == 2:
                if act == 2:
                    dbl[ci] = times
                    hv = hard[ci] if hard[ci] < 31 else 31
                    dlam[ci] = nc[ci] == 2 and not ace[ci] and free_dbl[hv]
                c = _draw(shoe, st, rs)
                if nc[ci] < 3:
                    f3[ci, nc[ci]] = c
                v = _value(c)
                hard[ci] += v
                ace[ci] = ace[ci] or v == 1
                nc[ci] += 1
                t = _total(hard[ci], ace[ci])
                if t > 21:
                    state[ci] = BUST
                elif act == 1:
                    if t == 21:
                        state[ci] = DONE
                else:
                    state[ci] = DONE
                    if has_rescue:
                        hv = hard[ci] if hard[ci] < 31 else 31
                        if rescue[lane, up, hv, 1 if ace[ci] else 0, 1 if lam[ci] else 0] == 5:
                            state[ci] = RESCUED
            elif act == 3:
                cfirst = f3[ci, 0]
                csecond = f3[ci, 1]
                new = nh
                nh += 1
                for z in range(2):
                    hh = ci if z == 0 else new
                    cc = cfirst if z == 0 else csecond
                    vv = _value(cc)
                    hard[hh] = vv
                    ace[hh] = vv == 1
                    nc[hh] = 1
                    fv[hh] = vv
                    f3[hh, 0] = cc
                    f3[hh, 1] = -1
                    f3[hh, 2] = -1
                    fsplit[hh] = True
                    state[hh] = PENDING
                    dbl[hh] = 0
                    dlam[hh] = False
                lam[new] = free_split and not real_split[_value(csecond)]
        # -- the dealer: draws only when a standing hand depends on the total ----------
        dh = up + hole
        da = up == 1 or hole == 1
        need = False
        if not dbj and not pbj:
            for k in range(nh):
                if state[k] == DONE:
                    need = True
        if need:
            while True:
                dt = _total(dh, da)
                if dt < 17 or (dt == 17 and h17 and da and dh <= 7):
                    v = _value(_draw(shoe, st, rs))
                    dh += v
                    da = da or v == 1
                else:
                    break
        dt = _total(dh, da)
        # -- settlement ------------------------------------------------------------------
        dbust = dt > 21
        d22 = dt == 22
        net_main = 0.0
        anybust = False
        surr = False
        staked = fp[F_ACTIVATOR] if bingo else (0.0 if hitting else 1.0)
        for k in range(nh):
            s = state[k]
            real = 0.0 if lam[k] else 1.0
            kk = float(dbl[k])
            kreal = 0.0 if dlam[k] else kk
            staked += real + kreal
            if s == DONE:
                t = _total(hard[k], ace[k])
                win = dbust or t > dt
                push = (not dbust) and t == dt
                if d22push and d22:
                    win = False
                    push = True
                if p21 and t == 21:
                    win = True
                    push = False
                if win:
                    odds = 1.0
                    if bingo and t == target:
                        odds = mult
                    dodds = odds if (bingo and mult_dbl) else 1.0
                    if spanish and dbl[k] == 0 and t == 21:
                        odds = odds * _spanish_odds(fp, f3, k, nc[k], up)
                    net_main += odds + kk * dodds
                elif not push:
                    net_main -= real + kreal
            elif s == BUST:
                net_main -= real + kreal
                anybust = True
            elif s == SURR:
                net_main -= 1.0 - refund
                surr = True
            elif s == RESCUED:
                net_main -= real
        if pbj:
            if dbj:
                net_main = bj_pays if pbj_wins else 0.0
            else:
                net_main = bj_pays * (mult if bingo and target == 21 else 1.0)
        elif dbj:
            net_main = -1.0
        side = -fp[F_ACTIVATOR] if bingo else 0.0
        if not hitting:
            if pbj:
                r0, r2 = c0 // 4, c2 // 4
                s0, s2 = c0 % 4, c2 % 4
                if (c0 == 0 and r2 == 10 and (s2 == 0 or s2 == 3)) or (
                    c2 == 0 and r0 == 10 and (s0 == 0 or s0 == 3)
                ):
                    side = fp[F_BOB_ACE_SPADES]
                elif s0 == s2:
                    side = fp[F_BOB_SUITED]
                else:
                    side = fp[F_BOB_BLACKJACK]
            elif dbust and not anybust and not surr and not dbj:
                side = fp[F_BOB_BUST]
            else:
                side = -1.0
        done += 1
        if ip[I_ONLY_SPLIT] and nh == 1:
            continue
        net = net_main + side
        sums[S_TOTAL] += net
        sums[S_TOTAL_SQ] += net * net
        sums[S_MAIN] += net_main
        sums[S_SIDE] += side
        sums[S_MAIN_SQ] += net_main * net_main
        sums[S_SIDE_SQ] += side * side
        sums[S_STAKE] += staked
        # -- count the result in cents ---------------------------------------------------
        cents = np.int64(np.rint(net * ref))
        j = (cents * np.int64(-7046029254386353131)) & mask
        while keys[j] != cents and keys[j] != EMPTY:
            j = (j + 1) & mask
        if keys[j] == EMPTY:
            keys[j] = cents
            used += 1
        counts[j] += 1
        if used * 4 > keys.shape[0] * 3:
            break
    return done
