"""The fast path: very large Monte Carlo runs through a compiled round loop (numba).

The same game as :mod:`firmware.math.simulation.engine_rounds` (each round from a freshly shuffled
shoe, the computed strategy from :mod:`firmware.math.strategy.dense_tables`), played by the compiled
kernel of :mod:`firmware.math.simulation.fast_path_kernel` instead of one engine object per round.
It is checked against the engine by a chi-square test of the round results (tests/math).

numba is an optional dependency (the ``math`` extra, part of ``dev``): the math tooling
runs on a workstation, not on the table's Pi. Without it ``etg rtp`` through the engine
still works and the fast path says in one line what to install.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from etgcore.errors import UserError
from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS, GameRules
from firmware.math.simulation.engine_rounds import Tally
from firmware.math.strategy.basic import strategy_for
from firmware.math.strategy.dense_tables import FastTables, build_tables
from firmware.math.wagers import BUST_PAYTABLE, PAIRED_STAKE, wager_key

#: rounds per kernel call (the result counts are drained between calls)
BATCH = 1_000_000
#: slots of the kernel's table of distinct round results (a power of two)
SLOTS = 1 << 14
_TABLES: dict[str, FastTables] = {}


def tables_for(rules: GameRules) -> FastTables:
    key = rules.rules_hash
    if key not in _TABLES:
        _TABLES[key] = build_tables(rules)
    return _TABLES[key]


def _kernel() -> Any:
    from firmware.math.cache import load_kernel

    try:
        return load_kernel("firmware.math.simulation.fast_path_kernel")
    except ImportError as exc:  # numba (or its llvmlite) missing
        raise UserError(
            f"the fast path (--fast, PAR sheet outcomes) needs numba, not importable here "
            f"(missing {exc.name or 'numba'}): pip install 'etg-firmware[math]', or run etg rtp "
            "without --fast (through the engine)"
        ) from None


def _params(rules: GameRules, k: Any) -> tuple[np.ndarray, np.ndarray]:
    """The rule values of ``rules`` as the kernel's integer and float parameter arrays."""
    from firmware.math.games.split_to_double.hand_values import bob_dealer_bust_odds

    ip = np.zeros(k.N_INT, np.int64)
    ip[k.I_DECKS_INFINITE] = rules.decks == 0
    ip[k.I_H17] = rules.dealer_hits_soft_17
    ip[k.I_DEALER_CHECK] = rules.dealer_check
    ip[k.I_AUTO_STAND_21] = rules.auto_stand_21
    ip[k.I_MAX_HANDS] = max(1, rules.max_hands)
    ip[k.I_RESPLIT_ACES] = rules.resplit_aces
    ip[k.I_FREE_SPLIT] = rules.free_split
    ip[k.I_D22_PUSH] = rules.dealer_22_pushes
    ip[k.I_P21_WINS] = rules.player_21_wins
    ip[k.I_PBJ_WINS] = rules.player_blackjack_wins
    ip[k.I_RESCUE] = rules.rescue
    ip[k.I_BINGO] = rules.bingo
    ip[k.I_MULT_ON_DOUBLE] = rules.multiplier_on_double
    ip[k.I_HITTING] = rules.hitting
    ip[k.I_SPANISH] = rules.spanish_bonuses is not None
    ip[k.I_N_MULT] = len(BINGO_MULTIPLIERS)
    ip[k.I_REFERENCE] = rules.reference_wager
    ip[k.I_SUITED_77] = tables_for(rules).suited_77
    fp = np.zeros(k.N_FLOAT, np.float64)
    fp[k.F_SURRENDER_REFUND] = float(rules.surrender_refund)
    fp[k.F_BJ_PAYS] = float(rules.blackjack_pays)
    fp[k.F_ACTIVATOR] = float(rules.activator)
    pay = dict(rules.bob_paytable or ())
    fp[k.F_BOB_ACE_SPADES] = float(pay.get("ace-spades-jack-clubs-or-spades", 0))
    fp[k.F_BOB_SUITED] = float(pay.get("suited", 0))
    fp[k.F_BOB_BLACKJACK] = float(pay.get("blackjack", 0))
    fp[k.F_BOB_BUST] = bob_dealer_bust_odds(rules)
    b = rules.spanish_bonuses
    if b is not None:
        for idx, val in (
            (k.F_B5, b.five_card_21), (k.F_B6, b.six_card_21), (k.F_B7, b.seven_card_21),
            (k.F_MX678, b.mixed_678), (k.F_SU678, b.suited_678), (k.F_SP678, b.spades_678),
            (k.F_MX777, b.mixed_777), (k.F_SU777, b.suited_777), (k.F_SP777, b.spades_777),
            (k.F_SUPER, b.super_bonus_units),
        ):
            fp[idx] = float(val)
    return ip, fp


def _shoe(rules: GameRules) -> np.ndarray:
    from firmware.engine.cards import DECKS

    deck = np.array(DECKS[rules.deck], dtype=np.int64)
    return deck.copy() if rules.decks == 0 else np.tile(deck, rules.decks)


def play_fast_rounds(rules: GameRules, rounds: int, seed: object,
                     starts: list[tuple[int, int, int, float]] | None = None,
                     only_split: bool = True, lane: tuple[int, int] | None = None,
                     mt19937: bool | None = None) -> Tally:
    """``rounds`` rounds of ``rules`` through the compiled kernel, seeded by ``seed``.

    ``starts`` (player card, up card, player card, weight): every round starts with one
    of these, by weight, and (``only_split``) only the rounds in which a hand is split
    are counted (the PAR sheet's split rounds, :mod:`firmware.math.par.split_distribution`);
    ``rounds`` are then the rounds played, the tally's the rounds counted. ``lane``
    (Bingo: target index, multiplier index): every round draws that target and
    multiplier (a stratum of the PAR sheet's split rounds). ``mt19937``: draw from numba's
    MT19937 (default: only for ``starts``, whose seeded figures the PAR sheet prints)
    rather than the kernel's xoshiro256** (`make bench` times both in one run).
    """
    k = _kernel()
    ft = tables_for(rules)
    ip, fp = _params(rules, k)
    forced = np.zeros((0, 3), np.int64)
    forced_cum = np.zeros(0, np.float64)
    if starts:
        forced = np.array([[a, u, b] for a, u, b, _ in starts], np.int64)
        forced_cum = np.cumsum([w for *_, w in starts]).astype(np.float64)
        ip[k.I_ONLY_SPLIT] = int(only_split)
    free_dbl = np.zeros(32, np.bool_)
    for t in rules.free_double_on:
        free_dbl[t] = True
    real_split = np.zeros(11, np.bool_)
    for v in rules.real_split_values:
        real_split[v] = True
    tw = np.array(rules.target_weights or [1] * len(BINGO_TARGETS), np.float64)
    mw = np.array(rules.multiplier_weights or [1] * len(BINGO_MULTIPLIERS), np.float64)
    if lane is not None:  # one-hot weights: the kernel's draw picks that lane every time
        tw, mw = np.zeros_like(tw), np.zeros_like(mw)
        tw[lane[0]] = mw[lane[1]] = 1.0
    targets = np.array(BINGO_TARGETS, np.int64)
    mults = np.array(BINGO_MULTIPLIERS, np.float64)
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)  # type: ignore[arg-type]
    # The PAR sheet's split rounds (``starts``) print seeded figures to the last digit:
    # they keep numba's MT19937 stream; every other run draws from xoshiro256**, seeded
    # from the same SeedSequence (see fast_path_kernel._below: 10x cheaper a draw)
    mt = bool(starts) if mt19937 is None else mt19937
    ip[k.I_GENERATOR] = k.MT19937 if mt else k.XOSHIRO
    kseed = int(ss.generate_state(1, np.uint32)[0])
    rs = ss.generate_state(4, np.uint64)
    if not rs.any():  # xoshiro's one forbidden state (chance 2^-256)
        rs[0] = 1
    shoe = _shoe(rules)
    sums = np.zeros(k.N_SUMS, np.float64)
    keys = np.full(SLOTS, k.EMPTY, np.int64)
    counts = np.zeros(SLOTS, np.int64)
    tally = Tally()
    done = 0
    while done < rounds:
        n = k.play_rounds(
            min(BATCH, rounds - done), kseed, shoe, ip, fp, ft.init, ft.init_times, ft.split2,
            ft.split2_times, ft.more, ft.rescue, free_dbl, real_split, np.cumsum(tw),
            np.cumsum(mw), targets, mults, sums, keys, counts, forced, forced_cum, rs,
        )
        kseed = -1
        done += n
        used = keys != k.EMPTY
        tally.outcomes.update(Counter(dict(zip(keys[used].tolist(), counts[used].tolist(),
                                               strict=True))))
        keys[:] = k.EMPTY
        counts[:] = 0
    tally.rounds = int(sum(tally.outcomes.values())) if starts else done
    tally.total = float(sums[k.S_TOTAL])
    tally.total_sq = float(sums[k.S_TOTAL_SQ])
    stake = 1.0 + float(rules.activator) + (0.0 if rules.hitting else 1.0)
    tally.staked = float(sums[k.S_STAKE]) if starts else stake * tally.rounds
    tally.wagers["blackjack"] = float(sums[k.S_MAIN])
    tally.squares["blackjack"] = float(sums[k.S_MAIN_SQ])
    if rules.bingo or not rules.hitting:
        name = wager_key(rules, PAIRED_STAKE if rules.bingo else BUST_PAYTABLE)
        tally.wagers[name] = float(sums[k.S_SIDE])
        tally.squares[name] = float(sums[k.S_SIDE_SQ])
    return tally


def warm_up(rules: GameRules) -> None:
    """Compile (or load the cached compilation of) the kernel and build the tables."""
    play_fast_rounds(rules, 100, 0)


__all__ = ["play_fast_rounds", "strategy_for", "tables_for", "warm_up"]
