"""What the journal records about the program and its configuration when a table starts.

The hashing is the release tooling's (:mod:`deploy.fingerprint`, :mod:`deploy.manifest`);
journaling the results is the table's, so ``deploy`` never imports the table: a
CONFIG_CHANGE when the configuration differs from the previous start's, then always
CONFIG_IN_FORCE; in production SOFTWARE_VERIFIED (or SOFTWARE_VERIFY_FAILED, which stops
the start).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deploy.fingerprint import INFO_KEY, ConfigFingerprint
from etgcore.errors import EtgError
from firmware.journal import Entry, EventCode, Journal

if TYPE_CHECKING:
    from deploy.manifest import InstalledRelease


def start_events(
    previous: ConfigFingerprint | None,
    current: ConfigFingerprint,
    *,
    previous_unreadable: bool = False,
) -> list[tuple[int, dict[str, Any]]]:
    """The (event code, body) pairs to journal at a start, in order.

    A CONFIG_CHANGE (old and new hashes, which parts changed) when the configuration
    differs from the previous start's, then always CONFIG_IN_FORCE.
    """
    events: list[tuple[int, dict[str, Any]]] = []
    if previous_unreadable:
        events.append(
            (
                int(EventCode.CONFIG_CHANGE),
                {"old": None, "new": current.as_dict(), "changed": ["table", "rules"],
                 "note": "the previous start's fingerprint could not be read"},
            )
        )
    elif previous is not None and previous != current:
        changed = [p for p in ("table", "rules") if getattr(previous, p) != getattr(current, p)]
        events.append(
            (
                int(EventCode.CONFIG_CHANGE),
                {"old": previous.as_dict(), "new": current.as_dict(), "changed": changed},
            )
        )
    events.append((int(EventCode.CONFIG_IN_FORCE), current.as_dict()))
    return events


def record_config_at_start(journal: Journal, current: ConfigFingerprint) -> list[Any]:
    """Journal the configuration in force (and a change, if any) on a table journal.

    The previous configuration is the last CONFIG_IN_FORCE of the proven, keyed chain
    (issue 42, red team F1: the unkeyed ``info`` row could hide a change or plant a false
    "old" one); the ``info`` row is still written, for older tools, and never read.
    """
    stored = _last_in_force(journal)
    previous: ConfigFingerprint | None = None
    unreadable = False
    if stored is not None:
        try:
            previous = ConfigFingerprint.from_json(stored)
        except (ValueError, KeyError, TypeError):
            unreadable = True
    entries = [
        Entry("event", body, code=code)
        for code, body in start_events(previous, current, previous_unreadable=unreadable)
    ]
    records = list(journal.append(entries))
    journal.set_info(INFO_KEY, current.to_json())
    return records


def _last_in_force(journal: Journal) -> str | None:
    """The body of the journal's last CONFIG_IN_FORCE event (JSON), or None."""
    for r in journal.records(kinds=["event"], newest_first=True):
        if r.code == EventCode.CONFIG_IN_FORCE:
            return json.dumps(r.body)
    return None


def record_software_check(
    journal: Journal, root: str | Path | None = None, pubkey: str | Path | bytes | None = None
) -> InstalledRelease:
    """The production start-up check, journaled: SOFTWARE_VERIFIED or SOFTWARE_VERIFY_FAILED.

    On failure the event is written first and the error re-raised: the service must not
    take inputs.
    """
    from deploy.manifest import verify_installed  # production only: bench mode skips it

    try:
        release = verify_installed(root, pubkey)
    except EtgError as exc:  # an unreadable key fails the start just like a changed file
        journal.append_one(
            "event", {"problem": str(exc)}, code=int(EventCode.SOFTWARE_VERIFY_FAILED)
        )
        raise
    journal.append_one("event", release.journal_body(), code=int(EventCode.SOFTWARE_VERIFIED))
    return release


def software_of(cfg: Any, rules: Any, journal: Journal, version: str) -> dict[str, Any]:
    """The software fingerprint the pit shows: version, the configuration's combined hash,
    and the release verified at start (production) if any."""
    from deploy.fingerprint import fingerprint

    release = None
    for r in journal.records(kinds=["event"]):
        if r.code == EventCode.SOFTWARE_VERIFIED:
            release = r.body.get("release")
    return {"version": version, "config": fingerprint(cfg, rules.to_json()).combined,
            "release": release}
