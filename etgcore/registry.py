"""One small typed registry: a name -> an entry, for the layers that keep a table of
plug-ins (the shoe's reader models, the panel's backends).

python-can keeps its bus interfaces and gpiozero its pin factories the same way: each
plug-in registers its entry once under its name, every caller looks it up here instead of
an if-chain of its own, and a test suite runs over every entry. Why a class and not a
plain dict each: the lookup's refusal (one line naming the entries there are, a
:class:`~etgcore.errors.UserError`: bad input, exit 2) and the refusal of one name
registered twice by two entries were written once per registry and drifted; here they
are one. A leaf module (it imports :mod:`etgcore.errors` only), so every package,
``drivers`` included, may use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

from etgcore.errors import UserError

T = TypeVar("T")


class Registry(Mapping[str, T], Generic[T]):
    """Entries by name, in the order they registered. ``kind`` names the entries in the
    lookup's refusal (``"shoe reader model"``); ``name_of`` reads an entry's name."""

    def __init__(self, kind: str, name_of: Callable[[T], str]) -> None:
        self.kind = kind
        self._name_of = name_of
        self._entries: dict[str, T] = {}

    def register(self, entry: T) -> T:
        """Add ``entry`` under its name and return it (usable as a decorator). The same
        entry again is a no-op; another entry under a taken name is refused (two
        plug-ins would otherwise answer to one name, the last import winning)."""
        name = self._name_of(entry)
        have = self._entries.get(name)
        if have is not None and have is not entry:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._entries[name] = entry
        return entry

    def unregister(self, name: str) -> None:
        """Remove ``name`` if present (a test's own entry, after the test)."""
        self._entries.pop(name, None)

    def lookup(self, name: str) -> T:
        """The entry ``name``, or the one-line UserError naming those there are."""
        found = self._entries.get(name)
        if found is None:
            have = ", ".join(self._entries) or "none registered"
            raise UserError(f"{self.kind} {name!r} unknown (allowed: {have})")
        return found

    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self._entries)})"


__all__ = ["Registry"]
