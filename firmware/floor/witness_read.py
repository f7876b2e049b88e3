"""Reading the floor's witness at a table's start, before the table writes anything.

Apart from the link (firmware.floor.link) because it runs earlier, once, on a connection
of its own that acknowledges nothing: the journal must be checked against the floor's
acknowledgement before the link and the journal start.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from firmware.floor import topics
from firmware.floor.mqtt import make_client, parse_broker
from firmware.floor.settings import FloorSettings
from firmware.journal.witness import Witness, WitnessRead, parse_ack


def read_witness(settings: FloorSettings, table_id: str, deadline_s: float) -> WitnessRead:
    """The floor's acknowledgement for this table (firmware.journal.witness), asked before
    the table writes anything: a connection of its own, under the table's identity and
    persistent session, that acknowledges nothing (``manual_ack``): the floor's commands
    queued for the table are delivered again to the link that follows, none is lost. None
    within ``deadline_s`` (broker or floor unreachable, or nothing held for the table):
    the table plays on, and says so."""
    got = threading.Event()
    box: dict[str, Any] = {}

    def connected(client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        if rc.is_failure:
            box["why"] = f"the floor's broker refused the connection ({rc})"
            got.set()
            return
        box["connected"] = True
        client.subscribe(topics.ack_topic(table_id), 1)

    def message(client: Any, userdata: Any, msg: Any) -> None:
        if msg.topic != topics.ack_topic(table_id) or "ack" in box:
            return
        try:
            box["ack"] = parse_ack(json.loads(msg.payload))
        except ValueError:
            box["ack"] = None
        if box["ack"] is None:
            box["why"] = f"the floor's acknowledgement is malformed: {msg.payload[:80]!r}"
        got.set()

    host, port = parse_broker(settings.broker)
    client = make_client(table_id, Path(settings.ca), Path(settings.cert), Path(settings.key),
                         clean=False, manual_ack=True)
    client.on_connect = connected
    client.on_message = message
    client.connect_async(host, port, keepalive=10)
    client.loop_start()
    try:
        got.wait(deadline_s)
    finally:
        client.disconnect()
        client.loop_stop()
    ack = box.get("ack")
    if isinstance(ack, Witness):
        return WitnessRead(ack)
    why = box.get("why") or (
        f"the floor holds no acknowledgement for table {table_id} (none within "
        f"{deadline_s:g} s)" if box.get("connected") else
        f"the floor's broker {settings.broker} did not answer within {deadline_s:g} s")
    return WitnessRead(None, str(why))
