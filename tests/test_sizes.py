"""Small modules named for what they hold, small functions: the size limits, measured.

A module of the program holds at most 400 lines and a function at most 80 (its ``def``
line to its last line), outside the compiled Monte Carlo kernel, whose one function is
kept whole so numba compiles it as one loop. Functions still over the limit are listed
in :data:`STILL_TOO_LONG` (modules in :data:`MODULES_STILL_TOO_LONG`) with their size;
the lists may only shrink (an entry that is no
longer too long must be removed, and nothing may grow past its recorded size).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("etgcore", "firmware", "drivers", "rng", "ui", "deploy", "lab", "benchmarks")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
#: the numba kernel: one compiled function by design (docs/math.md)
KERNEL = "firmware/math/simulation/fast_path_kernel.py"

#: "path:function" -> its length when this list was made; to be split, never to grow.
STILL_TOO_LONG: dict[str, int] = {
}
#: module -> its length when this list was made; to be split, never to grow.
MODULES_STILL_TOO_LONG: dict[str, int] = {
}


def program_files() -> Iterator[Path]:
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py"))


def functions(path: Path) -> Iterator[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            yield node.name, node.end_lineno - node.lineno + 1


def test_no_module_over_400_lines() -> None:
    long, seen = [], set()
    for path in program_files():
        rel = path.relative_to(ROOT).as_posix()
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines <= MAX_MODULE_LINES or rel == KERNEL:
            continue
        seen.add(rel)
        if lines > MODULES_STILL_TOO_LONG.get(rel, MAX_MODULE_LINES):
            long.append(f"{rel}: {lines} lines")
    stale = sorted(set(MODULES_STILL_TOO_LONG) - seen)
    assert not long, "modules over 400 lines:\n" + "\n".join(long)
    assert not stale, f"no longer too long, remove from MODULES_STILL_TOO_LONG: {stale}"


def test_no_function_over_80_lines() -> None:
    problems = []
    seen = set()
    for path in program_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel == KERNEL:
            continue
        for name, n in functions(path):
            key = f"{rel}:{name}"
            if n <= MAX_FUNCTION_LINES:
                continue
            seen.add(key)
            allowed = STILL_TOO_LONG.get(key)
            if allowed is None or n > allowed:
                problems.append(f"{key}: {n} lines")
    stale = sorted(set(STILL_TOO_LONG) - seen)
    assert not problems, "functions over 80 lines:\n" + "\n".join(problems)
    assert not stale, f"no longer too long, remove from STILL_TOO_LONG: {stale}"
