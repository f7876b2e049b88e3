"""A wager is one unit (issue 48, finding 2): its mechanism declares it once
(:class:`~firmware.engine.mechanism.WagerSpec`) and every layer collects from the
declarations; no other file holds a list of wager names.

The findings: the core's view listed every mechanism's result key, ``ui/geometry.py``'s
``SIDE_KINDS`` gave a wager missing from it no betting spot, ``ui/layout_data.py`` named
every area, ``firmware/bench/scenario.py``'s ``SIDE_WAGER_KEYS`` listed the scenario keys,
and the panel placed the first optional wager only.
"""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import pytest
from engine_helpers import START, toy_rules

from firmware.engine import CreditsIn, Game, Mechanism, RoundView, WagerSpec, layout_for
from firmware.engine import register_mechanism as register
from firmware.engine.hand import Seat
from firmware.engine.inputs import ACTIONS
from firmware.engine.ledger import Ledger
from firmware.engine.mechanism import MECHANISMS, build_mechanisms, every_mechanism, every_wager

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ("etgcore", "firmware", "drivers", "ui", "rng", "deploy", "lab", "benchmarks")
#: The math's tables of Rules Submission keys (``{key: Priced(...) | NotPriced(...)}``)
#: name settings, and a setting may share its word with a wager (Free Bet's ``push22``
#: setting offers the Push 22 wager; Bingo's ``[game] activator`` is the activator's
#: part): such a dict key is the setting's word, and only there.
ENTRY_TYPES = {"Priced", "NotPriced", "Priced.same"}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return ast.unparse(node.func)
    return ""


def _setting_keys(tree: ast.AST) -> set[int]:
    """The keys of dict displays whose value declares a Rules Submission key's pricing."""
    return {id(k) for node in ast.walk(tree) if isinstance(node, ast.Dict)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None and _call_name(v) in ENTRY_TYPES}


def named_wagers(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """Each string literal of ``path`` (docstrings and the math's setting tables' keys
    aside) that is one of ``names``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree) | _setting_keys(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value in names and id(node) not in skip]


def _home(cls: type[Mechanism]) -> Path:
    return Path(cls.__module__.replace(".", "/") + ".py")


def shipped() -> dict[str, type[Mechanism]]:
    return {n: c for n, c in every_mechanism().items()
            if c.__module__.startswith("firmware.engine.mechanisms.")}


def test_finding_2_no_wager_is_named_outside_its_own_unit() -> None:
    """Every wager and mechanism name as a string literal in the program: only in the
    module that declares it (its rules file entry, tests and docs are not program). A
    mechanism named like a decision (Spanish 21's ``rescue``) is the decision's word."""
    home: dict[str, Path] = {}
    for name, cls in shipped().items():
        if name not in ACTIONS:
            home[name] = _home(cls)
        for w in cls.wagers:
            home[w.name] = _home(cls)
    assert {"push22", "blackjack_or_bust", "activator", "push-22"} <= set(home)
    found = []
    for top in PROGRAM:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT)
            found += [f"{rel}:{line}: {name!r} (declared in {home[name]})"
                      for line, name in named_wagers(path, set(home)) if home[name] != rel]
    assert not found, "wagers named outside their unit:\n" + "\n".join(found)


def test_the_checker_finds_a_list_of_wager_names(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text('"""push22 in a docstring is prose."""\nSIDE = ("blackjack_or_bust", "push22")\n')
    assert named_wagers(f, {"push22", "blackjack_or_bust"}) == [
        (2, "blackjack_or_bust"), (2, "push22")]


def test_the_checker_reads_a_setting_table_key_as_the_setting(tmp_path: Path) -> None:
    """A setting named like a wager, as a key of the math's table of settings, is the
    setting; the same word as a wager's key of a figure, or in a list, is a wager."""
    f = tmp_path / "x.py"
    f.write_text('KEYS = {"push22": NotPriced("offered"), "push22_pays": Priced.same(int)}\n'
                 'W = {"push22": 1.0}\nNAMES = ["push22"]\nwagers["push22"] = 0\n')
    assert named_wagers(f, {"push22"}) == [(2, "push22"), (3, "push22"), (4, "push22")]


def test_every_shipped_wager_declares_what_each_layer_needs() -> None:
    wagers = every_wager()
    for cls in shipped().values():
        assert set(cls.wager_names) <= {w.name for w in cls.wagers}, cls
        for w in cls.wagers:
            assert w.name.isidentifier() and w.name == w.name.lower(), w
            assert w.label and w.label == w.label.upper(), w
            assert w.doc.strip(), f"{w.name}: its docs row"
            assert wagers[w.name] is w


#: the wagers the math does not price yet (``WagerSpec.par`` None): the PAR sheet says so
UNPRICED: set[str] = set()


def test_the_wagers_the_math_does_not_price_are_listed() -> None:
    assert {w.name for c in shipped().values() for w in c.wagers if w.par is None} == UNPRICED


def test_a_wager_placed_without_its_declaration_is_refused() -> None:
    class Undeclared(Mechanism):
        name = "test-undeclared"
        wager_names = ("stray",)

    with pytest.raises(TypeError, match="without declaring"):
        build_mechanisms(["test-undeclared"], toy_rules(), "test") if register(
            Undeclared) else None
    MECHANISMS.pop("test-undeclared", None)


def test_a_wager_name_declared_twice_is_refused() -> None:
    class Twice(Mechanism):
        name = "test-twice"
        wagers = (WagerSpec("push22", "AGAIN"),)

    register(Twice)
    try:
        with pytest.raises(TypeError, match="declared by two mechanisms"):
            every_wager()
    finally:
        MECHANISMS.pop("test-twice", None)


# -- several optional wagers on one table: the engine, the layout, the panel -------------


class _Side(Mechanism):
    """A toy optional wager that wins 1 to 1 when the dealer busts."""

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        for w in self.optional_wagers:
            stake = seat.side.get(w, 0)
            if stake and view.dealer.total > 21:
                ledger.win(w, stake, Fraction(1))


@register
class SideA(_Side):
    name = "test-side-a"
    wagers = (WagerSpec("side_a", "SIDE A", optional=True, doc="a toy"),)


@register
class SideB(_Side):
    name = "test-side-b"
    wagers = (WagerSpec("side_b", "SIDE B", optional=True, doc="a toy"),)


def two_sides() -> Game:
    t = Game(toy_rules(mechanisms=["test-side-a", "test-side-b"]), seats=2,
             shoe_in_play=True)
    for s in (1, 2):
        t.apply(CreditsIn(s, START))
    return t


def test_finding_2_two_optional_wagers_reach_the_layout_with_their_labels() -> None:
    lay = layout_for(two_sides().rules)
    assert lay["betting_areas"] == ["blackjack", "insurance", "side_a", "side_b"]
    assert {w["name"]: (w["label"], w["optional"]) for w in lay["wagers"]} == {
        "blackjack": ("BLACKJACK", False), "insurance": ("INSURANCE", False),
        "side_a": ("SIDE A", True), "side_b": ("SIDE B", True)}


def test_finding_2_the_panel_places_each_of_two_optional_wagers_on_one_seat() -> None:
    """INSURANCE during betting: the least staked optional wager the engine would take,
    so two presses place both (before: the first optional wager only)."""
    from firmware.table.devices import translate
    from firmware.table.devices.device_reports import optional_wager

    t = two_sides()
    t.apply(translate.press_input("BET", 1, t.public_view()))  # type: ignore[arg-type]
    opt = optional_wager(t)
    assert opt is not None and opt[0] == ("side_a", "side_b")
    placed = []
    for _ in range(3):
        view = t.public_view()
        assert "INSURANCE" in translate.lamps_for(view, t.wager_refusal, opt)[1]
        inp = translate.press_input("INSURANCE", 1, view, optional=opt)
        assert inp is not None and not isinstance(inp, str)
        t.apply(inp)
        placed.append(dict(t.seats[0].side))
    assert placed == [{"side_a": 500}, {"side_a": 500, "side_b": 500},
                      {"side_a": 600, "side_b": 500}]


def test_finding_2_a_bench_scenario_takes_every_declared_optional_wager() -> None:
    from firmware.bench.scenario import side_wager_keys

    keys = side_wager_keys()
    assert {"push22", "side_a", "side_b"} <= set(keys)
    assert set(keys) == {n for n, w in every_wager().items() if w.optional}


def wager_rows() -> list[str]:
    """docs/rules.md §8 as the declarations make it, one row per shipped wager."""
    rows = []
    for name, cls in sorted(shipped().items()):
        for w in cls.wagers:
            placed = "by the player" if w.optional else "with every wager"
            rows.append(f"| `{w.name}` | {w.label} | {placed} | `{name}` | {w.doc} |")
    return sorted(rows)


def test_the_docs_list_every_wager_as_its_unit_declares_it() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text[text.index("## §8 The wagers beside the Blackjack wager"):]
    listed = sorted(line for line in section.splitlines() if line.startswith("| `"))
    assert listed == wager_rows(), "docs/rules.md §8 must read:\n" + "\n".join(wager_rows())
