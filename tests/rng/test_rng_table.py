"""The table's RNG: power-up, Bingo draws and their record, bench seeds, cycling, close;
and shuffled shoes."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from waiting import wait_for

from etgcore.cards import RANKS, SUITS, deck
from etgcore.errors import ConfigError, UserError
from firmware.config import load_config
from rng import BingoDraw, RngUnavailable, SeedRefused, open_table_rng
from rng.settings import RngSettings
from rng.shoe import shuffled_shoe
from rng.table_rng import TableRng

TARGETS = {v: 1 for v in range(12, 22)}  # § 633b.28(e)(1): 12..21
MULTS = {2: 50, 5: 25, 10: 12, 25: 6, 50: 4, 100: 3}  # § 633b.28(e)(2)


def test_bingo_draw_record_633b28e() -> None:
    """§ 633b.28(e): the RNG selects the target and the multiplier independently; the
    record says what was drawn and how many bits were used and rejected."""
    with open_table_rng(RngSettings(), bench=False) as rng:
        draw = rng.draw_bingo(7, TARGETS, MULTS)
    assert isinstance(draw, BingoDraw)
    assert draw.round == 7 and draw.target in TARGETS and draw.multiplier in MULTS
    rec = draw.to_json()
    assert json.loads(json.dumps(rec)) == rec
    assert rec["round"] == 7 and rec["kind"] == "bingo-draw" and rec["mechanism"] == "ctr-drbg"
    assert rec["target"]["value"] == draw.target
    assert rec["multiplier"]["value"] == draw.multiplier
    for part in ("target", "multiplier"):
        used, rejected = rec[part]["bits_used"], rec[part]["bits_rejected"]
        assert used > rejected >= 0
    assert rec["bits_used"] == rec["target"]["bits_used"] + rec["multiplier"]["bits_used"]
    # 10 equal weights: 4 bits per attempt; the multipliers' total 100: 7 bits per attempt
    assert rec["target"]["bits_used"] % 4 == 0 and rec["multiplier"]["bits_used"] % 7 == 0
    assert set(rec) == {"kind", "round", "draw", "mechanism", "target", "multiplier",
                        "bits_used", "bits_rejected", "target_weights", "multiplier_weights"}


def test_every_mechanism_opens_and_draws() -> None:
    for mech in ("ctr-drbg", "ctr-drbg-no-df", "hmac-drbg"):
        with open_table_rng(RngSettings(mechanism=mech, entropy="os"), bench=True) as rng:
            assert rng.draw_bingo(1, TARGETS, MULTS).record["mechanism"] == mech
            assert 0 <= rng.randbelow(52) < 52
            assert rng.weighted_choice({"a": 0, "b": 1}) == "b"
            items = list(range(20))
            rng.shuffle(items)
            assert sorted(items) == list(range(20))
            assert len(rng.random_bytes(200_000)) == 200_000


def test_bench_seed_reproduces_a_run() -> None:
    """Principle 7: a fixed seed (bench only) makes a lab run reproducible."""
    def run(seed: str) -> list[tuple[int, int]]:
        with open_table_rng(RngSettings(seed_hex=seed), bench=True) as rng:
            assert rng.cycle_hz == 0  # cycling off with a seed, or runs would differ
            return [(d.target, d.multiplier) for d in
                    (rng.draw_bingo(i, TARGETS, MULTS) for i in range(50))]

    assert run("00ff") == run("00ff")
    assert run("00ff") != run("00fe")


def test_production_refuses_a_seed_loudly() -> None:
    """Principle 7: production mode refuses fixed seeds (config and API both)."""
    with pytest.raises(SeedRefused, match="bench power"):
        open_table_rng(RngSettings(seed_hex="00"), bench=False)
    assert issubclass(SeedRefused, RngUnavailable) and issubclass(SeedRefused, UserError)
    with pytest.raises(ConfigError, match=r"rng\.seed_hex"):
        load_config(None, ["table.mode=production", "rng.seed_hex=00"])


def test_background_cycling_advances_the_state_between_draws() -> None:
    """Cycling on runs up cycles as time passes; off runs up none over the same time: the
    twin's three cycles prove the time passed, and a draw (which pays every cycle owed
    first) shows the one with cycling off owes none."""
    with (open_table_rng(RngSettings(cycle_hz=0.0), bench=False) as off,
          open_table_rng(RngSettings(cycle_hz=1000.0), bench=False) as on):
        wait_for("three background cycles", lambda: on.status()["cycles"] >= 3)
        off.draw_bingo(1, TARGETS, MULTS)
        assert off.status()["cycles"] == 0


def test_close_zeroizes_and_the_rng_is_then_unavailable() -> None:
    rng = open_table_rng(RngSettings(), bench=False)
    drbg = rng._drbg
    rng.close()
    assert drbg.state_is_zero() and not drbg.alive
    with pytest.raises(RngUnavailable, match="closed"):
        rng.draw_bingo(1, TARGETS, MULTS)
    rng.close()  # closing twice is harmless


def test_status_and_errors_reveal_no_state() -> None:
    with open_table_rng(RngSettings(seed_hex="abcd"), bench=True) as rng:
        status = json.dumps(rng.status())
        key, v = bytes(rng._drbg._key).hex(), bytes(rng._drbg._v).hex()  # type: ignore[attr-defined]
        rec = json.dumps(rng.draw_bingo(1, TARGETS, MULTS).to_json())
    for text in (status, rec):
        assert key[:16] not in text and v[:16] not in text


def test_bad_weights_are_refused() -> None:
    with open_table_rng(RngSettings(), bench=True) as rng:
        with pytest.raises(ValueError, match="positive total"):
            rng.draw_bingo(1, {12: 0}, MULTS)
        assert rng.randbelow(3) in (0, 1, 2)  # a refused request does not kill the RNG


# -- shoes -----------------------------------------------------------------------------------


def test_card_codes_and_decks() -> None:
    assert RANKS == "A23456789TJQK" and SUITS == "SHDC"
    d = deck()
    assert len(d) == 52 and d[0] == "AS" and d[-1] == "KC" and "TD" in d
    s = deck(spanish=True)  # § 635a: Spanish decks have no ten-spots
    assert len(s) == 48 and not any(c.startswith("T") for c in s) and "KD" in s


@pytest.mark.parametrize("decks,spanish", [(1, False), (6, False), (8, False), (6, True)])
def test_shuffled_shoe_holds_every_card_decks_times(decks: int, spanish: bool) -> None:
    shoe = shuffled_shoe(decks, spanish=spanish)
    assert Counter(shoe) == Counter(deck(spanish=spanish) * decks)
    assert shoe != deck(spanish=spanish) * decks


def test_seeded_shoes_are_reproducible() -> None:
    assert shuffled_shoe(8, seed=b"bench") == shuffled_shoe(8, seed=b"bench")
    assert shuffled_shoe(8, seed=b"bench") != shuffled_shoe(8, seed=b"bench2")
    assert shuffled_shoe(1) != shuffled_shoe(1)  # fresh entropy each time (1 in 52! equal)
    with pytest.raises(ValueError):
        shuffled_shoe(0)


def _cycled(seed: str, at: float) -> TableRng:
    """A seeded DRBG cycled at 100 Hz, on a clock that reads ``at`` s after its start."""
    base = open_table_rng(RngSettings(seed_hex=seed), bench=True)
    rng = TableRng(base._drbg, "seeded", cycle_hz=100.0)
    rng._clock = lambda: 1000.0 + at
    rng._cycle_epoch = 1000.0
    return rng


def test_a_draw_first_pays_every_cycle_the_clock_owes() -> None:
    """floor(t * cycle_hz) cycles precede a draw at t, whether or not the thread ran."""
    rng = _cycled("42", 0.257)
    rng.randbelow(52)
    assert rng.status()["cycles"] == 25
    rng.close()


def test_the_draw_depends_on_its_moment_to_one_cycle() -> None:
    """Same seed, same draws: the same outcome at the same moment, another 10 ms later."""
    def outcome(at: float) -> bytes:
        rng = _cycled("5eed", at)
        try:
            return rng.random_bytes(16)
        finally:
            rng.close()

    assert outcome(3.004) == outcome(3.006)  # the same cycle: the same state
    assert outcome(3.004) != outcome(3.014)  # one more cycle owed: another state
