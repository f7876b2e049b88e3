"""What "the program" is: the files a release carries and an installed table runs.

A release is the source tree of the firmware's packages plus the few top-level files the
project needs (``pyproject.toml``, ``README.md``, the example ``table.toml``). The table
runs that tree directly (the installer puts it on ``sys.path``), so the files a lab
authenticates are byte for byte the files Python imports: nothing is rebuilt on the way.

Standard library only: the installer runs this module with the Pi's system Python,
before the virtual environment (and ``cryptography``) exists.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from deploy.errors import ReleaseInputError

#: Packages whose every file is program (tests, docs and tooling are not).
PROGRAM_PACKAGES: tuple[str, ...] = ("etgcore", "firmware", "drivers", "ui", "rng", "deploy", "lab")
#: Top-level files that belong to a release when present (pyproject.toml is required).
PROGRAM_TOP_FILES: tuple[str, ...] = ("pyproject.toml", "README.md", "table.toml", "LICENSE")
#: Names a release build leaves out: interpreter caches and editor droppings are not program.
_SKIP_DIRS = frozenset({"__pycache__"})
_SKIP_SUFFIXES = (".pyc", ".pyo", "~", ".swp", ".orig", ".rej")

#: Files at the top of an installed release that describe it rather than belong to it.
MANIFEST_NAME = "MANIFEST.json"
SIGNATURE_NAME = "MANIFEST.sig"
METADATA_NAMES = frozenset({MANIFEST_NAME, SIGNATURE_NAME})

_CHUNK = 1 << 16


class ProgramTreeError(ReleaseInputError):
    """A program tree that cannot be a release (a symlink, an odd name, a missing file)."""


def check_relpath(path: str) -> str:
    """Return ``path`` if it is a safe, canonical relative release path, else raise.

    Paths travel inside bundles made by someone else, so this is the guard against
    ``../`` escapes, absolute names, and names the seeded HMAC's line framing could
    confuse (a newline inside a name).
    """
    if not path or path.startswith("/") or "\\" in path:
        raise ProgramTreeError(f"unsafe path {path!r}")
    if any(ord(ch) < 0x20 or ch == "\x7f" for ch in path):
        raise ProgramTreeError(f"control character in path {path!r}")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ProgramTreeError(f"unsafe path {path!r}")
    return path


def _skipped(name: str) -> bool:
    return name.startswith(".") or name.endswith(_SKIP_SUFFIXES)


def release_files(source: Path) -> list[str]:
    """The program files of a source checkout, sorted: what ``etg release build`` packs."""
    source = Path(source)
    if not (source / "pyproject.toml").is_file():
        raise ProgramTreeError(f"{source}: no pyproject.toml here (not the project root)")
    found: list[str] = [name for name in PROGRAM_TOP_FILES if (source / name).is_file()]
    for package in PROGRAM_PACKAGES:
        top = source / package
        if not (top / "__init__.py").is_file():
            raise ProgramTreeError(f"{source}: package {package}/ is missing its __init__.py")
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not _skipped(d))
            for name in filenames:
                if _skipped(name):
                    continue
                full = Path(dirpath) / name
                if full.is_symlink() or not full.is_file():
                    raise ProgramTreeError(f"{full}: not a regular file (releases hold no links)")
                found.append(check_relpath(full.relative_to(source).as_posix()))
    return sorted(found, key=lambda p: p.encode("utf-8"))


def tree_files(root: Path) -> list[str]:
    """Every file under an installed (or unpacked) release, except its manifest and signature.

    Nothing is skipped: a stray ``.pyc`` or an extra module is exactly what authentication
    must notice. Sorted by UTF-8 bytes, the order the seeded HMAC defines.
    """
    root = Path(root)
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in dirnames:
            if (Path(dirpath) / name).is_symlink():
                raise ProgramTreeError(f"{Path(dirpath) / name}: a symbolic link in the release")
        for name in filenames:
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if rel in METADATA_NAMES:
                continue
            if full.is_symlink() or not full.is_file():
                raise ProgramTreeError(f"{full}: not a regular file")
            found.append(check_relpath(rel))
    return sorted(found, key=lambda p: p.encode("utf-8"))


def sha256_file(path: Path) -> tuple[str, int]:
    """SHA-256 (hex) and size of one file, read in chunks."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def release_contents(source: Path) -> list[tuple[str, bytes, bool]]:
    """(path, bytes, executable) of every file ``etg release build`` packs from the
    checkout ``source``: the program files and their bytecode, in release order. The one
    definition of a release's file set (the build signs a manifest of exactly these)."""
    from deploy.bytecode import bytecode_for

    source = Path(source)
    files = [(p, (source / p).read_bytes(), is_executable(source / p))
             for p in release_files(source)]
    try:
        files += bytecode_for(files)
    except (SyntaxError, ValueError) as exc:  # a module that cannot be imported anyway
        raise ProgramTreeError(f"{source}: a program module does not compile: {exc}") from None
    files.sort(key=lambda f: f[0].encode("utf-8"))
    return files


def program_digests(root: Path) -> tuple[list[tuple[str, str]], str]:
    """(relative path, full SHA-256) of every file of the release at ``root``, in release
    order, and what the set is.

    An installed release (its signed manifest beside it): every file of the tree, the
    set the floor's seeded software check (:mod:`deploy.seeded_hmac`) and ``etg verify``
    read. A checkout: the files ``etg release build`` would pack from it (sources and
    their bytecode, :func:`release_contents`), so the digests equal that build's
    manifest. Fails closed: a tree that is neither (or an empty set) raises
    :class:`ProgramTreeError`, never a list of nothing."""
    root = Path(root)
    if (root / MANIFEST_NAME).is_file():
        names = tree_files(root)
        out = [(name, sha256_file(root / name)[0]) for name in names]
        kind = "installed release: every file of the tree, as the floor's software check reads it"
    else:
        out = [(name, hashlib.sha256(data).hexdigest()) for name, data, _x in
               release_contents(root)]
        kind = ("checkout: the file set `etg release build` packs from it (sources and their "
                "bytecode)")
    if not out:
        raise ProgramTreeError(f"{root}: no program files (not a release or a checkout)")
    return out, kind


def read_chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            yield chunk


def is_executable(path: Path) -> bool:
    return bool(path.stat().st_mode & 0o111)
