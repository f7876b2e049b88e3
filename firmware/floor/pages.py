"""The pit view's HTML: the layout every page shares, the login page and the floor page
(summary, alarms, filters, legend, tiles); a table's page is :mod:`firmware.floor.table_html`.

Server-rendered, then kept live by a small script that listens to ``/live`` (server-sent
events) and redraws what changed, at most once a frame (a floor of 1,000 tables sends a
tile update per table per round: the page batches them); no framework in the page, nothing
fetched from elsewhere. No script is inline (the Content-Security-Policy allows only the
pit view's own ``/static/`` scripts): a page's data goes in one JSON data element,
written by :func:`firmware.floor.escape.script_json`; every text by
:func:`firmware.floor.escape.text` on the server and ``textContent`` in the page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from firmware.floor import pit_text
from firmware.floor.escape import script_json
from firmware.floor.escape import text as esc
from firmware.floor.page_assets import STATES


def page(title: str, body: str, who: str | None = None, csrf: str = "",
         health: dict[str, Any] | None = None, data: dict[str, Any] | None = None,
         scripts: tuple[str, ...] = (), role: str = "") -> str:
    head = ""
    if who:
        head = (f'<span>{esc(who)} ({esc(role or "supervisor")})</span> '
                '<form method="post" action="/logout" class="inline">'
                f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
                '<button id="logout">log out</button></form>')
    tail = ""
    if health is not None:
        payload = {**(data or {}), "health": health}
        tail = (f"<script type='application/json' id='page-data'>{script_json(payload)}"
                "</script><script src='/static/common.js'></script>"
                + "".join(f"<script src='/static/{s}'></script>" for s in scripts))
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{esc(title)}</title><link rel='stylesheet' href='/static/pit.css'></head>"
        f"<body><header><a href='/'><b>ETG floor</b></a><span>{esc(title)}</span>"
        f"<span>times: {esc(pit_text.zone())}</span><span>{head}</span></header>"
        f"<div id='banner' role='alert'></div><main>{body}</main>{tail}</body></html>"
    )


def login_page(error: str = "") -> str:
    err = f"<p class='alarm-line'>{esc(error)}</p>" if error else ""
    return page("log in", f"""{err}
<form method="post" action="/login">
<p><label>name <input name="name" id="name" autocomplete="username"></label></p>
<p><label>password <input name="password" id="password" type="password"
 autocomplete="current-password"></label></p>
<p><button id="login">log in</button></p></form>""")


def _legend() -> str:
    items = "".join(f"<span><i class='sw sw-{s}'></i>{esc(text)}</span>"
                    for s, _color, text in STATES)
    return (f"<div class='legend' id='legend'>{items}<span><i class='sw sw-alarm'>"
            "</i>amber border: an alarm to acknowledge</span>"
            "<span>drop: credits in today · win: coin in − coin out today · hold: win ÷ drop"
            " (docs/floor.md, \"The gaming day\")</span></div>")


def _state_options() -> str:
    return "".join(f'<option value="{s}">{s}</option>' for s, _c, _t in STATES)


def alarm_item(a: dict[str, Any], csrf: str, supervisor: bool = True) -> str:
    if a.get("ack_at") or not supervisor:
        cls = "done" if a.get("ack_at") else "open"
        return f"<li class='{cls}' id='alarm-{esc(a['id'])}'>{esc(a['line'])}</li>"
    return (f"<li class='open' id='alarm-{esc(a['id'])}'>{esc(a['line'])} "
            f"<form method='post' action='/alarm/{esc(a['id'])}/acknowledge' class='inline'>"
            f"<input type='hidden' name='csrf' value='{esc(csrf)}'>"
            "<input name='reason' maxlength='200' placeholder='reason (a rollback needs one)'>"
            "<button class='ack'>acknowledge</button></form></li>")


def _pager(al: dict[str, Any]) -> str:
    """Newest first: the page, the total, links to the pages before and after, the
    filters (table, kind, open or acknowledged) as a GET form."""
    def link(p: int, label: str) -> str:
        q = urlencode({"alarms_page": p, "alarms_table": al["table"],
                       "alarms_kind": al["kind"], "alarms_state": al["state"]})
        return f"<a href='/?{esc(q)}' id='alarms-{label}'>{label}</a>"

    prev = link(al["page"] - 1, "newer") if al["page"] > 1 else ""
    nxt = link(al["page"] + 1, "older") if al["page"] < al["pages"] else ""
    states = "".join(f"<option value='{s}'{' selected' if s == al['state'] else ''}>{s}"
                     "</option>" for s in ("all", "open", "acknowledged"))
    return (f"<p class='pager'>newest first · <b id='alarm-total'>{al['total']}</b> "
            f"shown by the filter · page {al['page']} of {al['pages']} {prev} {nxt}</p>"
            "<form method='get' action='/' class='controls' id='alarm-filter'>"
            f"<label>table <input name='alarms_table' value='{esc(al['table'])}' size='8'>"
            f"</label><label>kind <input name='alarms_kind' value='{esc(al['kind'])}' "
            f"size='10'></label><label>state <select name='alarms_state'>{states}</select>"
            "</label><button>filter</button></form>")


def floor_page(tiles: list[dict[str, Any]], alarms: dict[str, Any], who: str,
               csrf: str, health: dict[str, Any], role: str = "supervisor") -> str:
    opened = alarms["open"]
    sup = role == "supervisor"
    items = "".join(alarm_item(a, csrf, sup) for a in alarms["items"])
    body = f"""<div id="summary" aria-live="polite"></div>
<details id="alarm-box" {'open' if opened else ''}><summary>alarms: <b id="alarm-count">{opened}
</b> to acknowledge</summary>{_pager(alarms)}<ul class="feed" id="alarms">{items}</ul></details>
<div class="controls">
<label>state <select id="f-state"><option value="">all</option>
{_state_options()}<option value="alarm">with an alarm</option></select></label>
<label>game <select id="f-game"><option value="">all</option></select></label>
<label>sort <select id="f-sort"><option value="table">table</option>
<option value="state">state</option><option value="drop">drop</option>
<option value="win">win</option><option value="seen">last seen</option></select></label>
<label><input type="checkbox" id="f-sim"> simulated tables (load tests)</label>
<span id="shown"></span></div>
{_legend()}
<div id="tiles"></div>"""
    return page("pit view", body, who, csrf, health,
                {"csrf": csrf, "tiles": tiles, "supervisor": sup,
                 "first_alarms_page": alarms["page"] == 1}, ("pit.js",), role)
