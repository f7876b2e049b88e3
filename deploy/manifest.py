"""The signed manifest: every program file of a release with its SHA-256 and size.

The manifest is what the release key signs and what an installed table is checked
against, at every production start and whenever someone runs ``etg verify``. It lives
at the top of the installed release, ``/opt/etg/current/MANIFEST.json`` next to its
detached signature ``MANIFEST.sig``, because the program runs from that very tree: the
files checked are the files imported.

Parsing and comparing need only the standard library (the installer uses them with the
Pi's system Python); checking the signature imports :mod:`deploy.signing` when asked.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deploy.errors import ReleaseInputError, SoftwareAuthenticationError
from deploy.program import (
    MANIFEST_NAME,
    SIGNATURE_NAME,
    ProgramTreeError,
    check_relpath,
    sha256_file,
    tree_files,
)

FORMAT = "etg-release-manifest/1"
#: Prefixed to the manifest bytes before signing, so a manifest signature can never be
#: replayed as a bundle signature (or the reverse) although one key makes both.
MANIFEST_DOMAIN = b"etg-release-manifest/1\n"
#: Where the installer puts the public key the table trusts (``ETG_RELEASE_PUBKEY`` overrides).
DEFAULT_PUBKEY = "/etc/etg/release.pub"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}")


@dataclass(frozen=True)
class FileEntry:
    path: str
    sha256: str
    size: int
    executable: bool = False


@dataclass(frozen=True)
class Manifest:
    name: str
    version: str
    key_id: str
    files: tuple[FileEntry, ...]
    built_at: str = ""
    source: Mapping[str, Any] | None = None

    def to_bytes(self) -> bytes:
        """The one spelling the signature covers: sorted keys, ASCII, one entry a line."""
        doc = {
            "format": FORMAT,
            "name": self.name,
            "version": self.version,
            "built_at": self.built_at,
            "source": dict(self.source) if self.source is not None else None,
            "key_id": self.key_id,
            "files": [
                {"path": f.path, "sha256": f.sha256, "size": f.size, "executable": f.executable}
                for f in self.files
            ],
        }
        return (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=True) + "\n").encode()

    def by_path(self) -> dict[str, FileEntry]:
        return {f.path: f for f in self.files}


def release_id(manifest: Manifest, manifest_bytes: bytes) -> str:
    """Directory name of an installed release: name, version and the manifest's hash."""
    return f"{manifest.name}-{manifest.version}-{hashlib.sha256(manifest_bytes).hexdigest()[:12]}"


def _field(doc: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = doc.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise ReleaseInputError(f"manifest: field {key!r} is missing or of the wrong type")
    return value


def parse_manifest(data: bytes) -> Manifest:
    """Read a manifest strictly: every field typed, every path safe, sorted and unique."""
    try:
        doc = json.loads(data.decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReleaseInputError(f"manifest: not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ReleaseInputError(f"manifest: not an {FORMAT} document")
    version = _field(doc, "version", str)
    if not _VERSION.fullmatch(version):
        raise ReleaseInputError(f"manifest: version {version!r} is not a plain version string")
    name = _field(doc, "name", str)
    if not _VERSION.fullmatch(name):
        raise ReleaseInputError(f"manifest: name {name!r} is not a plain name")
    key_id = _field(doc, "key_id", str)
    source = doc.get("source")
    if source is not None and not isinstance(source, dict):
        raise ReleaseInputError("manifest: field 'source' must be an object or null")
    entries: list[FileEntry] = []
    for raw in _field(doc, "files", list):
        if not isinstance(raw, dict) or set(raw) != {"path", "sha256", "size", "executable"}:
            raise ReleaseInputError(
                "manifest: a file entry needs exactly path, sha256, size, executable")
        try:
            path = check_relpath(_field(raw, "path", str))
        except ProgramTreeError as exc:
            raise ReleaseInputError(f"manifest: {exc}") from None
        digest = _field(raw, "sha256", str)
        size = _field(raw, "size", int)
        if not _HEX64.fullmatch(digest) or size < 0:
            raise ReleaseInputError(f"manifest: {path}: bad sha256 or size")
        if path in (MANIFEST_NAME, SIGNATURE_NAME):
            raise ReleaseInputError(f"manifest: {path} cannot be a program file")
        entries.append(FileEntry(path, digest, size, _field(raw, "executable", bool)))
    keys = [e.path.encode() for e in entries]
    if keys != sorted(set(keys)):
        raise ReleaseInputError("manifest: file entries are not sorted and unique")
    return Manifest(
        name=name,
        version=version,
        key_id=key_id,
        files=tuple(entries),
        built_at=str(doc.get("built_at", "")),
        source=source,
    )


# -- comparing a tree ----------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    kind: str  # "changed" | "missing" | "unexpected"
    path: str

    def __str__(self) -> str:
        return f"{self.kind.upper():10} {self.path}"


def compare_tree(manifest: Manifest, root: Path) -> list[Problem]:
    """Every difference between a release tree on disk and its manifest (empty: identical)."""
    root = Path(root)
    try:
        present = set(tree_files(root))
    except ProgramTreeError as exc:
        raise SoftwareAuthenticationError(f"software authentication failed: {exc}") from None
    problems: list[Problem] = []
    for entry in manifest.files:
        if entry.path not in present:
            problems.append(Problem("missing", entry.path))
            continue
        present.discard(entry.path)
        digest, size = sha256_file(root / entry.path)
        if (digest, size) != (entry.sha256, entry.size):
            problems.append(Problem("changed", entry.path))
    problems.extend(Problem("unexpected", p) for p in sorted(present))
    return problems


def summarize(problems: Iterable[Problem], limit: int = 5) -> str:
    items = list(problems)
    shown = ", ".join(f"{p.path} ({p.kind})" for p in items[:limit])
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return f"{len(items)} file(s) differ from the signed manifest: {shown}{more}"


# -- the installed release -------------------------------------------------------------


@dataclass(frozen=True)
class InstalledRelease:
    """A release tree whose signature and every file checked out."""

    root: Path
    manifest: Manifest
    manifest_sha256: str
    release_id: str
    key_id: str

    def journal_body(self) -> dict[str, Any]:
        """What the service journals as SOFTWARE_VERIFIED at start."""
        return {
            "release": self.release_id,
            "name": self.manifest.name,
            "version": self.manifest.version,
            "manifest_sha256": self.manifest_sha256,
            "key_id": self.key_id,
            "files": len(self.manifest.files),
            "root": str(self.root),
        }


def installed_root() -> Path:
    """The tree the running program was imported from (``/opt/etg/current`` on a table)."""
    return Path(__file__).resolve().parent.parent


def default_pubkey_path() -> Path:
    return Path(os.environ.get("ETG_RELEASE_PUBKEY") or DEFAULT_PUBKEY)


def read_signed_manifest(root: Path) -> tuple[bytes, bytes]:
    """The manifest bytes and signature of a release tree, or a clear error."""
    root = Path(root)
    try:
        return (root / MANIFEST_NAME).read_bytes(), (root / SIGNATURE_NAME).read_bytes()
    except FileNotFoundError as exc:
        raise SoftwareAuthenticationError(
            f"no signed release manifest in {root} ({Path(str(exc.filename)).name} is missing):"
            " this is not a release installed by deploy/install.sh"
        ) from None
    except OSError as exc:
        raise SoftwareAuthenticationError(f"cannot read the release manifest: {exc}") from None


def verify_installed(
    root: str | Path | None = None, pubkey: str | Path | bytes | None = None
) -> InstalledRelease:
    """Check an installed release against its signed manifest; raise if anything differs.

    ``root`` defaults to the tree this code runs from, ``pubkey`` (a PEM file or PEM bytes)
    to ``$ETG_RELEASE_PUBKEY`` or ``/etc/etg/release.pub``. Raises
    :class:`SoftwareAuthenticationError` naming the first differences: a missing manifest,
    a signature that does not verify with the key, or a file changed, missing or added.
    """
    from deploy import signing

    tree = Path(root) if root is not None else installed_root()
    public = signing.load_public_key(pubkey if pubkey is not None else default_pubkey_path())
    data, signature = read_signed_manifest(tree)
    if not signing.verify(public, MANIFEST_DOMAIN, data, signature):
        raise SoftwareAuthenticationError(
            f"software authentication failed: the manifest in {tree} is not signed by key"
            f" {signing.key_id(public)[:16]} (altered, or signed by another key)"
        )
    try:
        manifest = parse_manifest(data)
    except ReleaseInputError as exc:
        raise SoftwareAuthenticationError(f"software authentication failed: {exc}") from None
    problems = compare_tree(manifest, tree)
    if problems:
        error = SoftwareAuthenticationError(
            f"software authentication failed in {tree}: {summarize(problems)}"
        )
        error.problems = problems
        raise error
    return InstalledRelease(
        root=tree,
        manifest=manifest,
        manifest_sha256=hashlib.sha256(data).hexdigest(),
        release_id=release_id(manifest, data),
        key_id=signing.key_id(public),
    )
