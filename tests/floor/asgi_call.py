"""A minimal ASGI client for the pit view's tests (no HTTP library needed): one request
in, the status, headers and body out."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlencode


def call(app: Any, method: str, path: str, form: dict[str, str] | None = None,
         cookie: str = "", client: str = "127.0.0.1") -> tuple[int, dict[str, str], bytes]:
    body = urlencode(form).encode() if form is not None else b""
    path, _, query = path.partition("?")
    headers = [(b"host", b"testserver")]
    if form is not None:
        headers.append((b"content-type", b"application/x-www-form-urlencoded"))
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    scope = {"type": "http", "http_version": "1.1", "method": method, "path": path,
             "raw_path": path.encode(), "query_string": query.encode(), "headers": headers,
             "client": (client, 5555), "server": ("testserver", 80), "scheme": "http",
             "root_path": ""}
    sent: list[dict[str, Any]] = []
    fed = False

    async def receive() -> dict[str, Any]:
        nonlocal fed
        if not fed:
            fed = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    try:
        asyncio.run(app(scope, receive, send))
    except Exception:  # a server error: Starlette re-raises after sending its 500
        if not sent:
            raise
    start = next(m for m in sent if m["type"] == "http.response.start")
    out = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return (int(start["status"]),
            {k.decode().lower(): v.decode() for k, v in start.get("headers", [])}, out)
