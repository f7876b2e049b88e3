"""The per-table secret that keys the journal's chain (HMAC-SHA256).

Why a secret: with a plain hash chain anyone who can edit the SQLite file can also
recompute every hash after the record they changed, and the audit says ``ok``. Keyed with
a secret that only the table's service user can read, a rewritten record cannot be
re-chained without that secret.

The secret is created once, at installation (``deploy/install.sh`` writes
``/etc/etg/journal.key``, root-owned, group the service user, mode 0440: the service can
read it and cannot change or remove it). Bench mode may create its own beside the journal
(``<journal>.key``, 0600). The file holds 64 hexadecimal digits (32 random bytes) and a
newline. It is never logged, never shown, never journaled: only its *id* (the first 16
hex digits of its SHA-256) is, so an auditor can tell which secret a journal expects.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from pathlib import Path

from firmware.journal.errors import JournalKeyError
from firmware.journal.files import ensure_directory

KEY_BYTES = 32



def beside(journal_path: str | Path) -> Path:
    """Where bench mode keeps a journal's secret: ``<journal>.key``."""
    p = Path(journal_path)
    return p.with_name(p.name + ".key")


def key_path_for(journal_path: str | Path, configured: str) -> Path:
    """The configured secret (``journal.key_path``), or the bench default beside it."""
    return Path(configured) if configured else beside(journal_path)


def key_id(key: bytes) -> str:
    """What the journal records about its secret: enough to name it, nothing to use."""
    return hashlib.sha256(b"etg-journal-key-id|" + key).hexdigest()[:16]


def load(path: str | Path) -> bytes:
    """Read the secret at ``path``; refuse one that others than its owner (and group)
    could read or change."""
    p = Path(path)
    try:
        st = p.stat()
        text = p.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise JournalKeyError(
            f"{p}: no journal secret (it is created at installation by deploy/install.sh; "
            "docs/deploy.md, 'The journal secret')"
        ) from None
    except PermissionError:
        raise JournalKeyError(
            f"{p}: the journal secret is readable by the table's service user only "
            "(run this as that user, e.g. sudo -u etg etg ...)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise JournalKeyError(f"{p}: cannot read the journal secret: {exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise JournalKeyError(f"{p}: the journal secret must be a regular file")
    if st.st_mode & 0o027:
        raise JournalKeyError(
            f"{p}: the journal secret is mode {stat.S_IMODE(st.st_mode):04o}; it must not "
            "be readable by others nor writable by its group (chmod 0440 or 0600)"
        )
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise JournalKeyError(f"{p}: not a journal secret ({KEY_BYTES * 2} hex digits expected)")
    return key


def create(path: str | Path) -> bytes:
    """Create a new secret at ``path`` (0600, never overwriting one); return it.

    Written to a temporary name, synced, then linked into place: a kill -9 or a full disk
    at any instant leaves either the whole secret or none (never an empty file that would
    refuse every later start)."""
    import secrets  # once per journal's life

    p = Path(path)
    key = secrets.token_bytes(KEY_BYTES)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        ensure_directory(p.parent)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        raise JournalKeyError(f"{p}: cannot create the journal secret: {exc.strerror}") from None
    try:
        try:
            os.fchmod(fd, 0o600)
            if os.write(fd, key.hex().encode("ascii") + b"\n") != KEY_BYTES * 2 + 1:
                raise OSError(28, "short write")
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(tmp, p)  # fails if a secret exists: never overwritten
    except FileExistsError:
        raise JournalKeyError(f"{p}: a journal secret already exists (never overwritten)") from None
    except OSError as exc:
        raise JournalKeyError(f"{p}: cannot write the journal secret: {exc.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    with contextlib.suppress(OSError):
        dfd = os.open(p.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    return key


def load_or_create(path: str | Path) -> bytes:
    """Bench mode: the secret at ``path``, created there first if there is none."""
    if Path(path).exists():
        return load(path)
    return create(path)


def beside_key(journal_path: str | Path, readonly: bool, new: bool) -> tuple[bytes | None, str]:
    """The bench's own secret beside the journal, and why it is missing (a reader only).
    A secret is made with its journal only: one made beside an existing journal could
    never verify it, and would hide that its own secret went missing. Only `audit verify`
    of a read-only journal needs it; the other readers work without it."""
    where = beside(journal_path)
    if not readonly:
        return (load_or_create(where) if new else load(where)), ""
    try:
        return load(where), ""
    except JournalKeyError as exc:
        return None, str(exc)
