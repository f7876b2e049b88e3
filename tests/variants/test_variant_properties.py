"""Property tests per variation (hypothesis): random legal play with chaos inputs.

The play loop is the engine tests' own ``session`` (tests/engine/test_engine_properties.py):
money is conserved after every input (credits + stakes on the table + house = credits in
minus out, baseline §1.12), every round ends, an input the table refuses changes nothing,
the hole card never shows early, and replaying the recorded inputs equals live play.
Here it runs on every variation with rule settings drawn from what each one allows.
"""

from __future__ import annotations

from typing import Any

from engine_helpers import replay_as_journaled
from hypothesis import given, settings
from hypothesis import strategies as st
from variant_helpers import conserved, session

from firmware.engine.replay import replay

RULES: dict[str, Any] = {
    "split-to-double": st.fixed_dictionaries({
        "decks": st.sampled_from([6, 8]), "paytable": st.sampled_from([1, 2, 3]),
        "max_hands": st.integers(1, 5), "max_payout_per_round": st.sampled_from(["none", 2000]),
    }),
    "bingo": st.fixed_dictionaries({
        "multiplier_on_double": st.booleans(), "late_surrender": st.booleans(),
        "wager_unit": st.sampled_from([5, 100]),
        "multiplier_weights": st.sampled_from([{"2": 1, "100": 1}, {"100": 1}]),
    }),
    "free-bet": st.fixed_dictionaries({
        "decks": st.sampled_from([6, 8]), "push22": st.booleans(),
        "free_double_on": st.sampled_from([[9, 10, 11], [10, 11], []]),
        "push22_pays": st.sampled_from(["11:1", "10:1"]),
    }),
    "spanish21": st.fixed_dictionaries({
        "decks": st.sampled_from([6, 8]), "dealer_hits_soft_17": st.booleans(),
        "envy_bonus": st.booleans(), "max_payout_per_round": st.sampled_from(["none", 50_000]),
    }),
}
variants = st.sampled_from(sorted(RULES))


def rules_for(variant: str) -> Any:
    return RULES[variant]


@settings(max_examples=40, derandomize=True, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32), variant=variants)
def test_variant_property_conservation_and_every_round_ends(
    data: st.DataObject, seed: int, variant: str
) -> None:
    """baseline §1.12 conservation on every variation; every round ends."""
    overrides = data.draw(rules_for(variant))
    t, _ = session(seed, overrides, rounds=300, chaos_rate=0.03, variant=variant)
    assert t.round_no >= 200 and conserved(t)


@settings(max_examples=16, derandomize=True, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32), variant=variants)
def test_variant_property_replay_equals_live_play(
    data: st.DataObject, seed: int, variant: str
) -> None:
    """Replaying the recorded inputs (draws included) reproduces the table exactly."""
    overrides = data.draw(rules_for(variant))
    t, rec = session(seed, overrides, rounds=60, chaos_rate=0.05, variant=variant)
    again = replay(t.rules, rec.inputs, seats=t.nseats)
    assert again.private_view() == t.private_view()
    from_json = replay_as_journaled(t, rec.inputs)
    assert from_json.private_view() == t.private_view()


@settings(max_examples=8, derandomize=True, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32), variant=variants)
def test_variant_property_refusals_change_nothing_and_hole_card_hidden(
    data: st.DataObject, seed: int, variant: str
) -> None:
    """A refused input leaves the state unchanged; the hole card never shows early."""
    overrides = data.draw(rules_for(variant))
    session(seed, overrides, rounds=20, chaos_rate=0.2, check_refusals=True, check_hole=True,
            variant=variant)


def test_variant_property_every_variant_is_exercised() -> None:
    """Each variation plays many rounds with its own features in use (doubles 1x-4x, lammers,
    draws, rescues), money conserved throughout."""
    seen: dict[str, set[str]] = {}
    for variant, overrides in (("split-to-double", {}), ("bingo", {}),
                               ("free-bet", {"push22": True}), ("spanish21", {})):
        t, rec = session(7, overrides, rounds=150, chaos_rate=0.0, variant=variant)
        assert conserved(t)
        kinds = seen.setdefault(variant, set())
        for inp in rec.inputs:
            d = inp.to_json()
            if d["type"] == "decision":
                kinds.add(d["action"] + (f"x{d['times']}" if d["action"] == "double" else ""))
            kinds.add(d["type"])
    assert {"doublex4", "split", "surrender"} <= seen["split-to-double"]
    assert "draw" in seen["bingo"]
    assert {"split", "doublex1", "side-wager"} <= seen["free-bet"]
    assert "rescue" in seen["spanish21"]
