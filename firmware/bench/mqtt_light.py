"""A minimal MQTT 3.1.1 client over TLS on asyncio: what the light simulated tables speak.

Only what a table's traffic needs: CONNECT (clean session), SUBSCRIBE at QoS 1, PUBLISH
at QoS 1 with its PUBACK, incoming PUBLISH at QoS 1 answered with PUBACK, PINGREQ. One
event loop carries hundreds of these on one thread: a paho client per simulated table
costs two threads and most of a millisecond of CPU per round, which on a small machine
leaves the floor under test too little to be measured fairly. Bench tool only: the tables
themselves use paho (:mod:`firmware.floor.mqtt`).
"""

from __future__ import annotations

import asyncio
import ssl
import struct
from collections.abc import Callable
from pathlib import Path

CONNECT, CONNACK, PUBLISH, PUBACK, SUBSCRIBE, SUBACK, PINGREQ, PINGRESP = (
    1, 2, 3, 4, 8, 9, 12, 13)


def _length(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _str(s: str | bytes) -> bytes:
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("!H", len(b)) + b


def packet(kind: int, flags: int, body: bytes) -> bytes:
    return bytes([(kind << 4) | flags]) + _length(len(body)) + body


def tls_context(ca: Path, cert: Path, key: Path) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=str(ca))
    ctx.load_cert_chain(str(cert), str(key))
    return ctx


class LightClient:
    """One connection; ``on_message(topic, payload)`` for what it is sent."""

    def __init__(self, client_id: str, on_message: Callable[[str, bytes], None]) -> None:
        self.client_id = client_id
        self.on_message = on_message
        self._writer: asyncio.StreamWriter | None = None
        self._mid = 0
        self.unacked: dict[int, asyncio.Future[None]] = {}
        self.connected = asyncio.Event()
        self.lost = asyncio.Event()  # set when the connection ends (the keeper reconnects)
        self._reader_task: asyncio.Task[None] | None = None
        self._ping_task: asyncio.Task[None] | None = None

    async def connect(self, host: str, port: int, ctx: ssl.SSLContext,
                      keepalive: int = 30, will: tuple[str, bytes] | None = None) -> None:
        """``will``: (topic, payload) the broker publishes, retained at QoS 1, when this
        connection is lost (a table's ``online`` ``0``)."""
        reader, self._writer = await asyncio.open_connection(host, port, ssl=ctx,
                                                             server_hostname=host)
        flags = 0x02 | (0x04 | 0x08 | 0x20 if will else 0)  # clean; will, QoS 1, retained
        body = _str("MQTT") + bytes([4, flags]) + struct.pack("!H", keepalive) + \
            _str(self.client_id)
        if will:
            body += _str(will[0]) + _str(will[1])
        self._writer.write(packet(CONNECT, 0, body))
        kind, _flags, data = await _read(reader)
        if kind != CONNACK or data[1] != 0:
            raise ConnectionError(f"{self.client_id}: the broker refused (CONNACK {data!r})")
        self._reader_task = asyncio.create_task(self._read_loop(reader))
        self.lost.clear()
        self.connected.set()
        self._ping_task = asyncio.create_task(self._ping(keepalive))

    def _next_mid(self) -> int:
        self._mid = self._mid % 65535 + 1
        return self._mid

    async def subscribe(self, topic: str) -> None:
        assert self._writer is not None
        mid = self._next_mid()
        done = asyncio.get_running_loop().create_future()
        self.unacked[mid] = done
        self._writer.write(packet(SUBSCRIBE, 2, struct.pack("!H", mid) + _str(topic) + b"\x01"))
        await done

    def publish(self, topic: str, payload: bytes, retain: bool = False, qos: int = 1) -> None:
        """QoS 1 (the PUBACK only frees its number: nothing waits on it) or 0."""
        assert self._writer is not None
        if qos == 0:
            self._writer.write(packet(PUBLISH, 1 if retain else 0, _str(topic) + payload))
            return
        mid = self._next_mid()
        self._writer.write(packet(PUBLISH, 0x02 | (1 if retain else 0),
                                  _str(topic) + struct.pack("!H", mid) + payload))

    async def _ping(self, keepalive: int) -> None:
        while self._writer is not None and not self._writer.is_closing():
            await asyncio.sleep(keepalive / 2)
            if self._writer is not None and not self._writer.is_closing():
                self._writer.write(packet(PINGREQ, 0, b""))

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        while True:
            try:
                kind, flags, data = await _read(reader)
            except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, OSError):
                self.connected.clear()
                self.lost.set()
                return
            if kind == PUBLISH:
                tlen = struct.unpack("!H", data[:2])[0]
                topic = data[2:2 + tlen].decode()
                rest = data[2 + tlen:]
                if (flags >> 1) & 3:
                    mid, rest = rest[:2], rest[2:]
                    assert self._writer is not None
                    self._writer.write(packet(PUBACK, 0, mid))
                self.on_message(topic, rest)
            elif kind in (PUBACK, SUBACK):
                fut = self.unacked.pop(struct.unpack("!H", data[:2])[0], None)
                if fut is not None and not fut.done():
                    fut.set_result(None)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.write(packet(14, 0, b""))  # DISCONNECT
            try:
                await self._writer.drain()
                self._writer.close()
                await self._writer.wait_closed()
            except (ConnectionError, ssl.SSLError):
                pass
        for task in (self._reader_task, self._ping_task):
            if task is not None:
                task.cancel()


async def _read(reader: asyncio.StreamReader) -> tuple[int, int, bytes]:
    head = (await reader.readexactly(1))[0]
    n, shift = 0, 0
    while True:
        b = (await reader.readexactly(1))[0]
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    return head >> 4, head & 0x0F, await reader.readexactly(n) if n else b""
