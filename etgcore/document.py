"""A report as a list of blocks, written as Markdown and as an HTML page.

A report (the PAR sheet) is built once as blocks — headings, paragraphs, bullet lists,
tables, images, preformatted text — and each form is rendered from the same blocks, so the
Markdown a lab diffs and the HTML page a person reads cannot disagree. The HTML comes from
a Jinja2 template with autoescaping on (:func:`render_html`): a value is text, never
markup, wherever it came from. Inline emphasis is the small Markdown subset both forms
share: ``**strong**`` and ```code```.

Jinja2 is imported only when a page is rendered (the table never renders one).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

_INLINE = re.compile(r"\*\*(.+?)\*\*|`([^`]+)`")


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2
    kind: str = field(default="heading", init=False)


@dataclass(frozen=True)
class Paragraph:
    text: str
    kind: str = field(default="paragraph", init=False)


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]
    kind: str = field(default="bullets", init=False)


@dataclass(frozen=True)
class Table:
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""
    kind: str = field(default="table", init=False)


@dataclass(frozen=True)
class Image:
    src: str
    alt: str
    kind: str = field(default="image", init=False)


@dataclass(frozen=True)
class Preformatted:
    text: str
    kind: str = field(default="pre", init=False)


Block = Heading | Paragraph | Bullets | Table | Image | Preformatted


def table(head: Sequence[Any], rows: Sequence[Sequence[Any]], caption: str = "") -> Table:
    """A :class:`Table` of any values, each cell written with ``str``."""
    return Table(tuple(str(h) for h in head), tuple(tuple(str(c) for c in r) for r in rows),
                 caption)


def inline_html(text: str) -> str:
    """``text`` escaped, with ``**strong**`` and ```code``` as HTML elements."""
    out, at = [], 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[at:m.start()]))
        if m.group(1) is not None:
            out.append(f"<strong>{html.escape(m.group(1))}</strong>")
        else:
            out.append(f"<code>{html.escape(m.group(2))}</code>")
        at = m.end()
    out.append(html.escape(text[at:]))
    return "".join(out)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(title: str, blocks: Sequence[Block]) -> str:
    """The blocks as Markdown (a level-1 heading ``title`` first)."""
    out = [f"# {title}", ""]
    for b in blocks:
        if isinstance(b, Heading):
            out += ["#" * b.level + " " + b.text, ""]
        elif isinstance(b, Paragraph):
            out += [b.text, ""]
        elif isinstance(b, Bullets):
            out += [f"* {item}" for item in b.items] + [""]
        elif isinstance(b, Table):
            if b.caption:
                out += [b.caption, ""]
            out += ["| " + " | ".join(map(_md_cell, b.head)) + " |", "|" + "---|" * len(b.head)]
            out += ["| " + " | ".join(map(_md_cell, r)) + " |" for r in b.rows] + [""]
        elif isinstance(b, Image):
            out += [f"![{b.alt}]({b.src})", ""]
        else:
            out += ["```", b.text, "```", ""]
    return "\n".join(out)


def render_html(package: str, template: str, **context: Any) -> str:
    """``package``'s ``templates/<template>`` (which may extend the core's
    ``page.html.j2`` or ``document.html.j2``) rendered with autoescaping."""
    return _environment(package).get_template(template).render(**context)


def to_html(title: str, blocks: Sequence[Block]) -> str:
    """The blocks as one HTML page (the core's ``document.html.j2``)."""
    return render_html("etgcore", "document.html.j2", title=title, blocks=list(blocks))


@functools.cache
def _environment(package: str) -> Any:
    import jinja2
    from markupsafe import Markup

    loaders = [jinja2.PackageLoader(package, "templates")]
    if package != "etgcore":
        loaders.append(jinja2.PackageLoader("etgcore", "templates"))
    env = jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["inline"] = lambda text: Markup(inline_html(str(text)))
    return env
