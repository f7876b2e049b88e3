"""The floor's escapings: one for HTML text and attributes, one for JSON inside a
``<script>`` element (and the live feed's data), used by every page and the live feed; and
one for a log line (:func:`one_line`).

A table writes strings the pages show (its status, events, rounds, software answers), so
each must stay text whatever it holds. In HTML: ``& < > " '`` become entities. JSON in a
script element is read by the HTML parser before the script sees it: ``</script>`` ends
it early, and ``<!--`` followed by ``<script`` puts the parser in a state where the real
``</script>`` no longer ends it (the audit's status text that blanked the floor page) —
so every ``<``, ``>`` and ``&`` is written as its ``\\u`` escape, which JSON reads back
as the same character; U+2028 and U+2029 too (line terminators to an older script
parser). Nothing else of the page builds HTML from a table's strings: the page's script
sets ``textContent``.
"""

from __future__ import annotations

import html as _html
import json
import logging
from typing import Any

_SCRIPT = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
           "\u2029": "\\u2029"}
_TABLE = str.maketrans(_SCRIPT)


def text(value: Any) -> str:
    """Any value as HTML text or a quoted attribute's value."""
    return _html.escape(str(value), quote=True)


def script_json(value: Any) -> str:
    """JSON that no string inside it can end or break: for a ``<script>`` element's
    content and for the live feed's ``data:`` lines (one line: JSON has no raw newline)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False).translate(_TABLE)


def one_line(value: Any) -> str:
    """Any text as one log line: every character that is not printable (newlines, carriage
    returns, other control characters, U+2028 and U+2029, …) written as its escape, so a
    table's text quoted in a log line (a field name in the schema's refusal) cannot forge
    another line."""
    t = str(value)
    if t.isprintable():
        return t
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in t)


class OneLine(logging.Filter):
    """On a logger: each record's message made one line (:func:`one_line`; a traceback,
    the floor's own, stays as it is)."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        if not msg.isprintable():
            record.msg, record.args = one_line(msg), None
        return True


def one_line_logs(prefix: str = "etg.floor") -> None:
    """Every logger of the floor service (``prefix`` and below) writes one-line messages."""
    names = [prefix] + [n for n in logging.root.manager.loggerDict if n.startswith(prefix + ".")]
    for name in names:
        lg = logging.getLogger(name)
        if not any(isinstance(f, OneLine) for f in lg.filters):
            lg.addFilter(OneLine())
