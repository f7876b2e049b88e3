"""The one dependency table of docs/architecture.md, read from the imports (ast, no
execution), and the same table in the README.

Every import statement counts, at module level, inside a function or under
``TYPE_CHECKING`` (a lazy import is still an edge), and so does
``importlib.import_module("literal")``. Every module of ours falls under exactly one row
(the most specific prefix); a module no row covers is refused too, so a new package must be
placed in the table before it can import anything. A refused edge is reported as
``file:line: importer -> imported (rule)``, so the failure says what to move.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Our top-level packages; any other import is the standard library or a dependency.
OURS = ("etgcore", "firmware", "drivers", "rng", "ui", "deploy", "lab", "benchmarks")

#: package prefix -> what it may import of ours, besides itself (prefixes; "=name" means
#: exactly that module or package, not its modules; "*": anything, the composition root).
#: The most specific prefix applies. docs/architecture.md and the README hold this table.
RULES: dict[str, tuple[str, ...]] = {
    "etgcore": (),
    "firmware.engine": ("etgcore",),
    "firmware.rules": (),
    "firmware.journal": ("etgcore",),
    "firmware.table": ("firmware.engine", "firmware.journal", "drivers", "rng", "ui", "deploy",
                       "etgcore"),
    "firmware.floor": ("firmware.journal", "etgcore"),
    "firmware.bench": ("firmware.table", "firmware.engine", "firmware.journal",
                       "firmware.floor", "drivers", "rng", "ui", "etgcore"),
    "firmware.math": ("firmware.engine", "lab", "etgcore"),
    "firmware.cli": ("*",),
    "=firmware.config": ("*",),
    "=firmware": ("*",),
    "=firmware.__main__": ("*",),
    "drivers": ("etgcore",),
    "rng": ("lab", "etgcore"),
    "ui": ("=firmware.engine", "etgcore"),
    "deploy": ("etgcore",),
    "lab": ("etgcore",),
    "benchmarks": ("*",),
}

#: Edges the rules refuse but the design keeps on purpose, each with its reason.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("drivers.shoe.sim_settings", "rng.shoe"): (
        "the simulated shoe shuffles with the table's certified shuffle, so a seeded bench "
        "run deals the same cards as the RNG's own tests; rng is a leaf (no cycle)"
    ),
}


@dataclass(frozen=True)
class Edge:
    path: Path
    line: int
    importer: str
    imported: str
    names: tuple[str, ...] = ()

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def program_files() -> Iterator[Path]:
    for top in OURS:
        yield from sorted((ROOT / top).rglob("*.py"))


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _resolve(importer: str, is_pkg: bool, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    base = importer.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _is_module(dotted: str) -> bool:
    p = ROOT.joinpath(*dotted.split("."))
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def edges_of(path: Path) -> Iterator[Edge]:
    """Every import of ours in one file; ``from a import b`` of a submodule is ``a.b``."""
    importer = module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Edge(path, node.lineno, importer, alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(importer, _is_package(path), node.module, node.level)
            plain = []
            for alias in node.names:
                if _is_module(f"{base}.{alias.name}"):
                    yield Edge(path, node.lineno, importer, f"{base}.{alias.name}")
                else:
                    plain.append(alias.name)
            if plain:
                yield Edge(path, node.lineno, importer, base, tuple(plain))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield Edge(path, node.lineno, importer, node.args[0].value)


def all_edges() -> list[Edge]:
    return [
        e for path in program_files() for e in edges_of(path)
        if e.imported.split(".")[0] in OURS
    ]


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _covers(prefix: str, module: str) -> bool:
    return module == prefix[1:] if prefix.startswith("=") else _within(module, prefix)


def rule_for(importer: str) -> tuple[str, tuple[str, ...]] | None:
    best = [p for p in RULES if _covers(p, importer)]
    if not best:
        return None
    prefix = max(best, key=lambda p: (p.startswith("="), len(p)))
    return prefix, RULES[prefix]


def allowed(importer: str, imported: str) -> bool:
    rule = rule_for(importer)
    if rule is None:
        return False  # a module no row covers: place its package in the table first
    prefix, targets = rule
    if "*" in targets or _covers(prefix, imported):
        return True
    return any(_covers(t, imported) for t in targets)


def _package_of(module: str, path: Path) -> str:
    return module if _is_package(path) else module.rpartition(".")[0]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reach(edge: Edge) -> str | None:
    """A private module or name taken from outside the package that owns it."""
    mine = _package_of(edge.importer, edge.path)
    parts = edge.imported.split(".")
    for i, part in enumerate(parts):
        if _private(part) and not _within(mine, ".".join(parts[:i])):
            return f"private module {'.'.join(parts[: i + 1])} of another package"
    hidden = [n for n in edge.names if _private(n)]
    if hidden:
        is_pkg = (ROOT.joinpath(*parts) / "__init__.py").is_file()
        owner = edge.imported if is_pkg else edge.imported.rpartition(".")[0]
        if not _within(mine, owner):
            return f"private name {', '.join(hidden)} of another package"
    return None


def refused() -> list[str]:
    out = []
    for e in all_edges():
        if not allowed(e.importer, e.imported) and (e.importer, e.imported) not in EXCEPTIONS:
            rule = rule_for(e.importer)
            if rule is None:
                out.append(f"{e.where()}: {e.importer}: no row of the table covers it")
                continue
            may = ", ".join(rule[1]) or "nothing of ours"
            out.append(f"{e.where()}: {e.importer} -> {e.imported} "
                       f"({rule[0]} may import only itself and {may})")
        why = private_reach(e)
        if why is not None:
            out.append(f"{e.where()}: {e.importer} -> {e.imported}: {why}")
    return out


def test_the_package_rules_hold() -> None:
    problems = refused()
    assert not problems, "edges the architecture refuses:\n" + "\n".join(problems)


def test_no_product_module_imports_the_benchmarks() -> None:
    """`make bench` drives the product from outside; nothing of the product leans on it."""
    problems = [f"{e.where()}: {e.importer} -> {e.imported}" for e in all_edges()
                if _within(e.imported, "benchmarks") and not _within(e.importer, "benchmarks")]
    assert not problems, "product code importing benchmarks:\n" + "\n".join(problems)


def test_every_exception_is_still_an_edge() -> None:
    """A kept exception that no code needs any more must go (it would hide a new edge)."""
    edges = {(e.importer, e.imported) for e in all_edges()}
    assert set(EXCEPTIONS) <= edges, set(EXCEPTIONS) - edges


# -- the checker itself: it must see each kind of edge it claims to refuse --------------


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small program tree of our package names, for the checker to read instead."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    for pkg in ("firmware", "firmware/engine", "firmware/table", "drivers", "ui", "etgcore"):
        (tmp_path / pkg).mkdir(parents=True, exist_ok=True)
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "firmware" / "config.py").write_text("X = 1\n")
    (tmp_path / "firmware" / "engine" / "play.py").write_text("_hidden = 1\n")
    return tmp_path


def test_the_checker_names_file_and_line_of_each_kind_of_edge(tree: Path) -> None:
    (tree / "drivers" / "x.py").write_text(
        "import os\n"
        "def f():\n"
        "    from firmware.config import X\n"       # lazy import: still an edge
        "    import importlib\n"
        "    importlib.import_module('firmware.config')\n"
    )
    (tree / "ui" / "y.py").write_text(
        "from firmware.engine import play\n"         # an engine internal
        "from firmware.engine import Game\n"        # the public package: fine
        "from etgcore import errors\n"
    )
    (tree / "firmware" / "table" / "z.py").write_text(
        "from firmware.engine.play import _hidden\n"  # a sibling's private name
        "from ..engine import play\n"                 # relative, allowed for the table
    )
    problems = refused()
    assert any(p.startswith("drivers/x.py:3: drivers.x -> firmware.config") for p in problems)
    assert any(p.startswith("drivers/x.py:5: drivers.x -> firmware.config") for p in problems)
    assert any(p.startswith("ui/y.py:1: ui.y -> firmware.engine.play") for p in problems)
    assert any(p.startswith("firmware/table/z.py:1:") and "_hidden" in p for p in problems)
    assert len(problems) == 4, problems


# -- one table: the docs and the README say what the test enforces ---------------------

#: modules of the composition root no table row names (the package's own entry points)
ROOT_EXTRAS = {"=firmware": ("*",), "=firmware.__main__": ("*",)}


def _table_rules(markdown: Path) -> dict[str, tuple[str, ...]]:
    """The package table of a Markdown file as RULES: package prefix -> may import."""
    text = markdown.read_text(encoding="utf-8")
    start = text.index("| package | holds | may import (of ours) |")
    rules: dict[str, tuple[str, ...]] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        package, _holds, may = (c.strip() for c in line.strip("|").split("|"))
        if may.startswith("anything"):
            targets: tuple[str, ...] = ("*",)
        elif may.startswith("nothing"):
            targets = ()
        else:
            targets = tuple(sorted(
                ("=" if "public package only" in may.split(f"`{n}`", 1)[1][:40] else "")
                + n.replace("/", ".") for n in re.findall(r"`([^`]+)`", may)))
        for name in re.findall(r"`([^`]+)`", package):
            key = name.removesuffix(".py").replace("/", ".")
            rules["=" + key if name.endswith(".py") else key] = targets
    return rules


def _code_rules() -> dict[str, tuple[str, ...]]:
    return {k: tuple(sorted(v)) for k, v in RULES.items() if k not in ROOT_EXTRAS}


@pytest.mark.parametrize("doc", ["docs/architecture.md", "README.md"])
def test_the_table_in_the_docs_is_the_table_the_test_enforces(doc: str) -> None:
    assert _table_rules(ROOT / doc) == _code_rules()


def test_every_module_of_ours_falls_under_a_row() -> None:
    modules = [module_name(p) for p in program_files()]
    assert modules and all(rule_for(m) is not None for m in modules), [
        m for m in modules if rule_for(m) is None]


def test_the_checker_refuses_the_floor_reaching_the_table_and_the_root(tree: Path) -> None:
    (tree / "firmware" / "floor").mkdir()
    (tree / "firmware" / "floor" / "__init__.py").write_text("")
    (tree / "firmware" / "floor" / "f.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from firmware.table import z\n"          # a type-only import is an edge too
        "from firmware import config\n"               # up into the composition root
    )
    (tree / "firmware" / "table" / "z.py").write_text("")
    problems = refused()
    assert any(p.startswith("firmware/floor/f.py:3: firmware.floor.f -> firmware.table.z")
               for p in problems), problems
    assert any(p.startswith("firmware/floor/f.py:4: firmware.floor.f -> firmware.config")
               for p in problems), problems
