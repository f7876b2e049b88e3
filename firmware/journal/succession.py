"""A journal knows its successor: an archived journal is never the table's live memory.

``etg journal init --archive`` moves the old journal aside and begins a new one with the
same secret; the new one's first record names what it follows (firmware.journal.witness).
Moved back into place, the old journal is still authentic — every keyed hash holds — so
neither the chain nor its head file can tell it from the live one (issue 42, finding 5:
a cash-out of the new journal was paid again). So the init also writes the old journal's
identity (the keyed hash of its record 1, which no other journal has) into a register
beside the table's secret, in the secret's store: ``<secret>.superseded``, one line per
archived journal, each with a MAC keyed with the secret (a line cannot be forged to
refuse a journal, nor edited to name another). A start refuses a journal the register
names, and ``etg audit verify`` says so (``--archived``: verify it as the evidence it is).

In production the secret's store is ``/etc/etg`` (root's; docs/deploy.md) and the
register is made by deploy/install.sh root:etg 0660 and append-only (``chattr +a``): the
service user appends, and whoever can put an old journal back into the journal's
directory cannot remove its line. Bench mode keeps its secret beside the journal, and the
register with it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware.journal.errors import JournalError

if TYPE_CHECKING:
    from firmware.journal.store import Journal
    from firmware.journal.verify import VerifyResult

MAGIC = "etgsup1"
#: a register larger than this is not one (every volume bounded)
MAX_BYTES = 1 << 20


def register_path(key_path: str | Path) -> Path:
    p = Path(key_path)
    return p.with_name(p.name + ".superseded")


def _mac(key: bytes, identity: str, body: str) -> str:
    return hmac.new(key, f"etg-superseded|{identity}|{body}".encode(), hashlib.sha256).hexdigest()


def identity(journal: Journal) -> str | None:
    """A journal's identity: the keyed hash of its first record (None: no record)."""
    first = journal.record(1)
    return None if first is None else first.hash


def superseded(key_path: str | Path, key: bytes) -> dict[str, dict[str, Any]]:
    """The register's valid entries, by identity (lines with a bad MAC are ignored: they
    can refuse nothing)."""
    p = register_path(key_path)
    try:
        with p.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise JournalError(f"{p}: cannot read the register of archived journals: "
                           f"{exc.strerror}") from None
    if len(data) > MAX_BYTES:
        raise JournalError(f"{p}: the register of archived journals is over {MAX_BYTES} bytes")
    out: dict[str, dict[str, Any]] = {}
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split(" ", 3)
        if len(parts) != 4 or parts[0] != MAGIC:
            continue
        _magic, ident, mac, body = parts
        if not hmac.compare_digest(mac, _mac(key, ident, body)):
            continue
        with contextlib.suppress(ValueError):
            info = json.loads(body)
            if isinstance(info, dict):
                out[ident] = info
    return out


def _open_register(key_path: str | Path) -> int:
    p = register_path(key_path)
    try:
        return os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    except OSError as exc:
        raise JournalError(f"{p}: cannot name the archived journal in the register beside "
                           f"the secret: {exc.strerror} (run etg journal init as the "
                           "secret's owner; deploy/install.sh makes the register)") from None


def can_retire(key_path: str | Path) -> None:
    """Raise JournalError unless the register can be appended to (checked before the old
    journal is moved aside: an init that cannot name it changes nothing)."""
    os.close(_open_register(key_path))


def retire(key_path: str | Path, key: bytes, ident: str, info: dict[str, Any]) -> None:
    """Name an archived journal in the register (appended and synced before the new
    journal begins: a kill -9 between leaves the old one refused and no new one yet)."""
    body = json.dumps({**info, "at": int(time.time())}, sort_keys=True,
                      separators=(",", ":"))
    line = f"{MAGIC} {ident} {_mac(key, ident, body)} {body}\n".encode("ascii")
    fd = _open_register(key_path)
    try:
        os.write(fd, line)
        os.fsync(fd)
    except OSError as exc:
        raise JournalError(f"{register_path(key_path)}: cannot name the archived journal: "
                           f"{exc.strerror}") from None
    finally:
        os.close(fd)


def superseded_problem(journal: Journal, key_path: str | Path) -> str | None:
    """Why ``journal`` is not live memory (it was archived), or None."""
    if journal.key is None:
        return None
    ident = identity(journal)
    if ident is None:
        return None
    info = superseded(key_path, journal.key).get(ident)
    if info is None:
        return None
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(int(info.get("at", 0))))
    return (f"this journal was archived by `etg journal init` at {when} and superseded by a "
            f"new journal (it ended at record {info.get('seq')}): it is evidence, never "
            "the table's live memory (an archived journal put back)")


def superseded_result(journal: Journal, res: VerifyResult,
                      key_path: str | Path | None = None) -> VerifyResult:
    """``res``, refused when the journal is an archived one."""
    where = key_path if key_path is not None else journal.key_path
    if where is None:
        return res
    problem = superseded_problem(journal, where)
    return res if problem is None else replace(res, ok=False, first_bad=1, problem=problem)
