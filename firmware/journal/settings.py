"""The ``[journal]`` section of a table's configuration: where the journal and its secret are."""

from __future__ import annotations

from dataclasses import dataclass, field

from etgcore.config_schema import doc, ranged, text


@dataclass(frozen=True)
class JournalSettings:
    path: str = field(default="var/journal.sqlite", metadata=text("SQLite journal file"))
    key_path: str = field(
        default="",
        metadata=doc("the table's secret keying the journal's chain, created at installation "
                     "(empty: <journal>.key, which bench mode creates with a new journal)"),
    )
    checkpoint_rounds: int = field(
        default=500,
        metadata=ranged(2, 100_000, "a checkpoint every N rounds: a start proves and "
                        "replays the journal from the last one"),
    )
