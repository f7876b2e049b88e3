"""The pit view's HTML: the layout every page shares, the login page and the floor page
(summary, alarms, filters, legend, tiles); a table's page is :mod:`firmware.floor.table_html`.

Server-rendered, then kept live by a small script that listens to ``/live`` (server-sent
events) and redraws what changed, at most once a frame (a floor of 1,000 tables sends a
tile update per table per round: the page batches them); no framework in the page, nothing
fetched from elsewhere. Everything shown is escaped (on the server with ``html.escape``,
in the page with ``textContent``).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from firmware.floor import pit_text
from firmware.floor.page_assets import COMMON_JS, STATES, STYLE
from firmware.floor.pit_script import PIT_JS


def data(value: Any) -> str:
    """JSON for a script element (no ``</script>`` can end it early)."""
    return json.dumps(value).replace("</", "<\\/")


def page(title: str, body: str, who: str | None = None, csrf: str = "",
         health: dict[str, Any] | None = None) -> str:
    head = ""
    if who:
        head = (f'<span>{escape(who)}</span> <form method="post" action="/logout">'
                f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
                '<button id="logout">log out</button></form>')
    init = f"<script>{COMMON_JS}showHealth({data(health)});</script>" if health else ""
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<header><a href='/'><b>ETG floor</b></a><span>{escape(title)}</span>"
        f"<span>times: {escape(pit_text.zone())}</span><span>{head}</span></header>"
        f"<div id='banner' role='alert'></div>{init}<main>{body}</main></body></html>"
    )


def login_page(error: str = "") -> str:
    err = f"<p class='alarm-line'>{escape(error)}</p>" if error else ""
    return page("log in", f"""{err}
<form method="post" action="/login">
<p><label>name <input name="name" id="name" autocomplete="username"></label></p>
<p><label>password <input name="password" id="password" type="password"
 autocomplete="current-password"></label></p>
<p><button id="login">log in</button></p></form>""")


def _legend() -> str:
    items = "".join(f"<span><i class='sw' style='background:{color}'></i>{escape(text)}</span>"
                    for _s, color, text in STATES)
    return (f"<div class='legend' id='legend'>{items}<span><i class='sw' "
            "style='border-color:#ffab00'></i>amber border: an alarm to acknowledge</span>"
            "<span>drop: credits in today · win: coin in − coin out today · hold: win ÷ drop"
            "</span></div>")


def _state_options() -> str:
    return "".join(f'<option value="{s}">{s}</option>' for s, _c, _t in STATES)


def alarm_item(a: dict[str, Any], csrf: str) -> str:
    if a.get("ack_at"):
        return f"<li class='done' id='alarm-{a['id']}'>{escape(a['line'])}</li>"
    return (f"<li class='open' id='alarm-{a['id']}'>{escape(a['line'])} "
            f"<form method='post' action='/alarm/{a['id']}/acknowledge' style='display:inline'>"
            f"<input type='hidden' name='csrf' value='{escape(csrf)}'>"
            "<input name='reason' maxlength='200' placeholder='reason (a rollback needs one)'>"
            "<button class='ack'>acknowledge</button></form></li>")


def floor_page(tiles: list[dict[str, Any]], alarms: list[dict[str, Any]], who: str,
               csrf: str, health: dict[str, Any]) -> str:
    opened = sum(1 for a in alarms if not a.get("ack_at"))
    items = "".join(alarm_item(a, csrf) for a in alarms)
    body = f"""<div id="summary" aria-live="polite"></div>
<details id="alarm-box" {'open' if opened else ''}><summary>alarms: <b id="alarm-count">{opened}
</b> to acknowledge</summary><ul class="feed" id="alarms">{items}</ul></details>
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
<div id="tiles"></div>
<script>const CSRF = {data(csrf)}; const initial = {data(tiles)};
{PIT_JS}</script>"""
    return page("pit view", body, who, csrf, health)
