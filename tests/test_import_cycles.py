"""No file-level import circle anywhere in the program (issue 48).

The architecture test (tests/test_architecture.py) rules which *packages* may import
which; this one rules the *files*: no module imports, directly or through others, a
module that imports it back. A circle means neither file can be read, tested or moved
without the other, and an import order decides whether the program starts.

Every edge counts, as in the architecture test: an import at module level, inside a
function (a lazy import is still an edge) and under ``TYPE_CHECKING`` (a type-only import
is still a dependency a reader must follow: the issue's count of ten circles counted them,
and a Protocol in the lower module names what it reads instead). An edge to a module's
name (``from firmware.engine.round import Round``) is an edge to that file; an edge to a
package (``from firmware.journal import Journal``) is an edge to its ``__init__``. The
engine's own layers are drawn in docs/architecture.md ("Inside the engine: layers").
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import test_architecture as arch

#: circles still drawn, each with the reason it stays: none (issue 48 removed the last
#: ones); an entry here needs a reason a reviewer accepts, and goes when its circle does.
KNOWN: dict[frozenset[str], str] = {}


def import_graph() -> dict[str, set[str]]:
    """module -> the modules of ours it imports (each edge to the file that holds it)."""
    modules = {arch.module_name(p) for p in arch.program_files()}
    graph: dict[str, set[str]] = defaultdict(set)
    for e in arch.all_edges():
        target = e.imported
        while target and target not in modules:  # ``a.b.Name`` -> the module ``a.b``
            target = target.rpartition(".")[0]
        if target and target != e.importer:
            graph[e.importer].add(target)
    for m in modules:
        graph.setdefault(m, set())
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


def _path_through(graph: dict[str, set[str]], comp: list[str]) -> str:
    """One circle inside ``comp``, as ``a -> b -> a``, so the failure says what to cut."""
    members = set(comp)
    start = comp[0]
    trail = [start]
    seen = {start}
    v = start
    while True:
        nxt = sorted(graph[v] & members)
        back = [w for w in nxt if w in seen]
        if back:
            trail.append(back[0])
            break
        v = nxt[0]
        trail.append(v)
        seen.add(v)
    return " -> ".join(trail[trail.index(trail[-1]):])


def test_no_file_level_import_circle() -> None:
    graph = import_graph()
    drawn = [c for c in circles(graph) if frozenset(c) not in KNOWN]
    assert not drawn, "file-level import circles:\n" + "\n".join(
        f"{', '.join(c)}  (e.g. {_path_through(graph, c)})" for c in drawn)


def test_every_known_circle_is_still_drawn() -> None:
    """An entry of KNOWN whose circle is gone must go (it would hide a new one)."""
    now = {frozenset(c) for c in circles(import_graph())}
    assert set(KNOWN) <= now, sorted(sorted(k) for k in set(KNOWN) - now)


# -- the checker itself ------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(arch, "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "KNOWN", {})
    for pkg in ("firmware", "firmware/engine", "drivers"):
        (tmp_path / pkg).mkdir(parents=True, exist_ok=True)
        (tmp_path / pkg / "__init__.py").write_text("")
    return tmp_path


def test_the_checker_sees_a_type_only_and_a_lazy_circle(tree: Path) -> None:
    (tree / "firmware" / "engine" / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from firmware.engine.b import B\n")
    (tree / "firmware" / "engine" / "b.py").write_text(
        "def f():\n"
        "    from firmware.engine import a\n")
    (tree / "drivers" / "x.py").write_text("from drivers import y\n")
    (tree / "drivers" / "y.py").write_text("import drivers.z\n")
    (tree / "drivers" / "z.py").write_text("from drivers.x import THING\n")
    (tree / "drivers" / "leaf.py").write_text("from drivers.x import THING\n")
    found = circles(import_graph())
    assert found == [["drivers.x", "drivers.y", "drivers.z"],
                     ["firmware.engine.a", "firmware.engine.b"]], found
    with pytest.raises(AssertionError, match=re.escape("firmware.engine.a -> firmware.engine.b")):
        test_no_file_level_import_circle()


def test_the_checker_passes_a_layered_tree(tree: Path) -> None:
    (tree / "firmware" / "engine" / "low.py").write_text("X = 1\n")
    (tree / "firmware" / "engine" / "high.py").write_text(
        "from firmware.engine.low import X\n")
    (tree / "firmware" / "engine" / "__init__.py").write_text(
        "from firmware.engine.high import X\n")
    assert circles(import_graph()) == []
