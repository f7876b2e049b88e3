"""`etg rtp` through the certified engine gives, for a fixed seed, the figures main gave
before the engine was made faster (issue 49): every sum of the tally to the last bit.

The pins were taken from bc5b817's engine, and Free Bet's also from issue 45's branch
(its new rules change that game's figures by design); ``python
tests/math/test_math_rtp_pinned.py [variant ...]`` prints them again. A change of a game's
rules (not of its speed) changes its rules hash: pin the new figures in the same commit.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import pytest

from firmware.math.ruleset import load
from firmware.math.simulation.rtp import run_rtp

ROUNDS = 2500  # two tasks (one full chunk and a remainder): the task seeding is pinned too
SEED = 0x49

#: (variant, the first 12 digits of its rules_hash) -> the tally: rounds, the sums as
#: ``float.hex``, each wager's sum, a digest of the outcome counts
PINS: dict[tuple[str, str], dict[str, Any]] = {
    ('bingo', '4aa630776333'): {
        'rounds': 2500,
        'total': '0x1.89fffffffffb2p+6',
        'total_sq': '0x1.0592b33333327p+15',
        'staked': '0x1.7700000000003p+11',
        'wagers': {'activator': '-0x1.f3fffffffff16p+8', 'blackjack': '0x1.2b40000000000p+9'},
        'outcomes': 'ed90a8b6b404d8f2',
    },
    ('blackjack', 'ca00f575be04'): {
        'rounds': 2500,
        'total': '0x1.7200000000000p+6',
        'total_sq': '0x1.9658000000000p+11',
        'staked': '0x1.3880000000000p+11',
        'wagers': {'blackjack': '0x1.7200000000000p+6'},
        'outcomes': '2ca6ae74d85657ad',
    },
    ('free-bet', '5bbc581a1ad6'): {
        'rounds': 2500,
        'total': '0x1.ec00000000000p+5',
        'total_sq': '0x1.62d8000000000p+11',
        'staked': '0x1.3880000000000p+11',
        'wagers': {'blackjack': '0x1.ec00000000000p+5'},
        'outcomes': '7d26143dccfc4997',
    },
    ('spanish21', 'a025e62244b3'): {
        'rounds': 2500,
        'total': '-0x1.cc00000000000p+6',
        'total_sq': '0x1.a280000000000p+11',
        'staked': '0x1.3880000000000p+11',
        'wagers': {'blackjack': '-0x1.cc00000000000p+6'},
        'outcomes': '0982dbcfe5a4cc47',
    },
    ('split-to-double', '79f19a41ac28'): {
        'rounds': 2500,
        'total': '0x1.1000000000000p+6',
        'total_sq': '0x1.542c000000000p+15',
        'staked': '0x1.3880000000000p+12',
        'wagers': {'blackjack': '0x1.aa00000000000p+9',
                   'blackjack_or_bust': '-0x1.8800000000000p+9'},
        'outcomes': '1ee79f46da711033',
    },
    # Free Bet under issue 45's rules (§ 672a.10(d): split aces take every decision)
    ('free-bet', '8ddde5691934'): {
        'rounds': 2500,
        'total': '0x1.fc00000000000p+5',
        'total_sq': '0x1.62d8000000000p+11',
        'staked': '0x1.3880000000000p+11',
        'wagers': {'blackjack': '0x1.fc00000000000p+5'},
        'outcomes': 'bda4fedcf6caf4db',
    },
}


def figures(variant: str, rounds: int = ROUNDS, seed: int = SEED) -> dict[str, Any]:
    """A run's tally, exactly: floats as ``float.hex``, the outcome counts as a digest."""
    t = run_rtp(load(variant), rounds, jobs=1, seed=seed, show=False).tally
    outcomes = json.dumps(sorted(t.outcomes.items())).encode()
    return {
        "rounds": t.rounds,
        "total": t.total.hex(),
        "total_sq": t.total_sq.hex(),
        "staked": t.staked.hex(),
        "wagers": {k: v.hex() for k, v in sorted(t.wagers.items())},
        "outcomes": hashlib.sha256(outcomes).hexdigest()[:16],
    }


@pytest.mark.parametrize("variant", sorted({v for v, _ in PINS}))
def test_rtp_figures_for_a_fixed_seed_are_main_s_bit_for_bit(variant: str) -> None:
    """Pinned per rule set: a game whose rules changed (issue 45's Free Bet) has the
    figures its new rules gave before the speed work; rules pinned nowhere fail here."""
    key = (variant, load(variant).rules_hash[:12])
    assert key in PINS, f"{variant}: rules {key[1]} have no pinned figures (regenerate)"
    assert figures(variant) == PINS[key]


if __name__ == "__main__":
    out = {v: figures(v) for v in sys.argv[1:] or
           ("blackjack", "split-to-double", "bingo", "free-bet", "spanish21")}
    print(json.dumps(out, indent=4, sort_keys=True))
