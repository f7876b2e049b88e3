"""Floor commands are signed by the floor service and verified by the table.

The broker already lets only the floor service's identity write ``etg/command/<id>``
(client certificate + ACL). The table does not rely on that alone: a misconfigured
broker, or anyone holding a broker login, must still not close a table. So every command
is signed with the floor service's private key (ECDSA P-256 over the canonical JSON of
the command), and the table checks the signature against the floor service certificate
it was installed with — itself checked against the floor CA — and that the command names
this table, is fresh and was not seen before.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: disable and enable a table; ask it for its seeded software signature (``seed``: hex)
ACTIONS = ("disable", "enable", "authenticate")
#: a disable's reason, at most this long
MAX_REASON = 200
#: a command older than this (by its issue time) is refused: no replay of old captures
MAX_AGE_S = 600.0


def _canonical(cmd: Mapping[str, Any]) -> bytes:
    body = {k: v for k, v in cmd.items() if k != "sig"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def new_command(table: str, action: str, by: str, key_pem: bytes,
                **extra: Any) -> dict[str, Any]:
    """A signed command; ``extra``: a disable's ``reason``, an authentication's ``seed``."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    cmd: dict[str, Any] = {"id": uuid.uuid4().hex, "table": table, "action": action,
                           "by": by, "issued": round(time.time(), 3), **extra}
    key = serialization.load_pem_private_key(key_pem, password=None)
    sig = key.sign(_canonical(cmd), ec.ECDSA(hashes.SHA256()))  # type: ignore[union-attr, call-arg, arg-type]
    cmd["sig"] = base64.b64encode(sig).decode("ascii")
    return cmd


class CommandVerifier:
    """The table's check of one command: ``refusal(cmd)`` is None or why it is refused."""

    def __init__(self, table_id: str, floor_cert: Path, ca_cert: Path) -> None:
        from cryptography import x509

        self.table_id = table_id
        cert = x509.load_pem_x509_certificate(floor_cert.read_bytes())
        ca = x509.load_pem_x509_certificate(ca_cert.read_bytes())
        cert.verify_directly_issued_by(ca)  # raises on a certificate of another CA
        self._key = cert.public_key()
        self._seen: set[str] = set()

    def remember(self, command_id: str) -> None:
        self._seen.add(command_id)

    def refusal(self, cmd: Any, now: float | None = None) -> str | None:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec

        if not isinstance(cmd, dict) or not isinstance(cmd.get("sig"), str):
            return "not a signed floor command"
        try:
            sig = base64.b64decode(cmd["sig"], validate=True)
            self._key.verify(sig, _canonical(cmd), ec.ECDSA(hashes.SHA256()))  # type: ignore[union-attr, call-arg, arg-type]
        except (InvalidSignature, ValueError):
            return "bad signature: not from the floor service"
        if cmd.get("table") != self.table_id:
            return f"addressed to table {cmd.get('table')!r}, not {self.table_id!r}"
        if cmd.get("action") not in ACTIONS:
            return f"unknown action {cmd.get('action')!r}"
        issued = cmd.get("issued")
        now = time.time() if now is None else now
        if not isinstance(issued, int | float) or abs(now - float(issued)) > MAX_AGE_S:
            return "stale or undated command"
        if cmd.get("id") in self._seen:
            return "already received (a replay)"
        return None
