"""The pit view's HTML: a login page, the floor's tiles and a table's page.

Server-rendered, then kept live by a small script that listens to ``/live`` (server-sent
events) and redraws a tile or prepends a feed line; no reload, no framework in the page.
Everything shown is escaped (on the server with ``html.escape``, in the page with
``textContent``).
"""

from __future__ import annotations

import datetime as dt
import json
from html import escape
from typing import Any

from etgcore.money import dollars
from firmware.journal import EventCode

#: the meters that count games, not money (every other meter is integer cents)
COUNT_METERS = ("games_played", "games_voided")

STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#10231a;color:#eee}
header{display:flex;justify-content:space-between;align-items:center;padding:.6em 1em;
 background:#0a1710}
header form{display:inline}
a{color:#9fd}
main{padding:1em}
#tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(14em,1fr));gap:.8em}
.tile{display:block;background:#1d4a33;border-radius:.5em;padding:.7em;text-decoration:none;
 color:#eee;border:3px solid transparent}
.tile h2{margin:0 0 .3em;font-size:1.2em}
.tile.tilt{background:#b00020;border-color:#ff5252}
.tile.closed{background:#444}
.tile.offline{opacity:.55}
.tile.alarm{border-color:#ffab00}
.tag{display:inline-block;padding:0 .4em;border-radius:.3em;background:#0006;margin-right:.3em}
table{border-collapse:collapse;margin:.5em 0}
td,th{padding:.2em .6em;border-bottom:1px solid #345;text-align:right}
th:first-child,td:first-child{text-align:left}
ul.feed{list-style:none;padding:0;max-height:24em;overflow:auto;font-family:monospace}
.alarm-line{color:#ffab00;font-weight:bold}
button{font-size:1em;padding:.4em 1em}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:1em}
"""

TILE_JS = """
function tileHtml(t, el){
  el.className = 'tile' + (t.tilt ? ' tilt' : '') + (t.closed ? ' closed' : '')
    + (t.online ? '' : ' offline') + (t.alarms && t.alarms.length ? ' alarm' : '');
  el.replaceChildren();
  const h = document.createElement('h2'); h.textContent = t.table; el.appendChild(h);
  const line = (txt, cls) => { const d = document.createElement('div');
    d.textContent = txt; if (cls) d.className = cls; el.appendChild(d); };
  line((t.variant || '?') + ' · ' + (t.phase || '?') + ' · round ' + (t.round ?? '?'));
  line('hold ' + (t.hold === null || t.hold === undefined ? '–' : t.hold.toFixed(2) + ' %')
       + ' · games ' + (t.games ?? 0));
  if (t.tilt) line('TILT: ' + (t.tilt.cause || t.tilt.code), 'tilt-line');
  if (t.closed) line('TABLE CLOSED');
  if (!t.online) line('offline');
  for (const a of (t.alarms || [])) line('ALARM ' + a.kind + ': ' + a.detail, 'alarm-line');
}
"""

# the page's live meters, written as the server writes them (etgcore.money.dollars, exact)
METER_JS = "\nconst COUNTS = " + json.dumps(list(COUNT_METERS)) + """;
function meter(k, v){
  if (COUNTS.includes(k)) return v.toLocaleString('en-US');
  const c = Math.abs(v), d = Math.floor(c / 100), r = String(c % 100).padStart(2, '0');
  return (v < 0 ? '-' : '') + '$' + d.toLocaleString('en-US') + '.' + r;
}
"""


def _meter(kind: str, value: int) -> str:
    """A meter as a person reads it: games as a count, money in dollars and cents."""
    return f"{int(value):,}" if kind in COUNT_METERS else dollars(int(value), exact=True)


def _page(title: str, body: str, who: str | None = None, csrf: str = "") -> str:
    head = ""
    if who:
        head = (f'<span>{escape(who)}</span> <form method="post" action="/logout">'
                f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
                '<button id="logout">log out</button></form>')
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<header><a href='/'><b>ETG floor</b></a><span>{escape(title)}</span>"
        f"<span>{head}</span></header><main>{body}</main></body></html>"
    )


def login_page(error: str = "") -> str:
    err = f"<p class='alarm-line'>{escape(error)}</p>" if error else ""
    return _page("log in", f"""{err}
<form method="post" action="/login">
<p><label>name <input name="name" id="name" autocomplete="username"></label></p>
<p><label>password <input name="password" id="password" type="password"
 autocomplete="current-password"></label></p>
<p><button id="login">log in</button></p></form>""")


def tiles_page(tiles: list[dict[str, Any]], who: str, csrf: str) -> str:
    data = json.dumps(tiles).replace("</", "<\\/")
    return _page("pit view", f"""<div id="tiles"></div>
<script>{TILE_JS}
const initial = {data};
const box = document.getElementById('tiles');
function put(t){{
  let el = document.getElementById('tile-' + t.table);
  if (!el) {{
    el = document.createElement('a'); el.id = 'tile-' + t.table;
    el.href = '/table/' + encodeURIComponent(t.table);
    const after = [...box.children].find(c => c.id > el.id);
    box.insertBefore(el, after || null);
  }}
  tileHtml(t, el);
}}
initial.forEach(put);
const es = new EventSource('/live');
es.addEventListener('tile', e => put(JSON.parse(e.data)));
</script>""", who, csrf)


def _when(ts_ns: int) -> str:
    return dt.datetime.fromtimestamp(ts_ns / 1e9, tz=dt.UTC).strftime("%H:%M:%S")


def event_label(code: int | None) -> str:
    try:
        return EventCode(code).label if code is not None else "-"
    except ValueError:
        return str(code)


def event_line(e: dict[str, Any]) -> str:
    body = ", ".join(f"{k}={v}" for k, v in sorted((e.get("body") or {}).items()))
    return f"{_when(int(e['ts_ns']))} #{e['seq']} {event_label(e.get('code'))} {body}"


def round_line(r: dict[str, Any]) -> str:
    rec = r.get("record") or {}
    d = rec.get("dealer") or {}
    seats = " ".join(f"s{s.get('seat')} {dollars(s['net'], sign=True)}"
                     for s in rec.get("seats", []) if isinstance(s.get("net"), int))
    return (f"{_when(int(r['ts_ns']))} round {rec.get('round')} {rec.get('state')}: dealer "
            f"{' '.join(d.get('cards') or [])} {seats}")


def table_page(page: dict[str, Any], who: str, csrf: str) -> str:
    tile = page["tile"]
    tid = escape(tile["table"])
    m = page["meters"] or {}
    rows = "".join(
        f"<tr><td>{escape(k)}</td><td id='m-{escape(k)}'>{_meter(k, m.get(k, 0))}</td></tr>"
        for k in ("games_played", "games_voided", "wagered", "paid", "credits_in",
                  "credits_out", "credits"))
    seats = "".join(
        f"<tr><td>seat {s['seat']}</td><td>{_meter('wagered', s['wagered'])}</td>"
        f"<td>{_meter('paid', s['paid'])}</td><td>{_meter('credits', s['credits'])}</td></tr>"
        for s in m.get("seats", []))
    rounds = "".join(f"<li>{escape(round_line(r))}</li>" for r in page["rounds"])
    events = "".join(f"<li>{escape(event_line(e))}</li>" for e in page["events"])
    cmds = "".join(f"<li>{escape(c['action'])} by {escape(c['by'])} "
                   f"({escape(dt.datetime.fromtimestamp(c['at'], tz=dt.UTC).isoformat())})</li>"
                   for c in page["commands"])
    data = json.dumps(tile).replace("</", "<\\/")
    return _page(f"table {tile['table']}", f"""
<div class="grid"><div>
<div id="tile" class="tile"></div>
<form method="post" action="/table/{tid}/disable" style="display:inline">
<input type="hidden" name="csrf" value="{escape(csrf)}"><button id="disable">disable table</button>
</form>
<form method="post" action="/table/{tid}/enable" style="display:inline">
<input type="hidden" name="csrf" value="{escape(csrf)}"><button id="enable">enable table</button>
</form>
<h3>meters</h3><table>{rows}</table>
<table><tr><th>seat</th><th>wagered</th><th>paid</th><th>credits</th></tr>{seats}</table>
<h3>floor commands</h3><ul id="commands">{cmds}</ul>
</div><div>
<h3>last rounds</h3><ul class="feed" id="rounds">{rounds}</ul>
<h3>events</h3><ul class="feed" id="events">{events}</ul>
</div></div>
<script>{TILE_JS}{METER_JS}
tileHtml({data}, document.getElementById('tile'));
const es = new EventSource('/live?table=' + encodeURIComponent({json.dumps(tile['table'])}));
es.addEventListener('tile', e => tileHtml(JSON.parse(e.data), document.getElementById('tile')));
function prepend(id, text){{ const li = document.createElement('li'); li.textContent = text;
  const ul = document.getElementById(id); ul.insertBefore(li, ul.firstChild);
  while (ul.children.length > 100) ul.removeChild(ul.lastChild); }}
es.addEventListener('event', e => {{ const d = JSON.parse(e.data);
  prepend('events', '#' + d.seq + ' ' + (d.label || d.code) + ' ' + JSON.stringify(d.body)); }});
es.addEventListener('round', e => {{ const d = JSON.parse(e.data); const r = d.record;
  prepend('rounds', 'round ' + r.round + ' ' + r.state); }});
es.addEventListener('meters', e => {{ const m = JSON.parse(e.data);
  for (const k in m) {{ const td = document.getElementById('m-' + k);
    if (td) td.textContent = meter(k, Number(m[k])); }} }});
</script>""", who, csrf)
