"""The bundle's layout: reading it strictly and unpacking it into an installed release.

A bundle (``*.etgrel``) is a ZIP archive whose trailing ZIP comment carries an Ed25519
signature over every byte before it::

    MANIFEST.json            the manifest (deploy.manifest), signed on its own as well
    MANIFEST.sig             64-byte Ed25519 signature of the manifest
    program/<path>           each program file the manifest lists, nothing else
    ZIP comment              b"etg-ed25519:" + base64(signature of all bytes before it)

Because the signature covers the whole archive up to and including the end record (whose
comment-length field is fixed), flipping, adding or removing any byte anywhere fails it;
the manifest check inside then catches a bundle that was *built* wrong.

This module is standard library only: ``deploy/install.sh`` runs it with the Pi's system
Python straight out of the bundle (``sys.path`` entry ``BUNDLE/program``), *after* it has
verified the whole-bundle signature with ``openssl``. Checking signatures is
:mod:`deploy.bundle`'s job.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import os
import shutil
import struct
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from deploy.errors import BundleRefused, ReleaseInputError
from deploy.manifest import Manifest, compare_tree, parse_manifest, release_id
from deploy.program import MANIFEST_NAME, SIGNATURE_NAME

BUNDLE_DOMAIN = b"etg-release-bundle/1\n"
SIG_PREFIX = b"etg-ed25519:"
SIG_B64_LEN = 88  # base64 of 64 bytes
COMMENT_LEN = len(SIG_PREFIX) + SIG_B64_LEN
PROGRAM_DIR = "program/"
_EOCD = b"PK\x05\x06"
_EOCD_LEN = 22
#: A release is megabytes; refuse anything absurd before reading it into memory.
MAX_BUNDLE_BYTES = 256 << 20


@dataclass(frozen=True)
class BundleContents:
    """The members of a bundle whose layout and file hashes agree with its manifest."""

    manifest: Manifest
    manifest_bytes: bytes
    manifest_sig: bytes
    files: dict[str, bytes]

    @property
    def release_id(self) -> str:
        return release_id(self.manifest, self.manifest_bytes)


def split_sealed(data: bytes) -> tuple[bytes, bytes]:
    """Split a bundle into the signed body and its signature, or refuse it."""
    if len(data) < _EOCD_LEN + COMMENT_LEN or not data.startswith(b"PK"):
        raise BundleRefused("not an ETG release bundle (no ZIP archive)")
    comment = data[-COMMENT_LEN:]
    eocd = data[-(COMMENT_LEN + _EOCD_LEN) : -COMMENT_LEN]
    if not comment.startswith(SIG_PREFIX):
        raise BundleRefused("the bundle is not signed (no etg-ed25519 signature at its end)")
    (comment_len,) = struct.unpack("<H", eocd[20:22])
    if not eocd.startswith(_EOCD) or comment_len != COMMENT_LEN:
        raise BundleRefused("the bundle's end record is malformed (bytes added or removed)")
    try:
        signature = base64.b64decode(comment[len(SIG_PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        raise BundleRefused("the bundle's signature is not valid base64 (altered)") from None
    if len(signature) != 64:
        raise BundleRefused("the bundle's signature has the wrong length (altered)")
    return data[:-COMMENT_LEN], signature


def read_contents(data: bytes) -> BundleContents:
    """Open the archive and check its members against the manifest it carries.

    Exactly MANIFEST.json, MANIFEST.sig and one ``program/`` member per manifest entry,
    no duplicates, no directories, each member's size and SHA-256 as listed.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise BundleRefused(f"the bundle is not a readable archive ({exc})") from None
    with archive:
        infos = archive.infolist()
        names = [i.filename for i in infos]
        if len(names) != len(set(names)):
            raise BundleRefused("the bundle holds a member twice")
        if MANIFEST_NAME not in names or SIGNATURE_NAME not in names:
            raise BundleRefused("the bundle has no MANIFEST.json and MANIFEST.sig")
        try:
            manifest_bytes = archive.read(MANIFEST_NAME)
            manifest_sig = archive.read(SIGNATURE_NAME)
            manifest = parse_manifest(manifest_bytes)
        except ReleaseInputError as exc:
            raise BundleRefused(f"the bundle's {exc}") from None
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise BundleRefused(f"the bundle is damaged ({exc})") from None
        listed = manifest.by_path()
        members = {
            n[len(PROGRAM_DIR) :]: i for n, i in zip(names, infos, strict=True)
            if n.startswith(PROGRAM_DIR)
        }
        known = {MANIFEST_NAME, SIGNATURE_NAME} | {PROGRAM_DIR + p for p in members}
        strays = sorted(set(names) - known)
        extra = sorted(set(members) - set(listed))
        missing = sorted(set(listed) - set(members))
        if strays or extra:
            raise BundleRefused(
                f"the bundle holds files its manifest does not list: {(strays + extra)[:5]}"
            )
        if missing:
            raise BundleRefused(f"the bundle lacks files its manifest lists: {missing[:5]}")
        files: dict[str, bytes] = {}
        for path, entry in listed.items():
            info = members[path]
            if info.file_size != entry.size:
                raise BundleRefused(f"{path}: size differs from the manifest")
            try:
                content = archive.read(info)
            except (zipfile.BadZipFile, OSError, ValueError) as exc:
                raise BundleRefused(f"{path}: damaged in the bundle ({exc})") from None
            if hashlib.sha256(content).hexdigest() != entry.sha256:
                raise BundleRefused(f"{path}: SHA-256 differs from the manifest")
            files[path] = content
    return BundleContents(manifest, manifest_bytes, manifest_sig, files)


def _write_tree(contents: BundleContents, dest: Path) -> None:
    for entry in contents.manifest.files:
        target = dest / entry.path
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        with open(target, "wb") as fh:
            fh.write(contents.files[entry.path])
            fh.flush()
            os.fsync(fh.fileno())
        target.chmod(0o755 if entry.executable else 0o644)
    (dest / MANIFEST_NAME).write_bytes(contents.manifest_bytes)
    (dest / SIGNATURE_NAME).write_bytes(contents.manifest_sig)
    for meta in (MANIFEST_NAME, SIGNATURE_NAME):
        (dest / meta).chmod(0o644)


def extract(contents: BundleContents, releases: Path) -> tuple[Path, str]:
    """Unpack into ``releases/<release id>``; return it and created|unchanged|replaced.

    Idempotent: an identical tree is left alone. A tree that differs (someone changed an
    installed file) is moved aside, kept for inspection, and replaced. The new tree is
    written beside its final name and renamed into place, so a power cut leaves either no
    release or a whole one.
    """
    releases = Path(releases)
    dest = releases / contents.release_id
    status = "created"
    if dest.exists():
        same = (dest / MANIFEST_NAME).is_file() and (
            (dest / MANIFEST_NAME).read_bytes() == contents.manifest_bytes
            and (dest / SIGNATURE_NAME).read_bytes() == contents.manifest_sig
            and not compare_tree(contents.manifest, dest)
        )
        if same:
            return dest, "unchanged"
        status = "replaced"
    releases.mkdir(parents=True, exist_ok=True, mode=0o755)
    staging = releases / f".{contents.release_id}.partial-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(mode=0o755)
    _write_tree(contents, staging)
    if dest.exists():
        dest.rename(releases / f".{contents.release_id}.altered-{int(time.time())}")
    staging.rename(dest)
    return dest, status


def main(argv: Sequence[str] | None = None) -> int:
    """``info BUNDLE`` or ``extract BUNDLE RELEASES_DIR``, for deploy/install.sh.

    Prints ``key=value`` lines the shell reads. Assumes the caller has already verified
    the whole-bundle signature.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if len(args) not in (2, 3) or args[0] not in ("info", "extract"):
            raise ReleaseInputError(
                "usage: unpack info BUNDLE | unpack extract BUNDLE RELEASES_DIR")
        data = Path(args[1]).read_bytes()
        if len(data) > MAX_BUNDLE_BYTES:
            raise BundleRefused("the bundle is larger than any release can be")
        split_sealed(data)  # the layout check; the caller checked the signature
        contents = read_contents(data)
        print(f"release_id={contents.release_id}")
        print(f"version={contents.manifest.version}")
        print(f"files={len(contents.manifest.files)}")
        installer = contents.files.get("deploy/install.sh")
        if installer is not None:
            print(f"installer_sha256={hashlib.sha256(installer).hexdigest()}")
        if args[0] == "extract":
            if len(args) != 3:
                raise ReleaseInputError("extract needs BUNDLE and RELEASES_DIR")
            dest, status = extract(contents, Path(args[2]))
            print(f"release_dir={dest}")
            print(f"status={status}")
    except (ReleaseInputError, BundleRefused, OSError) as exc:
        print(f"unpack: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
