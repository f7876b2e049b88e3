"""The layout of firmware/math (issue 48): grouped by job, no file-level import circle."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MATH = ROOT / "firmware" / "math"

#: the modules kept at the top of the package: the rule model and the types every
#: subpackage shares; everything else lives in a subpackage named for its job
TOP = {"__init__", "cache", "composition", "errors", "paytable", "progress", "rule_table",
       "ruleset", "wagers"}
SUBPACKAGES = {"dealer", "hands", "strategy", "games", "par", "simulation"}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the firmware.math modules it imports (at the top or inside a function:
    a deferred import is still a dependency a reader has to follow)."""
    mods = {_module(p): p for p in MATH.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    deps.add(full if full in mods else node.module)
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names}
        graph[name] = {d for d in deps if d in mods and d != name
                       and not name.startswith(d + ".") and d != "firmware.math"}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_file_level_import_circle_in_the_math() -> None:
    """math/cdstrategy.py <-> strategy.py was one (and dealer <-> dealerlaw,
    removal_chart <-> strategy_table): none is left."""
    assert cycles(import_graph()) == []


def test_the_check_sees_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_modules_live_in_a_subpackage_named_for_their_job() -> None:
    top = {p.stem for p in MATH.glob("*.py")}
    assert top == TOP, f"flat modules outside the subpackages: {sorted(top - TOP)}"
    packages = {p.parent.name for p in MATH.glob("*/__init__.py")}
    assert packages == SUBPACKAGES
    for p in MATH.rglob("__init__.py"):
        assert ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))), (
            f"{p.relative_to(ROOT)}: say what the subpackage holds")
