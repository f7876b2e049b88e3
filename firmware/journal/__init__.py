"""The journal: the table's critical memory and the evidence of every round.

What the table writes and the floor, the audit commands and the bench read: the record
store (:mod:`~firmware.journal.store`), its schema, the keyed hash chain
(:mod:`~firmware.journal.chain`) and the head file named outside the database
(:mod:`~firmware.journal.head`), the table's secret (:mod:`~firmware.journal.key`),
verification, which journal a table may open (:mod:`~firmware.journal.opening`), the event
codes, the meters, and the floor outbox written in the journal's own transactions. It
imports only itself and :mod:`etgcore`: the table and the floor both read it, and neither
imports the other. docs/table.md ("What the journal guarantees") says what it detects.
"""

from __future__ import annotations

from firmware.journal.chain import GENESIS, Record, canonical, record_hash
from firmware.journal.codes import EventCode
from firmware.journal.opening import open_existing
from firmware.journal.schema import JournalError
from firmware.journal.store import BESIDE, Entry, Journal, VerifyResult

__all__ = [
    "BESIDE", "GENESIS", "Entry", "EventCode", "Journal", "JournalError", "Record",
    "VerifyResult", "canonical", "open_existing", "record_hash",
]
