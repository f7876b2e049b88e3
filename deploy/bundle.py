"""Signed release bundles: build one from a source checkout, verify one before trusting it.

The layout is described in :mod:`deploy.unpack`. Two signatures, one key:

- the *bundle signature* (ZIP comment) covers every byte of the archive before it, so
  the bundle is refused if anything at all was changed on its way to the table;
- the *manifest signature* (``MANIFEST.sig``) covers the manifest alone and travels with
  it into the installed release, where ``etg verify`` and every production start check
  the program files against it.

Beside each module goes its bytecode (:mod:`deploy.bytecode`), listed and signed like
the sources, so an installed table does not compile its program at every start.

Builds are reproducible: members are sorted, time-stamped 1980-01-01 and Ed25519 is
deterministic, so the same tree, ``SOURCE_DATE_EPOCH`` and key give the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import subprocess
import time
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from deploy import signing
from deploy.errors import BundleRefused, ReleaseInputError
from deploy.manifest import MANIFEST_DOMAIN, FileEntry, Manifest, release_id
from deploy.program import (
    MANIFEST_NAME,
    SIGNATURE_NAME,
    ProgramTreeError,
    release_contents,
    release_files,
)
from deploy.unpack import (
    BUNDLE_DOMAIN,
    COMMENT_LEN,
    MAX_BUNDLE_BYTES,
    PROGRAM_DIR,
    SIG_PREFIX,
    BundleContents,
    read_contents,
    split_sealed,
)

_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class BuiltBundle:
    path: Path
    manifest: Manifest
    manifest_sha256: str
    release_id: str
    key_id: str
    size: int


@dataclass(frozen=True)
class VerifiedBundle:
    contents: BundleContents
    manifest_sha256: str
    key_id: str

    @property
    def manifest(self) -> Manifest:
        return self.contents.manifest

    @property
    def release_id(self) -> str:
        return self.contents.release_id


def _project(source: Path) -> tuple[str, str]:
    try:
        meta = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        return str(meta["name"]), str(meta["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError) as exc:
        raise ReleaseInputError(
            f"{source}/pyproject.toml: no [project] name and version ({exc})"
        ) from None


def _git_state(source: Path, paths: list[str]) -> dict[str, Any] | None:
    """The commit a release was built from, and whether program files had local changes."""
    try:
        head = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(source), "status", "--porcelain", "--untracked-files=all", "--",
             *sorted({p.split("/")[0] for p in paths})],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {"git_commit": head, "git_dirty": bool(status.strip())}


def _built_at() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    seconds = int(epoch) if epoch and epoch.isdigit() else int(time.time())
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def write_zip(
    manifest_bytes: bytes, manifest_sig: bytes, files: list[tuple[str, bytes, bool]]
) -> bytes:
    """The archive with a placeholder signature comment of the final length."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        members = [(MANIFEST_NAME, manifest_bytes, False), (SIGNATURE_NAME, manifest_sig, False)]
        members += [(PROGRAM_DIR + path, data, x) for path, data, x in files]
        for name, data, executable in members:
            info = zipfile.ZipInfo(name, date_time=_ZIP_EPOCH)
            info.create_system = 3  # unix, so the mode bits below mean what they say
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data, compresslevel=9)
        zf.comment = SIG_PREFIX + b"=" * (COMMENT_LEN - len(SIG_PREFIX))
    return buf.getvalue()


def seal(archive: bytes, private: Ed25519PrivateKey) -> bytes:
    """Replace the placeholder comment with the signature of every byte before it."""
    body = archive[:-COMMENT_LEN]
    signature = signing.sign(private, BUNDLE_DOMAIN, body)
    return body + SIG_PREFIX + base64.b64encode(signature)


def build_bundle(source: str | Path, key: str | Path, out: str | Path) -> BuiltBundle:
    """Pack the program files of ``source``; sign manifest and bundle with ``key``; write it."""
    source, out = Path(source), Path(out)
    private = signing.load_private_key(key)
    public = private.public_key()
    try:
        files = release_contents(source)
        paths = release_files(source)
    except ProgramTreeError as exc:
        raise ReleaseInputError(str(exc)) from None
    name, version = _project(source)
    entries: list[FileEntry] = []
    for path, data, executable in files:
        entries.append(FileEntry(path, hashlib.sha256(data).hexdigest(), len(data), executable))
    manifest = Manifest(
        name=name,
        version=version,
        key_id=signing.key_id(public),
        files=tuple(entries),
        built_at=_built_at(),
        source=_git_state(source, paths),
    )
    manifest_bytes = manifest.to_bytes()
    manifest_sig = signing.sign(private, MANIFEST_DOMAIN, manifest_bytes)
    sealed = seal(write_zip(manifest_bytes, manifest_sig, files), private)
    tmp = out.with_name(out.name + ".partial")
    try:
        tmp.write_bytes(sealed)
        tmp.replace(out)
    except OSError as exc:
        raise ReleaseInputError(f"{out}: cannot write the bundle: {exc}") from None
    return BuiltBundle(
        path=out,
        manifest=manifest,
        manifest_sha256=hashlib.sha256(manifest_bytes).hexdigest(),
        release_id=release_id(manifest, manifest_bytes),
        key_id=manifest.key_id,
        size=len(sealed),
    )


def verify_bytes(data: bytes, public: Ed25519PublicKey) -> VerifiedBundle:
    """Everything a bundle must pass before any of it is used; raise BundleRefused if not."""
    body, signature = split_sealed(data)
    if not signing.verify(public, BUNDLE_DOMAIN, body, signature):
        raise BundleRefused(
            f"the bundle's signature does not verify with key {signing.key_id(public)[:16]}"
            " (signed by another key, or altered)"
        )
    contents = read_contents(data)
    if not signing.verify(public, MANIFEST_DOMAIN, contents.manifest_bytes, contents.manifest_sig):
        raise BundleRefused("the bundle's MANIFEST.sig does not verify with the same key")
    if contents.manifest.key_id != signing.key_id(public):
        raise BundleRefused("the manifest names another signing key than the one that signed it")
    return VerifiedBundle(
        contents=contents,
        manifest_sha256=hashlib.sha256(contents.manifest_bytes).hexdigest(),
        key_id=signing.key_id(public),
    )


def verify_bundle(path: str | Path, pubkey: str | Path | bytes) -> VerifiedBundle:
    public = signing.load_public_key(pubkey)
    path = Path(path)
    try:
        if path.stat().st_size > MAX_BUNDLE_BYTES:
            raise BundleRefused(f"{path}: larger than any release can be")
        data = path.read_bytes()
    except FileNotFoundError:
        raise ReleaseInputError(f"{path}: no such bundle") from None
    except OSError as exc:
        raise ReleaseInputError(f"{path}: cannot read: {exc}") from None
    return verify_bytes(data, public)
