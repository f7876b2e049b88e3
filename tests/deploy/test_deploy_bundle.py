"""Signed release bundles: build, verify, and refuse every kind of tampering.

§ 605a.4(c): the table must let the Bureau verify its control software for authenticity;
the bundle is how authentic software reaches the table.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from deploy import signing
from deploy.bundle import build_bundle, seal, verify_bundle, verify_bytes, write_zip
from deploy.bytecode import cache_path
from deploy.errors import BundleRefused
from deploy.manifest import MANIFEST_DOMAIN, FileEntry, Manifest
from deploy.program import release_files
from deploy.unpack import COMMENT_LEN, SIG_PREFIX


def flip(data: bytes, index: int, mask: int = 0x01) -> bytes:
    return data[:index] + bytes([data[index] ^ mask]) + data[index + 1 :]


def test_build_and_verify_lists_every_program_file(mini_source, mini_bundle, keys) -> None:
    verified = verify_bundle(mini_bundle, keys.pub)
    paths = [f.path for f in verified.manifest.files]
    sources = [p for p in paths if "/__pycache__/" not in p]
    assert sources == release_files(mini_source)
    assert "firmware/rules/blackjack.toml" in paths and "ui/données.py" in paths
    assert "pyproject.toml" in paths and "README.md" in paths
    # hidden files, tests and the checkout's own caches are not program; the bytecode the
    # build compiled is, one file for each module and nothing else
    assert not any(p.startswith("tests/") or ".hidden" in p for p in paths)
    assert sorted(set(paths) - set(sources)) == sorted(
        cache_path(p) for p in sources if p.endswith(".py"))
    assert "firmware/__pycache__/x.cpython-311.pyc" not in paths
    for entry in verified.manifest.files:
        if entry.path not in sources:
            continue
        data = (mini_source / entry.path).read_bytes()
        assert entry.sha256 == hashlib.sha256(data).hexdigest()  # independent recomputation
        assert entry.size == len(data)
        assert verified.contents.files[entry.path] == data
    assert verified.manifest.by_path()["deploy/install.sh"].executable
    assert not verified.manifest.by_path()["rng/draw.py"].executable
    assert verified.manifest.version == "9.8.7"
    assert verified.key_id == signing.key_id(signing.load_public_key(keys.pub))


def test_real_checkout_bundle_holds_the_program(real_bundle, keys) -> None:
    verified = verify_bundle(real_bundle, keys.pub)
    paths = set(verified.contents.files)
    for must in ("pyproject.toml", "firmware/cli/command_line.py", "deploy/install.sh",
                 "deploy/etg.service", "deploy/99-etg-shoe.rules", "deploy/unpack.py",
                 "rng/__init__.py"):
        assert must in paths
    assert not any(p.startswith(("tests/", ".venv/", ".git/")) for p in paths)


def test_builds_are_reproducible(mini_source, keys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    a = build_bundle(mini_source, keys.key, tmp_path / "a.etgrel")
    b = build_bundle(mini_source, keys.key, tmp_path / "b.etgrel")
    assert a.path.read_bytes() == b.path.read_bytes()
    assert a.manifest.built_at == "2023-11-14T22:13:20Z"


def test_the_bundle_is_a_plain_zip_with_the_signature_in_its_comment(mini_bundle) -> None:
    data = mini_bundle.read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = zf.namelist()
        assert names[:2] == ["MANIFEST.json", "MANIFEST.sig"]
        assert all(n.startswith("program/") for n in names[2:])
        assert zf.comment.startswith(SIG_PREFIX) and len(zf.comment) == COMMENT_LEN
        assert zf.testzip() is None


def test_every_single_byte_altered_is_refused(mini_bundle, keys) -> None:
    """Flip one bit in each byte of the bundle in turn: every variant is refused."""
    data = mini_bundle.read_bytes()
    public = signing.load_public_key(keys.pub)
    verify_bytes(data, public)  # the original passes
    accepted = []
    for i in range(len(data)):
        try:
            verify_bytes(flip(data, i), public)
            accepted.append(i)
        except BundleRefused:
            pass
    assert accepted == [], f"altered bundles accepted at offsets {accepted[:10]}"


def _regions(data: bytes) -> dict[str, int]:
    """An offset inside each part of the archive."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        cd_start = zf.start_dir

    def payload(name: str) -> int:
        info = infos[name]
        header = info.header_offset
        name_len = int.from_bytes(data[header + 26 : header + 28], "little")
        extra_len = int.from_bytes(data[header + 28 : header + 30], "little")
        return header + 30 + name_len + extra_len + 1

    return {
        "manifest": payload("MANIFEST.json"),
        "manifest signature": payload("MANIFEST.sig"),
        "a program file": payload("program/rng/draw.py"),
        "a local header": infos["program/rng/draw.py"].header_offset + 10,  # its mod time
        "central directory": cd_start + 12,
        "end record": len(data) - COMMENT_LEN - 10,
        "bundle signature": len(data) - 5,
        "signature prefix": len(data) - COMMENT_LEN + 2,
    }


@pytest.mark.parametrize(
    "region",
    ["manifest", "manifest signature", "a program file", "a local header", "central directory",
     "end record", "bundle signature", "signature prefix"],
)
def test_altered_region_is_refused(mini_bundle, keys, region) -> None:
    data = mini_bundle.read_bytes()
    tampered = flip(data, _regions(data)[region], 0x20)
    with pytest.raises(BundleRefused):
        verify_bytes(tampered, signing.load_public_key(keys.pub))


@pytest.mark.parametrize(
    "change",
    ["append one byte", "append a zip", "prepend", "truncate one", "cut the middle", "empty"],
)
def test_added_or_removed_bytes_are_refused(mini_bundle, keys, change) -> None:
    data = mini_bundle.read_bytes()
    tampered = {
        "append one byte": data + b"\0",
        "append a zip": data + data,
        "prepend": b"PK" + data,
        "truncate one": data[:-1],
        "cut the middle": data[: len(data) // 2] + data[len(data) // 2 + 7 :],
        "empty": b"",
    }[change]
    with pytest.raises(BundleRefused):
        verify_bytes(tampered, signing.load_public_key(keys.pub))


def test_signed_by_another_key_is_refused(mini_source, keys, tmp_path) -> None:
    forged = build_bundle(mini_source, keys.other_key, tmp_path / "forged.etgrel")
    with pytest.raises(BundleRefused, match="another key"):
        verify_bundle(forged.path, keys.pub)


def test_unsigned_bundles_are_refused(mini_bundle, keys) -> None:
    data = mini_bundle.read_bytes()
    public = signing.load_public_key(keys.pub)
    placeholder = data[:-COMMENT_LEN] + SIG_PREFIX + b"=" * (COMMENT_LEN - len(SIG_PREFIX))
    with pytest.raises(BundleRefused):
        verify_bytes(placeholder, public)
    # the same members re-zipped with no signature at all
    plain = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(plain, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
    with pytest.raises(BundleRefused, match="not signed"):
        verify_bytes(plain.getvalue(), public)
    with pytest.raises(BundleRefused, match="not an ETG release bundle"):
        verify_bytes(b"hello, this is not a zip at all" * 10, public)


def _members(data: bytes) -> tuple[bytes, bytes, list[tuple[str, bytes, bool]]]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        files = [
            (i.filename.removeprefix("program/"), zf.read(i), bool((i.external_attr >> 16) & 0o111))
            for i in zf.infolist()
            if i.filename.startswith("program/")
        ]
        return zf.read("MANIFEST.json"), zf.read("MANIFEST.sig"), files


def _resealed(data: bytes, keys, mutate) -> bytes:
    """A bad *build*: members changed, then sealed with the right key."""
    manifest, sig, files = _members(data)
    manifest, sig, files = mutate(manifest, sig, files)
    return seal(write_zip(manifest, sig, files), signing.load_private_key(keys.key))


@pytest.mark.parametrize(
    "name, mutate, message",
    [
        ("added file", lambda m, s, f: (m, s, [*f, ("rng/extra.py", b"x = 1\n", False)]),
         "does not list"),
        ("removed file", lambda m, s, f: (m, s, [e for e in f if e[0] != "rng/draw.py"]),
         "lacks"),
        ("changed file",
         lambda m, s, f: (m, s, [(p, d + b"#" if p == "rng/draw.py" else d, x) for p, d, x in f]),
         "differs"),
        ("manifest edited", lambda m, s, f: (m.replace(b"9.8.7", b"9.8.8"), s, f),
         "MANIFEST.sig"),
        ("manifest unsigned", lambda m, s, f: (m, b"", f), "MANIFEST.sig"),
    ],
)
def test_outer_signature_alone_is_not_enough(mini_bundle, keys, name, mutate, message) -> None:
    """Even sealed by the right key, members must agree with the signed manifest."""
    tampered = _resealed(mini_bundle.read_bytes(), keys, mutate)
    with pytest.raises(BundleRefused, match=message):
        verify_bytes(tampered, signing.load_public_key(keys.pub))


def test_added_member_without_the_key_is_refused(mini_bundle, keys) -> None:
    data = mini_bundle.read_bytes()
    buf = io.BytesIO(data)
    with zipfile.ZipFile(buf, "a") as zf:
        zf.writestr("program/rng/backdoor.py", "import os\n")
    with pytest.raises(BundleRefused):
        verify_bytes(buf.getvalue(), signing.load_public_key(keys.pub))


def test_manifest_paths_cannot_escape(keys) -> None:
    private = signing.load_private_key(keys.key)
    public = private.public_key()
    content = b"evil\n"
    manifest = Manifest(
        name="etg-firmware", version="1", key_id=signing.key_id(public),
        files=(FileEntry("../evil.py", hashlib.sha256(content).hexdigest(), len(content)),),
    ).to_bytes()
    sig = signing.sign(private, MANIFEST_DOMAIN, manifest)
    data = seal(write_zip(manifest, sig, [("../evil.py", content, False)]), private)
    with pytest.raises(BundleRefused, match="unsafe path"):
        verify_bytes(data, public)


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_duplicate_members_are_refused(mini_bundle, keys) -> None:
    manifest, sig, files = _members(mini_bundle.read_bytes())
    data = seal(write_zip(manifest, sig, [*files, files[0]]), signing.load_private_key(keys.key))
    with pytest.raises(BundleRefused, match="twice"):
        verify_bytes(data, signing.load_public_key(keys.pub))


def test_manifest_signature_checks_with_openssl(mini_bundle, keys, tmp_path) -> None:
    """The documented lab procedure: openssl alone verifies the manifest signature."""
    if subprocess.run(["openssl", "version"], capture_output=True).returncode != 0:
        pytest.skip("openssl is not installed")
    manifest, sig, _ = _members(mini_bundle.read_bytes())
    (tmp_path / "msg").write_bytes(b"etg-release-manifest/1\n" + manifest)
    (tmp_path / "sig").write_bytes(sig)
    cmd = ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", str(keys.pub), "-rawin",
           "-in", str(tmp_path / "msg"), "-sigfile", str(tmp_path / "sig")]
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    doc = json.loads(manifest)
    doc["version"] = "6.6.6"
    (tmp_path / "msg").write_bytes(b"etg-release-manifest/1\n" + json.dumps(doc).encode())
    assert subprocess.run(cmd, capture_output=True).returncode != 0


def test_build_refuses_a_tree_with_a_symlink(mini_source, keys, tmp_path) -> None:
    import shutil

    src = tmp_path / "src"
    shutil.copytree(mini_source, src)
    (src / "rng" / "link.py").symlink_to(src / "rng" / "draw.py")
    with pytest.raises(Exception, match="not a regular file"):
        build_bundle(src, keys.key, tmp_path / "x.etgrel")


def test_build_needs_the_project_root(keys, tmp_path: Path) -> None:
    with pytest.raises(Exception, match=r"pyproject\.toml"):
        build_bundle(tmp_path, keys.key, tmp_path / "x.etgrel")
