"""One error tree rooted in the core (docs/architecture.md, "Errors"): every error class of
ours derives from ``etgcore.errors.EtgError`` through its package's one base, and the
command line maps kinds to exit codes in one place (``etgcore.errors.EXIT_CODES``).

Read from the source (``ast``): nothing is imported to find the classes."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

from etgcore.errors import (
    EXIT_CODES,
    CheckFailed,
    ConfigError,
    EtgError,
    Unavailable,
    UserError,
    exit_code,
)

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("etgcore", "firmware", "drivers", "rng", "ui", "deploy", "lab")
BUILTIN_ERRORS = {n for n in dir(builtins)
                  if isinstance(getattr(builtins, n), type)
                  and issubclass(getattr(builtins, n), BaseException)}

#: package -> its one base (the most specific prefix applies); etgcore holds the root
BASES = {
    "etgcore": "EtgError",
    "firmware.engine": "EngineError",
    "firmware.journal": "JournalError",
    "firmware.table": "TableError",
    "firmware.floor": "FloorError",
    "firmware.bench": "BenchError",
    "firmware.math": "MathError",
    "drivers": "DeviceError",
    "rng": "RngError",
    "ui": "UiError",
    "deploy": "DeployError",
    "lab": "LabError",
}


def _classes() -> dict[str, tuple[str, list[str]]]:
    """class name -> (module, base names as written)."""
    found: dict[str, tuple[str, list[str]]] = {}
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    bases = [b.id if isinstance(b, ast.Name) else
                             b.attr if isinstance(b, ast.Attribute) else "?"
                             for b in node.bases]
                    found[f"{module}:{node.name}"] = (module, bases)
    return found


def _ancestry(name: str, by_name: dict[str, list[str]], seen: set[str]) -> set[str]:
    out = set()
    for base in by_name.get(name, []):
        if base not in seen:
            seen.add(base)
            out |= {base} | _ancestry(base, by_name, seen)
    return out


def _errors() -> list[tuple[str, str, set[str], list[str]]]:
    classes = _classes()
    by_name: dict[str, list[str]] = {}
    for key, (_module, bases) in classes.items():
        by_name.setdefault(key.split(":")[1], []).extend(bases)
    out = []
    for key, (module, bases) in classes.items():
        name = key.split(":")[1]
        ancestry = _ancestry(name, by_name, set())
        if ancestry & BUILTIN_ERRORS:
            out.append((module, name, ancestry, bases))
    return out


def _base_for(module: str) -> str:
    prefix = max((p for p in BASES if module == p or module.startswith(p + ".")), key=len)
    return BASES[prefix]


def test_every_error_descends_from_its_package_base_and_the_root() -> None:
    errors = _errors()
    assert len(errors) > 30  # the scan sees them (a broken scan would pass vacuously)
    problems = []
    for module, name, ancestry, bases in errors:
        if name == "EtgError":
            continue
        base = _base_for(module)
        if "EtgError" not in ancestry:
            problems.append(f"{module}.{name}: not under EtgError (bases {bases})")
        elif name != base and base not in ancestry and module != "etgcore.errors":
            problems.append(f"{module}.{name}: not under its package's base {base}")
    assert not problems, "\n".join(problems)


def test_each_package_base_is_defined_once_in_its_errors_module() -> None:
    classes = _classes()
    for package, base in BASES.items():
        where = [k for k in classes if k.endswith(f":{base}")]
        assert where == [f"{package}.errors:{base}"], (base, where)


@pytest.mark.parametrize("exc, code", [
    (ConfigError("table.toml", "table.seats", "must be between 1 and 7"), 2),
    (UserError("bad"), 2),
    (CheckFailed("chain broken"), 1),
    (Unavailable("no worker"), 3),
    (EtgError("anything else"), 1),
])
def test_the_kinds_map_to_exit_codes(exc: EtgError, code: int) -> None:
    assert exit_code(exc) == code


def test_package_errors_take_their_kinds_exit_code() -> None:
    from deploy.errors import AuthenticityError, ReleaseInputError
    from firmware.journal.errors import JournalError, JournalRefused
    from lab.tasks import ClusterStalled

    assert exit_code(JournalError("tampered")) == 1  # an integrity failure
    assert exit_code(JournalRefused("will not start")) == 2  # and bad input
    assert exit_code(AuthenticityError("not signed")) == 1
    assert exit_code(ReleaseInputError("no such file")) == 2
    assert exit_code(ClusterStalled("no worker")) == 3
    assert [k for k, _ in EXIT_CODES][-1] is EtgError  # the catch-all comes last
