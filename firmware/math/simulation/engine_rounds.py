"""Rounds played through the real engine with the computed strategy (one worker's share).

Each round is dealt from a freshly shuffled shoe (the model of the calculation: the first
round after a shuffle, as on a continuous shuffler): ``NewShoe``, the burn card(s), the
wager, DEAL, then every card, decision and RNG draw the engine asks for, exactly as a
table would feed it. The infinite deck (``decks = 0``) is dealt from an eight-deck shoe
with replacement: each card is drawn independently by value, and if the engine's shoe has
no copy of the drawn card left, the suit is drawn again (a bias far below 1e-6 per round).
"""

from __future__ import annotations

import sys
import weakref
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS, GameRules
from firmware.math.strategy.basic import strategy_for

WAGER = 1000  # cents: $10 (GameRules.reference_wager), with a whole 20% activator


@dataclass
class Tally:
    """Sums of one batch of rounds, in units of the Blackjack wager."""

    rounds: int = 0
    total: float = 0.0
    total_sq: float = 0.0
    staked: float = 0.0
    wagers: dict[str, float] = field(default_factory=dict)
    #: each wager's net squared, summed (the fast path fills it)
    squares: dict[str, float] = field(default_factory=dict)
    #: net result of a round in cents -> rounds
    outcomes: Counter[int] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        self.rounds += other.rounds
        self.total += other.total
        self.total_sq += other.total_sq
        self.staked += other.staked
        for k, v in other.wagers.items():
            self.wagers[k] = self.wagers.get(k, 0.0) + v
        for k, v in getattr(other, "squares", {}).items():  # a checkpoint of an older run
            self.squares[k] = self.squares.get(k, 0.0) + v
        self.outcomes.update(other.outcomes)


def engine_rules(rules: GameRules) -> Any:
    """The engine's Rules for ``rules`` (same variant and every setting the math read)."""
    from firmware.engine.rules import load_rules

    extra = dict(rules.extra)
    overrides = dict(extra.get("overrides", {}))
    if rules.decks == 0:
        overrides["decks"] = 8
    return load_rules(rules.variant, overrides, "math")


def play_engine_rounds(rules: GameRules, rounds: int, seed: Any) -> Tally:
    from firmware.engine import Card, Console, CreditsIn, Game, NewShoe, Wager
    from firmware.engine.cards import DECKS, VALUE

    er = engine_rules(rules)
    wager = rules.reference_wager
    strat = strategy_for(rules)
    rng = np.random.default_rng(seed)
    table = Game(er, seats=1, bench=True)
    infinite = rules.decks == 0
    deck = np.array(DECKS[er.deck_kind] * er.decks, dtype=np.int64)
    by_value: list[list[int]] = [[c for c in DECKS[er.deck_kind] if VALUE[c] == v]
                                 for v in range(1, 11)]
    value_p = np.array([len(b) for b in by_value], dtype=float)
    value_p /= value_p.sum()
    tw = np.array(rules.target_weights or [1] * 10, dtype=float)
    mw = np.array(rules.multiplier_weights or [1] * 6, dtype=float)
    tally = Tally()
    table.apply(CreditsIn(1, 10**12))
    seat = table.seats[0]
    rnd = table.round
    counts = table.shoe.counts
    # The inputs are plain values the engine only reads: one object of each, made once,
    # instead of one per card and round (the same inputs, fewer allocations).
    card_in = [Card(c) for c in range(52)]
    new_shoe, bet, deal = NewShoe(), Wager(1, wager), Console("DEAL")
    apply = table.apply
    answer = _decider(table, strat, rules)
    # the generator's only use is the shuffles where no RNG draw is asked (Bingo's are)
    shoes = _Shoes(rng, deck, batched=not rules.bingo)
    for _ in range(rounds):
        apply(new_shoe)
        counts = table.shoe.counts  # a new shoe is a new list
        if infinite:
            vals = rng.choice(10, size=80, p=value_p)
            picks = rng.integers(0, 1 << 30, size=80)
            cards = [by_value[v][p % len(by_value[v])] for v, p in zip(vals, picks, strict=True)]
        else:
            cards = shoes()
        pos = 0
        while rnd.need == "card":  # the burn card(s) of the new shoe (baseline §1.3)
            if pos == len(cards):
                cards = shoes.whole()
            apply(card_in[cards[pos]])
            pos += 1
        credits_before = seat.credits
        apply(bet)
        staked = seat.staked
        apply(deal)
        while True:
            # what the table waits for is ``rnd.need`` (= ``expecting().kind``); the full
            # Expecting is built only where its details are read (decisions, draws)
            kind = rnd.need
            if kind == "card":
                try:
                    card = cards[pos]
                except IndexError:  # a long round: the rest of the same shoe
                    cards = shoes.whole()
                    card = cards[pos]
                pos += 1
                if infinite:
                    while counts[card] == 0:
                        card = by_value[VALUE[card] - 1][int(rng.integers(0, 1 << 30)) % 4]
                apply(card_in[card])
            elif kind == "decision":
                apply(answer())
            elif kind == "draw":
                if shoes.batched:  # the batched shuffles own the generator's stream
                    raise RuntimeError("an RNG draw in a game dealt from batched shuffles")
                apply(_draw(table.expecting().draw, tw, mw, rng))
            else:
                break
        _count_round(tally, table, seat.credits - credits_before, staked, wager)
    return tally


class _Shoes:
    """The first :data:`KEEP` cards of each round's freshly shuffled shoe, exactly what
    ``shoe[:] = deck; rng.shuffle(shoe)`` (= ``rng.permutation(deck)``) gives round
    after round.

    WHY batched: numpy's shuffle of 312 cards costs about 5 µs a round, mostly the call;
    :mod:`firmware.math.simulation.shuffle_kernel` runs the same Fisher-Yates on the same 64-bit
    outputs of the generator for :data:`BATCH` shoes per call. Only where the task's
    generator serves nothing but the shuffles (``batched``), since its outputs are read
    ahead; elsewhere, and without numba, ``rng.shuffle`` itself."""

    KEEP = 120
    BATCH = 64
    #: cards of each shoe made Python ints up front (a round of one seat uses about 6;
    #: :meth:`whole` gives the rest of the same shoe to a longer one). WHY: converting all
    #: :data:`KEEP` was a quarter of a shoe's cost
    HEAD = 16

    def __init__(self, rng: np.random.Generator, deck: np.ndarray, *, batched: bool) -> None:
        self._rng, self._deck = rng, deck
        self._shoe = np.empty_like(deck)
        self._keep = min(self.KEEP, len(deck))
        self._kernel: Any = None
        if batched and len(deck) > 1:
            from firmware.math.cache import load_kernel

            try:
                self._kernel = load_kernel("firmware.math.simulation.shuffle_kernel")
            except ImportError:  # no numba: numpy's own shuffle, the same shoes
                self._kernel = None
        # the 32-bit halves of the outputs in draw order: a little-endian view
        self.batched = self._kernel is not None and sys.byteorder == "little"
        self._draws = np.empty(0, np.uint32)
        self._pos = 0
        n = len(deck)
        self._masks = np.array([(1 << max(i, 1).bit_length()) - 1 for i in range(n)],
                               np.uint32)
        self._out = np.empty((self.BATCH, self._keep), np.int64)
        self._ready: list[list[int]] = []
        self._last: list[int] = []

    def __call__(self) -> list[int]:
        """The next shoe's first cards (:data:`HEAD` of them when batched, else all
        :data:`KEEP`); :meth:`whole` gives all of the same shoe."""
        if not self.batched:
            self._shoe[:] = self._deck
            self._rng.shuffle(self._shoe)
            self._last = self._shoe[:self._keep].tolist()
            return self._last
        if not self._ready:
            self._fill()
        return self._ready.pop()

    def whole(self) -> list[int]:
        """The first :data:`KEEP` cards of the shoe the last call gave."""
        if not self.batched:
            return self._last
        # the rows are popped in order: the last one given is the one before those left
        return self._out[self.BATCH - 1 - len(self._ready)].tolist()

    def _fill(self) -> None:
        """The next BATCH shoes (kept in reverse, popped from the end)."""
        made = 0
        while made < self.BATCH:
            # about 430 draws a shoe of 312 (read ahead, kept for the next call); a shoe
            # the draws ran out in is redone with more
            want = (len(self._deck) * 3 // 2) * (self.BATCH - made) + 128
            if len(self._draws) - self._pos < want:
                more = self._rng.bit_generator.random_raw(want // 2).view(np.uint32)
                self._draws = np.concatenate((self._draws[self._pos:], more))
                self._pos = 0
            n, self._pos = self._kernel.shuffles(self._deck, self._draws, self._pos,
                                                 self._masks, self._out[made:])
            made += n
        self._ready = self._out[:, :min(self.HEAD, self._keep)].tolist()[::-1]


#: The strategy's answers by every argument of ``decide`` (see :func:`_decider`), per
#: strategy object, kept across the tasks a worker plays (a task is 2,000 rounds: a memo
#: made afresh per task spent about a tenth of the run re-deciding the same hands).
_ANSWERS: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Any]] = (
    weakref.WeakKeyDictionary())


def _answers(strat: Any) -> dict[tuple[Any, ...], Any]:
    try:
        return _ANSWERS.setdefault(strat, {})
    except TypeError:  # a strategy that takes no weak reference: a memo per task
        return {}


def _decider(table: Any, strat: Any, rules: GameRules) -> Any:
    """The strategy's answer to the decision the table waits for (insurance included),
    as a function of no arguments made once per task.

    WHY: this is what ``table.expecting()`` would say (its ``legal`` is
    ``legal_now`` of the hand in turn; insurance is asked in the insurance phase), read
    without building the Expecting and its human line at each decision; what does not
    change within a task (the insurance answer, the Decision objects, the engine reads
    them only) is made once."""
    from firmware.engine import Decision
    from firmware.engine.cards import VALUE
    from firmware.engine.decisions import legal_now
    from firmware.engine.hand import BUST

    rnd = table.round
    insurance = Decision(1, 1, "insurance" if strat.insurance() else "no-insurance")
    decide = strat.decide
    bingo_game = rules.bingo
    made = _answers(strat)
    value = VALUE.__getitem__

    def answer() -> Any:
        if rnd.phase == "insurance":
            return insurance
        s = rnd.players[0]
        h = s.hands[rnd.turn_hand]
        cards = h.cards
        bingo = None
        if bingo_game:
            bingo = (_draw_value(rnd.draws, "target"), _draw_value(rnd.draws, "multiplier"))
        # every argument of decide (and the hand's number), so a hit gives what decide
        # would: it is a pure function of them (its own memo keys on less)
        hands = s.hands  # one hand (no split): it is ``h``, owing a decision, not bust
        key = (rnd.turn_hand, VALUE[rnd.dealer.cards[0]], tuple(map(value, cards)),
               tuple(legal_now(rnd, s, h)), h.from_split, h.lammer, h.split_ace,
               rnd.post_double,
               len(hands) == 1 or not any(x.status == BUST for x in hands), bingo,
               len(cards) == 2 and cards[0] % 4 == cards[1] % 4)
        got = made.get(key)
        if got is None:
            d = decide(key[1], key[2], key[3], split_hand=key[4], lammer=key[5],
                       split_ace=key[6], after_double=key[7], bob_alive=key[8], bingo=bingo,
                       suited=key[10])
            got = made[key] = Decision(1, key[0] + 1, d.action, times=d.times)
        return got

    return answer


def _draw(domains: dict[str, Any], tw: np.ndarray, mw: np.ndarray,
          rng: np.random.Generator) -> Any:
    """The RNG draws the engine asks for, weighted as the rules weight them."""
    from firmware.engine import Draw

    values = {}
    for name, domain in domains.items():
        wt = tw if "target" in name else mw if "multiplier" in name else None
        if wt is None or len(wt) != len(domain):
            wt = np.ones(len(domain))
        values[name] = domain[int(rng.choice(len(domain), p=wt / wt.sum()))]
    return Draw(values)


def _count_round(tally: Tally, table: Any, net: int, staked: int, wager: int) -> None:
    """One settled round into the tally: its net, its stake and each wager's share."""
    seat = table.seats[0]
    main = 0
    for h in seat.hands:
        main += h.paid - (0 if h.lammer else h.wager) - (0 if h.double_lammer else h.double)
    ins = 0
    if seat.insurance:
        ins = seat.insurance * 2 if table.dealer_bj else -seat.insurance
    tally.rounds += 1
    x = net / wager
    tally.total += x
    tally.total_sq += x * x
    tally.staked += staked / wager
    tally.outcomes[net] += 1
    w = tally.wagers
    w["blackjack"] = w.get("blackjack", 0.0) + main / wager
    if ins:
        w["insurance"] = w.get("insurance", 0.0) + ins / wager
    side = net - main - ins
    if side or seat.side:
        name = "+".join(sorted(seat.side)) or "side"
        w[name] = w.get(name, 0.0) + side / wager


def _draw_value(draws: dict[str, int], word: str) -> int:
    for k, v in draws.items():
        if word in k:
            return int(v)
    return BINGO_TARGETS[-1] if word == "target" else BINGO_MULTIPLIERS[0]
