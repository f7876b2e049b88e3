"""What the floor's inbox holds beside the messages, and what is kept of a refused one.

The network thread puts messages in the inbox and the store thread takes them; the inbox
is bounded in bytes, so each message's size travels with it as a marker (:class:`Size`),
and a refused message is kept as evidence by its escaped start (:func:`sample`).
"""

from __future__ import annotations

import json


class Size:
    """A marker in the inbox: the bytes the message before it held (the memory bound)."""

    __slots__ = ("size", "table_id")

    def __init__(self, size: int, table_id: str = "") -> None:
        self.size = size
        self.table_id = table_id


def sample(payload: bytes) -> str:
    """The start of a refused message, as evidence (escaped: any bytes may be in it)."""
    return json.dumps(payload[:2048].decode("utf-8", "replace"))
