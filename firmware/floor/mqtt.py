"""One place that makes paho-mqtt clients: TLS with the floor CA and a client certificate.

paho-mqtt is imported here only, and only when a floor link or the floor service starts.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

from etgcore.errors import UserError


def parse_broker(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"floor broker {text!r}: give host:port, e.g. localhost:8883")
    return host, int(port)


def parse_host_port(text: str, what: str) -> tuple[str, int]:
    """``HOST:PORT`` given to the option ``what`` (``--broker``, ``--http``): the user's
    mistake named with the option, the port's range said when only the number is wrong."""
    host, sep, port = text.rpartition(":")
    if sep and host and port.isascii() and port.isdigit() and not 0 < int(port) < 65536:
        raise UserError(f"{what} {text!r}: the port must be 1 to 65535, not {int(port)}")
    try:
        return parse_broker(text)
    except UserError:
        raise UserError(f"{what} {text!r}: give HOST:PORT") from None


def _draining_client_class() -> Any:
    import select

    import paho.mqtt.client as mqtt

    class DrainingClient(mqtt.Client):
        """paho reads one packet per pass of its network loop when it has nothing of its
        own in flight, so a subscriber that only receives (the floor service, fed by
        every table) tops out at one message per loop pass. This reads on while the
        socket (or its TLS layer) still holds data, up to :data:`DRAIN` packets a pass —
        sending what it owes (PUBACKs, acknowledgements) every :data:`WRITE_EVERY` packets,
        so a long drain never holds them back (the broker stops sending at its in-flight
        limit until they come, and the tables wait for their acknowledgements)."""

        DRAIN = 2000
        WRITE_EVERY = 100

        def loop_read(self, max_packets: int = 1) -> Any:
            rc = super().loop_read(max_packets)
            for i in range(1, self.DRAIN + 1):
                sock = self.socket()
                if rc != mqtt.MQTT_ERR_SUCCESS or sock is None:
                    break
                if i % self.WRITE_EVERY == 0 and self._out_packet:
                    rc = self.loop_write()
                    if rc != mqtt.MQTT_ERR_SUCCESS:
                        break
                pending = getattr(sock, "pending", None)
                if not (pending and pending()) and not select.select([sock], [], [], 0)[0]:
                    break
                rc = super().loop_read(max_packets)
            return rc

    return DrainingClient


def make_client(client_id: str, ca: Path, cert: Path, key: Path, *, clean: bool,
                draining: bool = False, manual_ack: bool = False) -> Any:
    """A paho client (MQTT 3.1.1) that verifies the broker against ``ca`` and presents
    ``cert``; ``clean=False`` keeps a persistent session (QoS 1 messages queued by the
    broker while the client is away); ``draining`` for a client that mostly receives;
    ``manual_ack``: nothing received is acknowledged unless the caller does (a QoS 1
    message left unacknowledged is delivered again to the session's next connection)."""
    try:
        import paho.mqtt.client as mqtt
    except ImportError:
        raise UserError("the floor link needs paho-mqtt: pip install 'etg-firmware[floor]'") \
            from None
    for p in (ca, cert, key):
        if not Path(p).is_file():
            raise UserError(f"{p}: missing (etg floor certs creates the floor's certificates)")
    cls = _draining_client_class() if draining else mqtt.Client
    client = cls(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                 clean_session=clean, protocol=mqtt.MQTTv311, manual_ack=manual_ack)
    client.tls_set(ca_certs=str(ca), certfile=str(cert), keyfile=str(key),
                   cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    client.max_inflight_messages_set(1000)
    client.max_queued_messages_set(0)
    client.reconnect_delay_set(min_delay=1, max_delay=2)
    return client
