"""MQTT topic names of the floor link and the limits of what a table sends on them
(docs/floor.md lists them with their payloads; :mod:`firmware.floor.wire` checks them).

A table writes only under ``etg/table/<id>/`` and reads only ``etg/command/<id>`` and
``etg/ack/<id>``; the floor service reads every table's topics and writes commands and
acknowledgements. The broker's ACL (:mod:`firmware.floor.broker`) enforces exactly this,
with ``<id>`` the common name of the client certificate.
"""

from __future__ import annotations

import re

ROOT = "etg"
#: the version of what a table sends (``"v"`` in a status; a record without it is 1)
VERSION = 1
#: the largest MQTT payload a table may send (the broker refuses larger packets too)
MAX_MESSAGE_BYTES = 256 * 1024
#: the largest record, as JSON (a larger one goes as an ``oversize`` stub)
MAX_RECORD_BYTES = 64 * 1024
#: records in one message, at most
MAX_BATCH = 100
#: table -> floor: one MQTT message carries the next outbox records in order (a JSON array)
RECORDS = "records"
#: table -> floor, retained snapshot of the table's state (not through the outbox)
STATUS = "status"
#: table -> floor, retained: "1" connected, "0" gone (also the MQTT will)
ONLINE = "online"
#: table -> floor: the answer to a software authentication request
SIGNATURE = "signature"

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")


#: names of the floor's own identities (any case): never a table's
RESERVED_IDS = ("floor", "broker", "ca")


def valid_table_id(table_id: str) -> bool:
    """Certificate common names and topic levels: no wildcards, separators or spaces, and
    none of the floor's own identities (a "table" named ``floor`` would be handed the
    floor service's certificate and command-signing key)."""
    return bool(_ID.match(table_id)) and table_id.lower() not in RESERVED_IDS


def table_topic(table_id: str, kind: str) -> str:
    return f"{ROOT}/table/{table_id}/{kind}"


def command_topic(table_id: str) -> str:
    return f"{ROOT}/command/{table_id}"


def ack_topic(table_id: str) -> str:
    return f"{ROOT}/ack/{table_id}"


TABLE_WILDCARD = f"{ROOT}/table/+/+"


def parse_table_topic(topic: str) -> tuple[str, str] | None:
    """``(table_id, kind)`` of a table's topic, else None."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[1] != "table":
        return None
    return parts[2], parts[3]
