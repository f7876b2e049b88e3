"""The facts that identify a certification run: which program, which configuration, when.

* **program hash**: SHA-256 over the program files a release carries (the packages and
  top-level files, as the release tooling lists them), each line ``path NUL sha256 LF``
  in release order, so the lab can tie the report to a release manifest; the per-file
  digests are written to ``program-files.txt`` beside the report.
* **configuration hash**: the table-configuration fingerprint the journal records at
  every start, so the report names the same configuration the table would.

The RNG computes neither list nor fingerprint itself: the command line that composes it
hands them over (:class:`~etgcore.cli_context.CommandContext`), so ``rng`` imports nothing
of the firmware or the release tooling.
"""

from __future__ import annotations

import hashlib
import platform
import time
from dataclasses import dataclass, field


def program_hash(files: list[tuple[str, str]]) -> str:
    h = hashlib.sha256(b"etg-program/1\n")
    for name, digest in files:
        h.update(name.encode("utf-8") + b"\0" + digest.encode("ascii") + b"\n")
    return h.hexdigest()


def rng_sources_digest(root: object = None) -> str:
    """SHA-256 over every source file of the ``rng`` package (path, NUL, bytes; paths in
    order): the code that drew and tested a run. With the seed, the command and the
    Rules Submission it determines every figure of a seeded report, so a committed
    sample report whose recorded digest differs from this one is stale."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] if root is None else Path(str(root))
    h = hashlib.sha256(b"etg-rng-sources/1\n")
    for f in sorted(root.rglob("*.py")):
        if "__pycache__" in f.parts:
            continue
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class RunMetadata:
    """Everything the report states about the run besides the results."""

    command: str
    mechanism: str = ""
    mode: str = ""
    seed_hex: str = ""  # only for a reproducible bench run
    config_source: str = ""
    config_hash: str = ""
    program_version: str = ""
    program_hash: str = ""
    program_file_count: int = 0
    started: str = field(default_factory=utc_now)
    finished: str = ""
    host: str = field(default_factory=lambda: f"{platform.node()} ({platform.machine()}, "
                      f"Python {platform.python_version()})")
    extra: dict[str, str] = field(default_factory=dict)

    def rows(self) -> list[tuple[str, str]]:
        rows = [
            ("command", self.command),
            ("program version", f"etg {self.program_version}"),
            ("program hash (SHA-256)", f"{self.program_hash} ({self.program_file_count} files)"
             if self.program_hash else "not computed"),
            ("configuration", self.config_source or "n/a"),
            ("configuration hash (SHA-256)", self.config_hash or "n/a"),
            ("mode", self.mode or "n/a"),
            ("DRBG mechanism", self.mechanism or "n/a"),
            ("seed", self.seed_hex if self.seed_hex else
             "none: seeded from the entropy source (not reproducible)"),
            ("started (UTC)", self.started),
            ("finished (UTC)", self.finished),
            ("host", self.host),
        ]
        rows.extend(self.extra.items())
        return rows
