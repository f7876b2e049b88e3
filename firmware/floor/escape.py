"""The pit view's two escapings, used by every page and the live feed: one for HTML text
and attributes, one for JSON inside a ``<script>`` element (and the live feed's data).

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
