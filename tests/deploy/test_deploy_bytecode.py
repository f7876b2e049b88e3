"""A release ships its modules' bytecode, signed, and the table imports it (docs/deploy.md).

The installed launcher runs ``python -I -B``: without bytecode in the release every start
would compile the program. These tests unpack a real bundle and run the interpreter the
launcher's way over it, watching with ``-v`` where each module's code came from.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deploy.bundle import build_bundle, verify_bundle
from deploy.bytecode import cache_path, compile_source
from deploy.manifest import compare_tree
from deploy.unpack import extract

_MODULE = "rng/draw.py"


def _unpacked(mini_source: Path, keys, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    bundle = build_bundle(mini_source, keys.key, tmp_path / "r.etgrel")
    tree, status = extract(verify_bundle(bundle.path, keys.pub).contents, tmp_path / "rel")
    assert status == "created"
    return tree


def _import_verbose(tree: Path) -> tuple[str, str]:
    """Import rng.draw as the installed launcher runs Python: (its stdout, -v's stderr)."""
    done = subprocess.run(
        [sys.executable, "-I", "-B", "-v", "-c",
         "import sys; sys.path.insert(0, '.'); import rng.draw as d; print(d.draw())"],
        cwd=tree, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip(), done.stderr


def test_each_module_ships_its_bytecode_and_the_manifest_covers_it(mini_source, keys,
                                                                   tmp_path) -> None:
    tree = _unpacked(mini_source, keys, tmp_path)
    manifest = verify_bundle(tmp_path / "r.etgrel", keys.pub).manifest
    listed = manifest.by_path()
    pyc = cache_path(_MODULE)
    assert pyc.startswith("rng/__pycache__/draw.") and pyc.endswith(".pyc")
    assert pyc in listed and (tree / pyc).is_file()
    source = (mini_source / _MODULE).read_bytes()
    assert (tree / pyc).read_bytes() == compile_source(_MODULE, source)
    assert compare_tree(manifest, tree) == []  # the bytecode verifies like the sources


def test_the_interpreter_runs_the_shipped_bytecode_without_writing_any(mini_source, keys,
                                                                       tmp_path) -> None:
    tree = _unpacked(mini_source, keys, tmp_path)
    before = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*"))
    out, verbose = _import_verbose(tree)
    assert out == "4"
    assert f"code object from '{tree / cache_path(_MODULE)}'" in verbose, verbose[-2000:]
    assert sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*")) == before


def test_an_edited_module_is_compiled_afresh_never_run_stale(mini_source, keys,
                                                             tmp_path) -> None:
    """Checked-hash bytecode: a source that no longer matches its .pyc is recompiled (and
    the tree no longer verifies, as any edit of an installed file)."""
    tree = _unpacked(mini_source, keys, tmp_path)
    (tree / _MODULE).write_text("def draw() -> int:\n    return 5\n")
    out, verbose = _import_verbose(tree)
    assert out == "5"
    assert f"code object from '{tree / cache_path(_MODULE)}'" not in verbose
    manifest = verify_bundle(tmp_path / "r.etgrel", keys.pub).manifest
    assert [p.path for p in compare_tree(manifest, tree)] == [_MODULE]


def test_altered_bytecode_is_refused_by_the_manifest(mini_source, keys, tmp_path) -> None:
    tree = _unpacked(mini_source, keys, tmp_path)
    pyc = tree / cache_path(_MODULE)
    data = bytearray(pyc.read_bytes())
    data[-2] ^= 0x01
    pyc.write_bytes(bytes(data))
    manifest = verify_bundle(tmp_path / "r.etgrel", keys.pub).manifest
    assert [p.path for p in compare_tree(manifest, tree)] == [cache_path(_MODULE)]
