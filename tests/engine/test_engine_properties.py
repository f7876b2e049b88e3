"""Property tests (hypothesis): random legal play with chaos inputs thrown in.

Over thousands of rounds: money is conserved after every input (credits + stakes on the
table + house result = credits in - out, baseline §1.12) and each seat's stakes and
returns by wager kind add up to its totals (the meters), every round ends, an input the
table refuses changes nothing, replaying the journal equals live play, and the public
view never shows an unrevealed hole card (baseline §1.4).
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

from engine_helpers import Recorder, replay_as_journaled
from hypothesis import example, given, settings
from hypothesis import strategies as st

from firmware.engine import (
    Card,
    CloseBetting,
    Console,
    CreditsIn,
    CreditsOut,
    Cut,
    Decision,
    Draw,
    Fault,
    FaultCleared,
    Game,
    Hello,
    Input,
    NewShoe,
    Rejected,
    SideWager,
    Wager,
    load_rules,
)
from firmware.engine.cards import CODE, DECKS, VALUE
from firmware.engine.decisions import insurance_offer
from firmware.engine.inputs import ACTIONS, FAULT_CODES
from firmware.engine.replay import replay

PROFILE = settings(max_examples=40, derandomize=True, deadline=None)

rule_sets = st.fixed_dictionaries({
    "decks": st.sampled_from([1, 2, 6, 8]),
    "dealer_hits_soft_17": st.booleans(),
    "double_on": st.sampled_from(["any-two", "9-11", "10-11"]),
    "double_after_split": st.booleans(),
    "resplit_aces": st.booleans(),
    "max_hands": st.integers(1, 5),
    "late_surrender": st.booleans(),
    "blackjack_pays": st.sampled_from(["3:2", "6:5"]),
    "max_payout_per_round": st.sampled_from(["none", 2000, 50000]),
    "wager_unit": st.sampled_from([1, 100]),
    "min_wager": st.just(500),
})


def chaos(rng: random.Random, t: Game) -> Input:
    """A random input that may or may not fit the state."""
    seat = rng.randint(0, 8)
    return rng.choice([
        lambda: Card(rng.randrange(52)),
        lambda: Fault(rng.choice([*FAULT_CODES, "BOGUS"])),
        lambda: FaultCleared(),
        lambda: Hello(),
        lambda: Console(rng.choice(["DEAL", "VOID", "SHUFFLE", "RECALL"])),
        lambda: Decision(seat, rng.randint(0, 3), rng.choice([*ACTIONS, "fly"]),
                         rng.randint(0, 5)),
        lambda: Wager(seat, rng.choice([0, 1, 500, 550, 1000, 10**9])),
        lambda: CreditsOut(seat, rng.choice([1, 10**9])),
        lambda: CreditsIn(seat, rng.choice([0, 100, -5])),
        lambda: CloseBetting(),
        lambda: NewShoe(rng.choice([None, 3, 6])),
        lambda: Draw({"bingo_target": 12}, forced=True),
        lambda: Cut(),
    ])()


def loads_a_shoe(inp: Input) -> bool:
    """``inp`` (accepted) put a freshly shuffled shoe in the table."""
    return isinstance(inp, NewShoe) or (isinstance(inp, Console) and inp.press == "SHUFFLE")


def session(
    seed: int, overrides: dict[str, Any], rounds: int, chaos_rate: float,
    check_refusals: bool = False, check_hole: bool = False, variant: str = "blackjack",
) -> tuple[Game, Recorder]:
    """Random legal play (with chaos) on a full ``variant`` table; the variations' property
    tests (tests/variants) reuse it: RNG draws, 1x-4x doubles and optional wagers too."""
    rng = random.Random(seed)
    rules = load_rules(variant, overrides)
    t = Game(rules, seats=rules.max_seats)
    n = t.nseats
    optional = [w for m in rules.mechanisms for w in m.optional_wagers]
    rec = Recorder(t)
    deck = list(DECKS[rules.deck_kind]) * rules.decks
    order: list[int] = []
    pos = 0
    done = 0
    steps_in_round = 0

    def send(inp: Input) -> bool:
        before = t.private_view() if check_refusals else None
        try:
            rec.apply(inp)
        except Rejected:
            if before is not None:
                assert t.private_view() == before, f"refused {inp!r} changed the state"
            return False
        finally:
            assert sum(s.credits for s in t.seats) + t.at_stake() + t.house == t.funded
            for s in t.seats:  # the meters' stakes and returns by kind are the totals
                assert sum(s.staked_by_kind.values()) == s.staked, inp
                if s.net is not None:
                    assert sum(s.returned_by_kind.values()) == s.returned, inp
            if check_hole:
                pv = t.public_view()
                if len(t.dealer.cards) > 1 and not t.hole_revealed:
                    assert pv["dealer"]["cards"][1] == "??"
                    up = t.dealer.cards[0]
                    assert pv["dealer"]["cards"] == [CODE[up], "??"]
                    assert pv["dealer"]["total"] == (11 if up < 4 else min(up // 4 + 1, 10))
                    assert pv["dealer"]["blackjack"] is None
                    assert "hole_card" not in json.dumps(pv)
                    assert "private" not in pv
        return True

    while done < rounds:
        steps_in_round += 1
        assert steps_in_round < 400, "a round did not end"
        if rng.random() < chaos_rate:
            inp = chaos(rng, t)
            if send(inp) and loads_a_shoe(inp):
                # the table took a fresh shoe the player did not load: follow it, or the
                # order's cards run out while the table asks for the new shoe's burn
                # card, and the loop voids forever (decks 1: a round can deal the last
                # card, then a chaos SHUFFLE lands before the loop's own)
                order = deck[:]
                rng.shuffle(order)
                pos = 0
            continue
        need = t.need
        if need == "new-shoe":
            order = deck[:]
            rng.shuffle(order)
            pos = 0
            send(Console("SHUFFLE") if rng.random() < 0.5 else NewShoe())
        elif need == "card":
            if pos == int(len(order) * 0.75):
                send(Cut())
            if pos >= len(order):
                send(Console("VOID"))
                continue
            if send(Card(order[pos])) or t.phase == "tilt":
                pos += 1
        elif need == "decision":
            e = t.expecting()
            assert e.seat is not None and e.hand is not None
            amount = None
            if "insurance" in e.legal and rng.random() < 0.3:
                amount = rng.randint(1, max(1, insurance_offer(t.seats[e.seat - 1])))
            act = rng.choice(e.legal)
            times = rng.choice(rules.double_times) if act == "double" else 1
            send(Decision(e.seat, e.hand, act, times, amount))
        elif need == "draw":
            e = t.expecting()
            send(Draw({k: rng.choice(v) for k, v in e.draw.items()}, record={"seed": seed}))
        elif need == "console":
            if not send(Console(rng.choice(["DEAL", "DEAL", "VOID"]))):
                send(FaultCleared())
        elif need == "wagers":
            if t.phase in ("settled", "voided"):
                done += 1
                steps_in_round = 0
                if done >= rounds:
                    break
            for s in rng.sample(range(1, n + 1), rng.randint(1, n)):
                if t.seats[s - 1].credits < 200_000:
                    send(CreditsIn(s, 1_000_000))
                send(Wager(s, rng.choice([500, 1000, 1500, 2500, 10_000, 100_000])))
                for name in optional:
                    if rng.random() < 0.3:
                        send(SideWager(s, name, rng.choice([500, 1000])))
            send(CloseBetting() if rng.random() < 0.5 else Console("DEAL"))
        else:  # pragma: no cover - a table never waits for anything else
            raise AssertionError(f"unexpected need {need}")
    return t, rec


#: one deck, a round that dealt the shoe's last card, then a chaos NewShoe before the loop's
#: own: the loop's card order was spent and it voided forever ("a round did not end"). The
#: loop's fault, not the engine's (issue 48: first seen with a 21+3 wager on the shipped
#: game, seed 232181876, whose side wagers moved the random stream onto it; this seed
#: meets it on the shipped game)
ONE_DECK_SHOE_RELOADED = {
    "decks": 1, "dealer_hits_soft_17": False, "double_on": "any-two",
    "double_after_split": False, "resplit_aces": False, "max_hands": 1,
    "late_surrender": False, "blackjack_pays": "3:2", "max_payout_per_round": "none",
    "wager_unit": 1, "min_wager": 500,
}


@PROFILE
@given(seed=st.integers(0, 2**32), overrides=rule_sets)
@example(seed=205, overrides=ONE_DECK_SHOE_RELOADED)
def test_property_conservation_and_every_round_ends(seed: int, overrides: dict[str, Any]) -> None:
    """baseline §1.12 conservation; every round ends (settled or voided)."""
    t, rec = session(seed, overrides, rounds=150, chaos_rate=0.03)
    assert t.round_no >= 100
    assert rec.refused > 0  # chaos inputs were refused along the way


@settings(max_examples=8, derandomize=True, deadline=None)
@given(seed=st.integers(0, 2**32), overrides=rule_sets)
def test_property_refused_input_changes_nothing(seed: int, overrides: dict[str, Any]) -> None:
    session(seed, overrides, rounds=25, chaos_rate=0.25, check_refusals=True)


@settings(max_examples=10, derandomize=True, deadline=None)
@given(seed=st.integers(0, 2**32), overrides=rule_sets)
def test_property_replay_equals_live_play(seed: int, overrides: dict[str, Any]) -> None:
    t, rec = session(seed, overrides, rounds=60, chaos_rate=0.05)
    again = replay(t.rules, rec.inputs, seats=7)
    assert again.private_view() == t.private_view()
    from_json = replay_as_journaled(t, rec.inputs)
    assert from_json.private_view() == t.private_view()


@settings(max_examples=8, derandomize=True, deadline=None)
@given(seed=st.integers(0, 2**32), overrides=rule_sets)
def test_property_public_view_never_shows_unrevealed_hole_card(
    seed: int, overrides: dict[str, Any]
) -> None:
    """baseline §1.4: the hole card never reaches a display before the rules reveal it."""
    session(seed, overrides, rounds=30, chaos_rate=0.05, check_hole=True)


def test_thousands_of_rounds_basic_strategy_conserve_money() -> None:
    from firmware.bench.engine_player import EnginePlayer, strategy_policy
    from firmware.math.strategy.basic import strategy_for

    t = Game(load_rules(), seats=7)
    auto = EnginePlayer(t, seats=range(1, 8), seed=11, insurance=True,
                        policy=strategy_policy(t.rules, strategy_for))
    auto.play(3000)
    assert sum(s.credits for s in t.seats) + t.at_stake() + t.house == t.funded


def _cards_left_to_deal(inputs: list[Input]) -> dict[int, int]:
    """How often each card is dealt by ``inputs`` (all of them: counting past a new shoe
    only makes the choice of a swapped card more careful)."""
    out: dict[int, int] = {}
    for inp in inputs:
        if isinstance(inp, Card):
            out[inp.card] = out.get(inp.card, 0) + 1
    return out


@settings(max_examples=6, derandomize=True, deadline=None)
@given(seed=st.integers(0, 2**32),
       variant=st.sampled_from(["blackjack", "split-to-double", "bingo", "free-bet",
                                "spanish21"]))
def test_property_public_view_does_not_depend_on_the_unrevealed_hole_card(
    seed: int, variant: str
) -> None:
    """baseline §1.4, principle 8: the public view is the same whatever the hole card is,
    until the rules reveal it. Each recorded round is replayed with its hole card swapped
    for another the shoe still holds (neither making a Blackjack with the up card, so the
    dealer's check says the same) and the public views compared after every input."""
    overrides = {"push22": True} if variant == "free-bet" else {}
    t, rec = session(seed, overrides, rounds=25, chaos_rate=0.0, variant=variant)
    live = Game(t.rules, seats=t.nseats)
    twin: Game | None = None
    compared = 0

    def deal(game: Game, inp: Input) -> None:
        with contextlib.suppress(Rejected):
            game.apply(inp)

    for i, inp in enumerate(rec.inputs):
        if isinstance(inp, Card) and live.need == "card" and live.expecting().to == "hole":
            up = VALUE[live.dealer.cards[0]]
            # the swapped card must leave the twin's shoe enough of it for the cards the
            # recording still deals, or the twin tilts on a card it lacks (BADCARD)
            later = _cards_left_to_deal(rec.inputs[i + 1:])
            others = [c for c in range(52) if live.shoe.counts[c] > later.get(c, 0)
                      and VALUE[c] != VALUE[inp.card] and up + VALUE[c] != 11]
            twin = None
            if up + VALUE[inp.card] != 11 and others:
                twin = replay(t.rules, rec.inputs[:i], seats=t.nseats)
                twin.apply(Card(others[0]))
            deal(live, inp)
            continue
        deal(live, inp)
        if twin is not None:
            deal(twin, inp)
            if live.hole_revealed:
                twin = None
                continue
            assert live.public_view() == twin.public_view(), f"input {i}: {inp!r}"
            compared += 1
    assert compared > 20
