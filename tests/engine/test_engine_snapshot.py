"""The engine's snapshot (issue 34: the journal's checkpoints): a game restored from its
snapshot is the game, and goes on exactly as the live one through recorded play of every
variant, chaos inputs included; no field of the engine is left out."""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest
from test_engine_properties import session

from firmware.engine import Game, Rejected
from firmware.engine.snapshot import SnapshotError, covered, restore, snapshot

VARIANTS = ("blackjack", "split-to-double", "bingo", "free-bet", "spanish21")


def test_every_field_of_every_engine_class_is_written_or_wiring() -> None:
    for name, (slots, written) in covered().items():
        assert slots == written, (name, sorted(slots ^ written))


def _through_json(snap: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(snap, sort_keys=True))
    return out


def _feed(game: Game, inp: Any) -> None:
    with contextlib.suppress(Rejected):
        game.apply(inp)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_restored_game_goes_on_exactly_as_the_live_one(variant: str) -> None:
    """Forks restored (through JSON) at random instants of a recorded session take the
    rest of its inputs; each ends with the live game's snapshot and private view."""
    overrides = {"push22": True} if variant == "free-bet" else {}
    live, rec = session(3, overrides, rounds=25, chaos_rate=0.08, variant=variant)
    rng = random.Random(variant)
    cuts = set(rng.sample(range(len(rec.inputs)), 24))
    replayed = Game(live.rules, seats=live.nseats)
    forks: list[Game] = []
    for i, inp in enumerate(rec.inputs):
        if i in cuts:
            snap = _through_json(snapshot(replayed))
            fork = restore(Game(live.rules, seats=live.nseats), snap)
            assert _through_json(snapshot(fork)) == snap
            assert fork.private_view() == replayed.private_view()
            assert fork.public_view() == replayed.public_view()
            forks.append(fork)
        for g in (replayed, *forks):
            _feed(g, inp)
    want = _through_json(snapshot(live))
    assert _through_json(snapshot(replayed)) == want
    for fork in forks:
        assert _through_json(snapshot(fork)) == want
        assert fork.private_view() == live.private_view()


def test_a_snapshot_of_another_shape_is_refused() -> None:
    g, _ = session(1, {}, rounds=2, chaos_rate=0.0)
    snap = snapshot(g)
    with pytest.raises(SnapshotError, match="seats"):
        restore(Game(g.rules, seats=g.nseats - 1), snap)
    with pytest.raises(SnapshotError, match="format"):
        restore(Game(g.rules, seats=g.nseats), {**snap, "v": 99})
