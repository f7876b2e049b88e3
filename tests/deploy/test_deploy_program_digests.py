"""Issue 44 finding 4: the certification report's program hash covers the release.

`etg cert run` names the software it tested by the digests of the program files: they
must be the file set `etg release build` signs (a checkout) or the installed tree the
floor's software check reads (a release), every digest a full SHA-256, and never an
empty set."""

from __future__ import annotations

import hashlib
import types
from pathlib import Path

import pytest

from deploy.bundle import verify_bundle
from deploy.errors import ReleaseInputError
from deploy.program import MANIFEST_NAME, SIGNATURE_NAME, ProgramTreeError, program_digests
from deploy.unpack import extract

REPO = Path(__file__).resolve().parents[2]


def test_finding_4_report_program_files_are_the_release_build_set(real_bundle, keys) -> None:
    """The command line's program files (what `etg cert run` hashes and lists in
    program-files.txt) are exactly the signed manifest of `etg release build` of this
    checkout: same paths, same order, same full SHA-256 digests."""
    from firmware.cli.command_line import _program_files

    files, kind = _program_files()
    manifest = verify_bundle(real_bundle, keys.pub).manifest
    assert files == [(e.path, e.sha256) for e in manifest.files]
    assert len(files) > 300 and "checkout" in kind
    assert all(len(d) == 64 and int(d, 16) >= 0 for _, d in files)
    assert ("firmware/cli/command_line.py",
            hashlib.sha256((REPO / "firmware/cli/command_line.py").read_bytes()).hexdigest()
            ) in files


def test_finding_4_installed_release_digests_are_the_tree_the_floor_checks(
        real_bundle, keys, tmp_path: Path) -> None:
    """On a table (an installed release) the set is every file of the tree but the
    manifest and its signature: the manifest's entries, nothing more; a file added to the
    tree shows in the set (the floor's software check would notice it too)."""
    verified = verify_bundle(real_bundle, keys.pub)
    tree, _ = extract(verified.contents, tmp_path / "releases")
    files, kind = program_digests(tree)
    assert files == [(e.path, e.sha256) for e in verified.manifest.files]
    assert "installed release" in kind
    assert MANIFEST_NAME not in dict(files) and SIGNATURE_NAME not in dict(files)
    (tree / "firmware" / "extra.py").write_text("X = 1\n")
    names = dict(program_digests(tree)[0])
    assert names["firmware/extra.py"] == hashlib.sha256(b"X = 1\n").hexdigest()


def test_finding_4_an_empty_or_foreign_tree_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ProgramTreeError):
        program_digests(tmp_path)
    (tmp_path / MANIFEST_NAME).write_text("{}")
    with pytest.raises(ProgramTreeError, match="no program files"):
        program_digests(tmp_path)


def test_finding_4_cert_run_refuses_to_report_no_software(tmp_path: Path) -> None:
    """A report whose program file set is empty is not written (it would certify
    nothing)."""
    from rng.cert.run_report import run_metadata
    from rng.errors import RngError

    ctx = types.SimpleNamespace(program_files=lambda: ([], "nothing"))
    opts = types.SimpleNamespace(command="etg cert run", out=tmp_path, scaling="table")
    with pytest.raises(RngError, match="empty"):
        run_metadata(types.SimpleNamespace(), opts, ctx, types.SimpleNamespace(), "")  # type: ignore[arg-type]
    assert not (tmp_path / "program-files.txt").exists()
    assert issubclass(ProgramTreeError, ReleaseInputError)  # one line and exit 2 in `etg`
