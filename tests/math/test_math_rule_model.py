"""One rule model (issue 48): the math reads the engine's Rules and refuses what it does
not know; every key of every Rules Submission is priced or declared not priced."""

from __future__ import annotations

import importlib
import pkgutil
import tomllib
from typing import Any

import pytest

import firmware.engine.mechanisms as mechanisms_pkg
from firmware.engine.mechanism import MECHANISMS
from firmware.engine.rules import (
    VARIANTS,
    Rules,
    load_rules,
    parse_rules_data,
    read_rules_file,
    rules_path,
)
from firmware.math.par.configurations import AXES
from firmware.math.rule_table import BASE, NotPriced, Priced, UnknownSetting
from firmware.math.ruleset import from_engine, known_keys, not_priced
from firmware.math.wagers import (
    DEALER_22,
    PRICERS,
    RULE_CHANGES,
    Pricer,
    every_entry,
    mechanism_keys,
    not_priced_wagers,
)


def _rules_with(variant: str, **settings: dict[str, Any]) -> Rules:
    """``variant``'s Rules Submission with extra ``[settings]`` declared (a test copy)."""
    data = tomllib.loads(rules_path(variant).read_text(encoding="utf-8"))
    data["settings"].update(settings)
    return Rules(parse_rules_data(data, f"test copy of {variant}"), {}, "")


def _every_mechanism() -> set[str]:
    for m in pkgutil.iter_modules(mechanisms_pkg.__path__):
        if not m.name.startswith("_"):
            importlib.import_module(f"{mechanisms_pkg.__name__}.{m.name}")
    # the shipped mechanisms only: a test elsewhere in the same process may register
    # its own toy ones (tests/engine/test_wager_units.py)
    return {name for name, cls in MECHANISMS.items()
            if cls.__module__.startswith(mechanisms_pkg.__name__ + ".")}


def test_finding_1_a_new_setting_the_math_does_not_know_is_refused() -> None:
    """The issue's reproducer: an ``insurance`` setting added (off) to the Rules
    Submission used to be ignored, and the PAR went on pricing insurance."""
    name = "insurance"
    while name in BASE:  # once the math declares a real ``insurance``, any new name
        name += "_new"
    rules = _rules_with("blackjack", **{name: {"default": False, "doc": "offer insurance"}})
    with pytest.raises(UnknownSetting, match=f"'{name}'"):
        from_engine(rules)


def test_finding_1_a_new_game_key_of_a_mechanism_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A key a mechanism brings is known only through that mechanism's declaration (here
    its wager's PAR hook)."""
    entry = PRICERS[DEALER_22]
    monkeypatch.setitem(PRICERS, DEALER_22, Pricer(
        entry.title, {k: e for k, e in entry.keys.items() if k != "push22_pays"},
        entry.dealer_total))
    with pytest.raises(UnknownSetting, match="'push22_pays'"):
        from_engine(load_rules("free-bet", {}, ""))


def test_a_wager_whose_par_hook_the_math_has_no_calculation_for_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(PRICERS, DEALER_22)
    with pytest.raises(UnknownSetting, match=f"wager 'push22' is priced by PAR hook "
                                             f"'{DEALER_22}'"):
        from_engine(load_rules("free-bet", {}, ""))


def test_a_mechanism_declaring_nothing_the_math_knows_is_refused() -> None:
    """No key and no wager: the math cannot tell what the mechanism changes."""
    from firmware.engine.mechanism import Mechanism

    class Silent(Mechanism):
        name = "test-silent"

    with pytest.raises(UnknownSetting, match="mechanism 'test-silent'"):
        mechanism_keys(Silent)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_key_of_every_rules_file_is_priced_or_declared_not_priced(variant: str) -> None:
    rf = read_rules_file(variant)
    keys = set(rf.game) | set(rf.specs)
    known = known_keys(rf.game["mechanisms"])
    missing = sorted(keys - set(known))
    assert not missing, f"{variant}: keys the math neither prices nor declares: {missing}"
    from_engine(load_rules(variant, {}, ""))  # and the strict reading takes the file


def test_every_mechanism_of_the_engine_is_known_to_the_math_and_no_entry_is_stale() -> None:
    """Each shipped mechanism's declaration resolves (its hooks, its keys); every
    calculation and key group of the math is some shipped mechanism's."""
    classes = [MECHANISMS[n] for n in sorted(_every_mechanism())]
    for cls in classes:
        mechanism_keys(cls)
    hooks = {w.par for cls in classes for w in cls.wagers}
    assert sorted(set(PRICERS) - hooks) == [], "calculations no wager names"
    for group in RULE_CHANGES:
        assert any(set(group) & set(cls.game_keys) for cls in classes), group


def test_the_wagers_the_math_does_not_price() -> None:
    """The list the issue asks for: every wager the math does not price, by name (none
    today); the PAR sheet prints each with its reason."""
    assert not_priced_wagers(sorted(_every_mechanism())) == {}


def test_a_key_is_declared_in_one_place_only() -> None:
    seen: set[str] = set(BASE)
    for k, _ in every_entry():
        assert k not in seen, f"{k} declared twice"
        seen.add(k)


def test_every_read_with_names_a_key_that_reads() -> None:
    """A key priced by another key's reader names a key that has a reader."""
    groups = [BASE, *(p.keys for p in PRICERS.values()), *RULE_CHANGES]
    for entries in groups:
        for k, e in entries.items():
            if (isinstance(e, Priced) and e.read is None and e.conv is None
                    and k != "mechanisms"):
                target = entries.get(e.with_key)
                assert isinstance(target, Priced) and target.read is not None, k


def test_the_par_axes_are_the_declared_axes_in_rank_order() -> None:
    declared = [(e.axis.rank, k) for k, e in [*BASE.items(), *every_entry()]
                if isinstance(e, Priced) and e.axis is not None]
    assert tuple(k for _, k in sorted(declared)) == AXES
    assert AXES == ("decks", "dealer_hits_soft_17", "paytable", "blackjack_pays")
    settings = set().union(*(read_rules_file(v).specs for v in VARIANTS))
    assert set(AXES) <= settings, "an axis is a setting of some Rules Submission"


def test_the_not_priced_keys_have_reasons_and_are_listed_for_the_sheet() -> None:
    rows = not_priced(load_rules("free-bet", {}, ""))
    keys = [k for k, _, _ in rows]
    assert "max_payout_per_round" in keys and "push22" in keys
    assert all(why for _, _, why in rows)
    every = [e for e in [*BASE.values(), *(e for _, e in every_entry())]
             if isinstance(e, NotPriced)]
    assert all(len(e.reason) > 20 for e in every)


def test_finding_1_optional_wagers_are_priced_from_their_table_entry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Push 22 was a per-name branch in the calculations; now they collect every
    dealer-total wager from its calculation: without it, no figure."""
    from firmware.math.ruleset import load
    from firmware.math.wagers import dealer_total_wagers

    rules = load("free-bet")
    got = dealer_total_wagers(rules)
    assert [(w.key, odds) for w, odds in got] == [("push22", rules.push22_pays)]
    w = got[0][0]
    assert w.value(got[0][1], 0.07) == pytest.approx(11 * 0.07 - 0.93)
    entry = PRICERS[DEALER_22]
    monkeypatch.setitem(PRICERS, DEALER_22, Pricer(entry.title, entry.keys))
    assert dealer_total_wagers(rules) == []


def test_finding_1_the_math_reaches_a_wager_through_its_declaration() -> None:
    """A toy mechanism declaring a second dealer-22 wager under its own name: the math
    files its figures under that name, with no math file changed (the hook names the
    calculation, the declaration the wager)."""
    from firmware.engine.mechanism import Mechanism, WagerSpec, register_mechanism
    from firmware.math.games.house_edge import _analyse_removal
    from firmware.math.ruleset import _values, from_values
    from firmware.math.wagers import dealer_total_wagers, wager_titles

    class Toy22(Mechanism):
        name = "test-toy-22"
        wagers = (WagerSpec("toy_dealer_22", "TOY 22", optional=True, par=DEALER_22,
                            doc="test"),)

    register_mechanism(Toy22)
    try:
        values = _values(load_rules("free-bet", {}, ""))
        values["mechanisms"] = [m for m in values["mechanisms"] if m != "push-22"]
        values["mechanisms"].append("test-toy-22")
        rules = from_values(values)
        assert [w.key for w, _ in dealer_total_wagers(rules)] == ["toy_dealer_22"]
        assert set(wager_titles(rules)) == {"toy_dealer_22"}
        assert "toy_dealer_22" in _analyse_removal(rules.with_(decks=1)).optional
    finally:
        MECHANISMS.pop("test-toy-22", None)


def _code_names(source: str) -> set[str]:
    """Identifiers, attributes and string constants of ``source`` (no comments, no
    docstrings): what the code branches on."""
    import ast

    tree = ast.parse(source)
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            out.add(n.value)
    return out


def test_no_calculation_names_an_optional_wager() -> None:
    """The wager's name and odds live in its entry (firmware/math/wagers.py) and the
    GameRules field it sets, nowhere else in the math's code (it was in eight modules)."""
    from pathlib import Path

    import firmware.math

    root = Path(firmware.math.__file__).parent
    named = [p.relative_to(root).as_posix() for p in root.rglob("*.py")
             if p.name not in ("wagers.py", "ruleset.py")
             and any("push22" in n.lower() or "push 22" in n.lower()
                     for n in _code_names(p.read_text(encoding="utf-8")))]
    assert named == []


def test_an_unknown_setting_at_the_command_line_is_one_line_exit_2(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A Rules Submission key the math does not know is bad input of a file: `etg par`
    says so in one line naming the key, exit 2, never a traceback."""
    from firmware.cli import main
    from firmware.math import rule_table

    monkeypatch.delitem(rule_table.BASE, "burn_cards")
    assert main(["par", "--variant", "blackjack", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'burn_cards'" in err and "Traceback" not in err
