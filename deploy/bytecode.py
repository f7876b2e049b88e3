"""The bytecode a release ships beside its sources, so a table never compiles at start.

WHY: the installed table runs with ``python -I -B`` (no bytecode may be written into the
authenticated tree), so without bytecode in the release every start compiles the whole
program from source: about a third of the start to ready on the 2-core test machine
(docs/deploy.md). The release build compiles each module once and the signed manifest
lists the ``.pyc`` files like any other program file, so ``etg verify`` and every
production start authenticate them too; ``-B`` stops writing bytecode, not reading it.

Each file is a *checked-hash* pyc (PEP 552): it carries the SipHash of the source it was
compiled from, and the interpreter uses it only while that source is unchanged (an
edited module on a bench install is compiled afresh, never run stale). No time stamps
go in, so the same sources give the same bytes: builds stay reproducible. The files are
for the build's Python (``sys.implementation.cache_tag``, e.g. ``cpython-311``); another
interpreter ignores them and compiles from source as before.

Standard library only, like :mod:`deploy.program`.
"""

from __future__ import annotations

import importlib.util
import marshal
import sys

#: PEP 552 flags: hash-based (bit 0) and checked against the source at import (bit 1).
_CHECKED_HASH = 0b11


def cache_path(source_path: str) -> str:
    """Where the interpreter looks for the bytecode of ``source_path`` (a release path):
    ``pkg/mod.py`` -> ``pkg/__pycache__/mod.cpython-311.pyc``."""
    head, _, name = source_path.rpartition("/")
    stem = name[: -len(".py")]
    tag = sys.implementation.cache_tag
    cached = f"__pycache__/{stem}.{tag}.pyc"
    return f"{head}/{cached}" if head else cached


def compile_source(source_path: str, data: bytes) -> bytes:
    """The checked-hash pyc of ``data``, the module at release path ``source_path``.

    Compiled as the interpreter would import it (no optimisation, no inherited future
    flags); the code's file name is the release path, which the import system replaces
    with the installed file's own path when it loads the module."""
    code = compile(data, source_path, "exec", dont_inherit=True, optimize=0)
    header = importlib.util.MAGIC_NUMBER + _CHECKED_HASH.to_bytes(4, "little")
    return header + importlib.util.source_hash(data) + marshal.dumps(code)


def bytecode_for(files: list[tuple[str, bytes, bool]]) -> list[tuple[str, bytes, bool]]:
    """(path, bytes, executable) of the bytecode of every ``.py`` among ``files``."""
    if sys.implementation.cache_tag is None:  # an interpreter that caches no bytecode
        return []
    return [(cache_path(path), compile_source(path, data), False)
            for path, data, _x in files if path.endswith(".py")]
