"""Logging for every `etg` command: readable lines by default, JSON lines on request.

Everything goes to stderr so that journald collects it on the Pi and stdout stays free
for a command's own output (a stream of RNG bytes, a JSON meter dump).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from typing import Any

_RESERVED = set(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


class JsonLineFormatter(logging.Formatter):
    """One JSON object per record; extra fields passed with ``extra=`` are kept."""

    def format(self, record: logging.LogRecord) -> str:
        obj: dict[str, Any] = {
            "ts": round(record.created, 6),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _RESERVED and not key.startswith("_"):
                plain = isinstance(value, str | int | float | bool | None)
                obj[key] = value if plain else repr(value)
        if record.exc_info:
            obj["exc"] = self.formatException(record.exc_info)
        return json.dumps(obj, separators=(",", ":"))


#: Carries ``--log-json`` to the processes an `etg` command starts (the simulated shoe of
#: `etg run`, the table of `etg bench run --mode hil`), so that one command's stderr is all
#: JSON lines or all readable lines.
ENV_JSON = "ETG_LOG_JSON"


def wants_json(flag: bool) -> bool:
    """``--log-json`` given, or inherited from the `etg` process that started this one."""
    return flag or os.environ.get(ENV_JSON, "") == "1"


def setup_logging(*, json_lines: bool = False, level: str = "INFO") -> None:
    """Configure the root logger once per process (idempotent, safe in tests)."""
    if json_lines:
        os.environ[ENV_JSON] = "1"
    else:
        os.environ.pop(ENV_JSON, None)
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_etg", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler._etg = True  # type: ignore[attr-defined]
    if json_lines:
        handler.setFormatter(JsonLineFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")
        )
    root.addHandler(handler)
    root.setLevel(level.upper())
