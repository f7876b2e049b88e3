"""JSON lines over the core's local line server (etgcore.line_server), and the client.

The table's local channels (the bench control channel, the attendant channel) speak one
JSON object per line: a request object in, one reply object out, and a request that
cannot be handled (not UTF-8, not JSON, not an object, a handler's exception, too long,
too many connections) gets ``{"ok": false, "error": ...}``. The socket itself (mode
0600, bounded connections and lines, idle timeout) is the core's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from etgcore.errors import UserError
from etgcore.line_server import MAX_CONNECTIONS, MAX_LINE, LineServer, request_line

__all__ = ["MAX_CONNECTIONS", "MAX_LINE", "JsonLineServer", "request"]


class JsonLineServer(LineServer):
    """Subclasses implement :meth:`handle`: one request object in, one reply object out."""

    name = "local-socket"

    def __init__(self, path: str | Path) -> None:
        try:
            super().__init__(path)
        except OSError as exc:
            # e.g. "AF_UNIX path too long": a Unix socket path holds at most 107 bytes
            raise UserError(f"cannot open the local socket {path} ({exc}); "
                            "use a shorter journal path (--journal)") from None

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def answer(self, line: str) -> str:
        try:
            req = json.loads(line)
        except ValueError as exc:
            return self.refusal(f"not JSON: {exc}")
        if not isinstance(req, dict):
            return self.refusal("a request is a JSON object")
        return _dumps(self.handle(req))

    def refusal(self, why: str) -> str:
        return _dumps({"ok": False, "error": why})


def _dumps(reply: dict[str, Any]) -> str:
    return json.dumps(reply, separators=(",", ":"))


def request(path: str | Path, req: dict[str, Any], timeout: float = 20.0) -> dict[str, Any]:
    """One request to a :class:`JsonLineServer`; raises OSError if nobody answers."""
    reply: dict[str, Any] = json.loads(request_line(path, json.dumps(req), timeout))
    return reply
