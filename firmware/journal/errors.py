"""The journal's errors: each one is an integrity failure of the table's evidence.

:class:`JournalError` is a :class:`~etgcore.errors.CheckFailed` (exit 1): the journal was
checked and is not what it must be. A refusal that is also bad input (a missing secret, a
journal a production table will not begin by itself, a second table on one journal)
derives from :class:`~etgcore.errors.UserError` too, and exits 2.
"""

from __future__ import annotations

from etgcore.errors import CheckFailed, UserError


class JournalError(CheckFailed):
    """The journal cannot be written or read as it is (its format, chain, head or meters
    failed): the table stops taking inputs (tilt), a start is refused."""


class BlankJournal(JournalError):
    """An SQLite file without any table: a journal whose creation was cut short."""


class OldJournalFormat(JournalError):
    """A journal written by older firmware (schema 1 or 2: before the keyed chain)."""


class JournalFileError(JournalError):
    """The journal's file is missing, unreadable or not a journal."""


class JournalDamaged(JournalError):
    """An SQLite journal file SQLite cannot read (cut short, pages overwritten): the
    evidence is broken (exit 1, BROKEN), not the user's mistake (issue 42, finding 7)."""


class HeadFileError(JournalError):
    """The head file beside the journal is missing, edited or made with another secret."""


class JournalKeyError(JournalError, UserError):
    """The journal secret is missing, unreadable, malformed or readable by others."""


class TableRunning(JournalError, UserError):
    """Another process (a running table) holds the journal's lock."""


class JournalRefused(JournalError, UserError):
    """The table will not write this journal (the message says why and what to do)."""
