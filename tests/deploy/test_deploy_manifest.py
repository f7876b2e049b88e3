"""The installed release against its signed manifest: `etg verify` and the start-up check.

§ 605a.4(c): "An electronic gaming table must have the capacity to allow the Bureau of
Gaming Laboratory Operations to verify all relevant control software for authenticity."
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from deploy.bundle import verify_bundle
from deploy.errors import DeployError, SoftwareAuthenticationError
from deploy.manifest import (
    compare_tree,
    installed_root,
    parse_manifest,
    verify_installed,
)
from deploy.unpack import extract
from etgcore.errors import exit_code
from firmware.table.service.start_record import record_software_check


@pytest.fixture
def installed(mini_bundle, keys, tmp_path) -> Path:
    dest, status = extract(verify_bundle(mini_bundle, keys.pub).contents, tmp_path / "releases")
    assert status == "created"
    return dest


def test_605a4c_installed_release_verifies(installed, keys) -> None:
    release = verify_installed(installed, keys.pub)
    assert release.release_id == installed.name
    assert release.manifest.version == "9.8.7"
    body = release.journal_body()
    assert body["files"] == len(release.manifest.files) and body["key_id"] == release.key_id
    assert (installed / "MANIFEST.json").is_file() and (installed / "MANIFEST.sig").is_file()
    assert (installed / "deploy" / "install.sh").stat().st_mode & 0o111


@pytest.mark.parametrize(
    "damage, kind, path",
    [
        (lambda r: (r / "rng/draw.py").write_text("def draw() -> int:\n    return 5\n"),
         "changed", "rng/draw.py"),
        (lambda r: (r / "rng/draw.py").unlink(), "missing", "rng/draw.py"),
        (lambda r: (r / "rng/extra.py").write_text("x = 1\n"), "unexpected", "rng/extra.py"),
        (lambda r: (r / "rng/__pycache__/draw.cpython-312.pyc").write_bytes(b"x"),
         "unexpected", "rng/__pycache__/draw.cpython-312.pyc"),  # beside the shipped one
        (lambda r: (r / "rng/draw.py").chmod(0o755) or (r / "rng/draw.py").write_bytes(
            (r / "rng/draw.py").read_bytes() + b" "), "changed", "rng/draw.py"),
    ],
    ids=["changed", "missing", "added", "bytecode cache", "one space"],
)
def test_605a4c_any_difference_fails_and_is_named(installed, keys, damage, kind, path) -> None:
    damage(installed)
    with pytest.raises(SoftwareAuthenticationError, match=path) as err:
        verify_installed(installed, keys.pub)
    assert [(p.kind, p.path) for p in err.value.problems] == [(kind, path)]
    assert exit_code(err.value) == 1


def test_altered_manifest_or_signature_fails(installed, keys) -> None:
    manifest = installed / "MANIFEST.json"
    doc = json.loads(manifest.read_text())
    doc["files"] = [f for f in doc["files"] if f["path"] != "rng/draw.py"]
    manifest.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    (installed / "rng" / "draw.py").unlink()  # trees agree, but the manifest is not signed so
    with pytest.raises(SoftwareAuthenticationError, match="not signed by key"):
        verify_installed(installed, keys.pub)


def test_another_key_fails(installed, keys) -> None:
    with pytest.raises(SoftwareAuthenticationError, match="not signed by key"):
        verify_installed(installed, keys.other_pub)


def test_no_manifest_is_a_clear_error(tmp_path, keys) -> None:
    with pytest.raises(SoftwareAuthenticationError, match="not a release installed by"):
        verify_installed(tmp_path, keys.pub)


def test_development_checkout_is_not_an_installed_release(keys) -> None:
    """`etg verify` from a git checkout says so, rather than passing or crashing."""
    assert installed_root() == Path(__file__).resolve().parents[2]
    with pytest.raises(SoftwareAuthenticationError, match=r"MANIFEST\.json is missing"):
        verify_installed(None, keys.pub)


def test_default_pubkey_from_environment(installed, keys, monkeypatch) -> None:
    monkeypatch.setenv("ETG_RELEASE_PUBKEY", str(keys.pub))
    assert verify_installed(installed).release_id == installed.name
    monkeypatch.setenv("ETG_RELEASE_PUBKEY", str(keys.other_pub))
    with pytest.raises(SoftwareAuthenticationError):
        verify_installed(installed)


def test_extract_is_idempotent_and_replaces_an_altered_tree(mini_bundle, keys, installed) -> None:
    contents = verify_bundle(mini_bundle, keys.pub).contents
    assert extract(contents, installed.parent) == (installed, "unchanged")
    (installed / "rng" / "draw.py").write_text("tampered\n")
    assert extract(contents, installed.parent) == (installed, "replaced")
    assert not compare_tree(contents.manifest, installed)
    kept = [p for p in installed.parent.iterdir() if ".altered-" in p.name]
    assert len(kept) == 1 and (kept[0] / "rng" / "draw.py").read_text() == "tampered\n"


def test_manifest_parsing_is_strict(installed) -> None:
    good = json.loads((installed / "MANIFEST.json").read_text())

    def parsed(mutate) -> None:
        doc = json.loads(json.dumps(good))
        mutate(doc)
        parse_manifest(json.dumps(doc).encode())

    with pytest.raises(DeployError, match="not sorted"):
        parsed(lambda d: d["files"].reverse())
    with pytest.raises(DeployError, match="not sorted"):
        parsed(lambda d: d["files"].append(d["files"][-1]))
    with pytest.raises(DeployError, match="unsafe path"):
        parsed(lambda d: d["files"][0].update(path="/etc/passwd"))
    with pytest.raises(DeployError, match="bad sha256"):
        parsed(lambda d: d["files"][0].update(sha256="XYZ"))
    with pytest.raises(DeployError, match="not an etg-release-manifest"):
        parsed(lambda d: d.update(format="something/2"))
    with pytest.raises(DeployError, match="cannot be a program file"):
        parsed(lambda d: d["files"].insert(0, dict(d["files"][0], path="MANIFEST.json")))


def test_start_up_check_is_journaled(installed, keys, tmp_path) -> None:
    """Production start-up runs the manifest check and journals its outcome."""
    from firmware.journal import EventCode, Journal

    journal = Journal(tmp_path / "journal.sqlite")
    try:
        release = record_software_check(journal, installed, keys.pub)
        (installed / "ui" / "evil.py").write_text("x = 1\n")
        with pytest.raises(SoftwareAuthenticationError):
            record_software_check(journal, installed, keys.pub)
        with pytest.raises(DeployError):  # an unreadable key fails the start too
            record_software_check(journal, installed, tmp_path / "missing.pub")
        records = list(journal.records(kinds=["event"]))
        assert [r.code for r in records] == [
            EventCode.SOFTWARE_VERIFIED,
            EventCode.SOFTWARE_VERIFY_FAILED,
            EventCode.SOFTWARE_VERIFY_FAILED,
        ]
        assert records[0].body["manifest_sha256"] == release.manifest_sha256
        assert "ui/evil.py" in records[1].body["problem"]
        assert journal.verify().ok
    finally:
        journal.close()


def test_copy_of_a_release_verifies_anywhere(installed, keys, tmp_path) -> None:
    """The check is about content: a lab may copy the tree off the table and verify it."""
    copy = tmp_path / "copy"
    shutil.copytree(installed, copy)
    assert verify_installed(copy, keys.pub).release_id == installed.name
