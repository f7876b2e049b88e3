"""Issue 44's PAR sheet findings, each held against a figure computed here without the
project's code (an independent dealer recursion) or against the certified figure."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest

from firmware.math.par.figures import par_figures
from firmware.math.ruleset import load


def dealer_22_full_shoe(decks: int, hits_soft_17: bool) -> Fraction:
    """P(the dealer's hand ends on exactly 22), the dealer dealt from a full shoe.

    Written for this test alone: a plain recursion over the shoe's composition. Over every
    round the dealer's cards are a uniformly random sequence of the shoe's cards whatever
    the player drew before them (the player's cards end at a stopping time of the
    shuffled shoe), so averaged over rounds the dealer's law is the law of a dealer dealt
    from the full shoe; a dealer Blackjack is no 22."""
    full = tuple([4 * decks] * 9 + [16 * decks])

    @cache
    def finish(counts: tuple[int, ...], total: int, soft: bool) -> Fraction:
        best = total + 10 if soft and total + 10 <= 21 else total
        if best > 21:
            return Fraction(int(total == 22))
        if best >= 17 and not (hits_soft_17 and best == 17 and soft and total + 10 == 17):
            return Fraction(0)
        n = sum(counts)
        out = Fraction(0)
        for v in range(1, 11):
            c = counts[v - 1]
            if c:
                rest = (*counts[:v - 1], c - 1, *counts[v:])
                out += Fraction(c, n) * finish(rest, total + v, soft or v == 1)
        return out

    n = sum(full)
    out = Fraction(0)
    for up in range(1, 11):
        c1 = full[up - 1]
        after_up = (*full[:up - 1], c1 - 1, *full[up:])
        for hole in range(1, 11):
            c2 = after_up[hole - 1]
            if not c2 or {up, hole} == {1, 10}:
                continue
            rest = (*after_up[:hole - 1], c2 - 1, *after_up[hole:])
            out += Fraction(c1, n) * Fraction(c2, n - 1) * finish(rest, up + hole,
                                                                 up == 1 or hole == 1)
    return out


@pytest.mark.parametrize("decks", [6, 8])
def test_finding_1_free_bet_push22_counts_player_blackjack_rounds(decks: int) -> None:
    """The Push 22 lines count the rounds where the player has a Blackjack (the engine
    deals the dealer's hand out whenever the wager is on): their total is the certified
    Push 22 figure, and P(dealer 22) is an independent recursion's."""
    rules = load("free-bet", {"decks": decks, "push22": True})
    fig = par_figures(rules, split_rounds=2_000)
    lines = [x for x in fig.lines if x.wager == "push22"]
    p22 = next(x.probability for x in lines if x.label.startswith("Dealer 22"))
    ref = float(dealer_22_full_shoe(decks, rules.dealer_hits_soft_17))
    assert p22 == pytest.approx(ref, abs=1e-12)
    total = sum(x.contribution for x in lines)
    assert total == pytest.approx(fig.analysis.optional["push22"], abs=1e-9)
    assert total == pytest.approx(12 * ref - 1, abs=1e-9)
    assert fig.sd_by_wager["push22"] == pytest.approx(12 * (ref * (1 - ref)) ** 0.5, abs=1e-12)
    if decks == 6:  # the figures: -0.1289114 and s.d. 3.1137 (exactly 3.11356)
        assert total == pytest.approx(-0.1289114, abs=1e-7)
        assert fig.sd_by_wager["push22"] == pytest.approx(3.1137, abs=2e-4)


def test_finding_7_rtp_prints_the_house_edge_once_beside_the_certified_figure(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`etg rtp` prints the house edge once, labelled, and the certified figure beside it
    with how many standard errors apart; a game of one wager prints no second line of
    the same figure with the opposite sign."""
    from firmware.cli import main
    from firmware.math.games.house_edge import analyse

    assert main(["rtp", "--variant", "blackjack", "--rounds", "3000", "--fast", "--seed", "1",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    cert = analyse(load("blackjack")).house_edge
    assert f"certified    {cert:+.5%}" in out and "standard errors" in out
    assert not any(x.strip().startswith("blackjack ") for x in out.splitlines())
    assert main(["rtp", "--variant", "free-bet", "--set", "push22=true", "--rounds", "3000",
                 "--fast", "--seed", "1", "--no-progress", "--json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    fb = analyse(load("free-bet", {"push22": True}))
    assert doc["certified"]["house_edge"] == pytest.approx(fb.house_edge)
    assert abs(doc["certified"]["standard_errors_apart"]) < 5


def test_finding_7_the_par_sheet_prints_every_digest_in_full() -> None:
    """The sheet's Rules Submission, math sources and rules digests are full SHA-256
    (a 16-hex-digit prefix was labelled SHA-256 on bc5b817)."""
    import hashlib
    import re

    from firmware.engine.rules import rules_path
    from firmware.math.par.sheet import document_control
    from firmware.math.strategy.chart import chart

    ctl = document_control("free-bet", 1.0)
    full = hashlib.sha256(rules_path("free-bet").read_bytes()).hexdigest()
    assert ctl["rules_submission"].endswith(f"SHA-256 {full}")
    assert re.search(r"sources SHA-256 [0-9a-f]{64}$", ctl["software"])
    rules = load("free-bet")
    assert len(rules.rules_sha256) == 64 and rules.rules_hash == rules.rules_sha256[:16]
    assert f"rules SHA-256 {rules.rules_sha256}" in chart(rules).title
