"""A table's page: its tile, the one action that applies (disable with a reason and a
confirmation, or enable), a software check, its meters with readable names, the gaming
day's chart, last rounds, the event feed, the commands sent to it and its checks.

Feed lines are written by the server (:mod:`firmware.floor.pit_text`) on the page and in
every live update alike.
"""

from __future__ import annotations

from typing import Any

from firmware.floor import pit_text
from firmware.floor.command_auth import MAX_REASON
from firmware.floor.escape import text as escape
from firmware.floor.pages import alarm_item, page

_TOTALS = ("games_played", "games_voided", "wagered", "paid", "credits_in", "credits_out",
           "credits")

TABLE_JS = r"""
const TILE = PAGE.tile, CHART = PAGE.chart;
function actions(t){
  if (!PAGE.supervisor) return;
  document.getElementById('disable').classList.toggle('hidden', t.closed);
  document.getElementById('enable-form').classList.toggle('hidden', !t.closed);
  document.getElementById('quarantine').classList.toggle('hidden', !t.quarantined);
}
function showTile(t){ tileHtml(t, document.getElementById('tile')); actions(t); }
showTile(TILE);
if (PAGE.supervisor) {
  const dlg = document.getElementById('confirm-disable');
  document.getElementById('disable').addEventListener('click', () => dlg.showModal());
  document.getElementById('cancel-disable').addEventListener('click', () => dlg.close());
  const qd = document.getElementById('confirm-clear');
  document.getElementById('quarantine').addEventListener('click', () => qd.showModal());
  document.getElementById('cancel-clear').addEventListener('click', () => qd.close());
}
function prepend(id, text){ const li = document.createElement('li'); li.textContent = text;
  const none = document.getElementById(id + '-none'); if (none) none.remove();
  const ul = document.getElementById(id); ul.insertBefore(li, ul.firstChild);
  while (ul.children.length > 100) ul.removeChild(ul.lastChild); }
let chartAt = 0;
function chart(){ const now = Date.now(); if (now - chartAt < 10000) return; chartAt = now;
  document.getElementById('chart').src = CHART + '?t=' + now; }
setInterval(chart, 60000);
const es = new EventSource('/live?table=' + encodeURIComponent(TILE.table));
es.addEventListener('tile', e => showTile(JSON.parse(e.data)));
es.addEventListener('line', e => { const d = JSON.parse(e.data); prepend(d.list, d.text); });
es.addEventListener('meters', e => { const m = JSON.parse(e.data);
  for (const k in m) { const td = document.getElementById('m-' + k);
    if (td) td.textContent = m[k]; } chart(); });
es.addEventListener('health', e => showHealth(JSON.parse(e.data)));
es.addEventListener('alarm', e => { const a = JSON.parse(e.data);
  prepend('table-alarms', a.line); });
"""


def _form(action: str, csrf: str, inner: str, fid: str = "") -> str:
    ident = f" id='{fid}'" if fid else ""
    return (f"<form method='post' action='{action}'{ident} class='inline'>"
            f"<input type='hidden' name='csrf' value='{escape(csrf)}'>{inner}</form>")


def _dialogs(tid: str, base: str, csrf: str) -> str:
    disable = _form(f"{base}/disable", csrf, (
        f"<p>Disable table <b>{escape(tid)}</b>? It finishes the round in play, then takes no "
        "wager until enabled.</p><p><label>reason (journaled by the table) <input "
        f"name='reason' id='reason' required maxlength='{MAX_REASON}'></label></p>"
        "<button id='confirm'>disable the table</button> "
        "<button type='button' id='cancel-disable'>cancel</button>"))
    clear = _form(f"{base}/clear-quarantine", csrf, (
        f"<p>Take table <b>{escape(tid)}</b> out of quarantine? Its messages are accepted "
        "again; the alarms stay.</p><p><label>reason (kept with who and when) <input "
        f"name='reason' id='clear-reason' required maxlength='{MAX_REASON}'></label></p>"
        "<button id='confirm-clear-button'>clear the quarantine"
        "</button> <button type='button' id='cancel-clear'>cancel</button>"))
    return (f"<dialog id='confirm-disable'>{disable}</dialog>"
            f"<dialog id='confirm-clear'>{clear}</dialog>")


def _meters(m: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{escape(pit_text.METER_NAMES[k])}</td>"
        f"<td id='m-{k}'>{pit_text.meter(k, m.get(k, 0))}</td></tr>" for k in _TOTALS)
    seats = "".join(
        f"<tr><td>seat {s['seat']}</td><td>{pit_text.meter('wagered', s['wagered'])}</td>"
        f"<td>{pit_text.meter('paid', s['paid'])}</td>"
        f"<td>{pit_text.meter('credits', s['credits'])}</td></tr>"
        for s in m.get("seats", []))
    return (f"<h3>meters</h3><table>{rows}</table><table><tr><th>seat</th>"
            f"<th>coin in</th><th>coin out</th><th>credits</th></tr>{seats}</table>")


def _list(ident: str, lines: list[str], cls: str = "feed") -> str:
    empty = "" if lines else f"<p class='empty' id='{ident}-none'>none yet</p>"
    return empty + f"<ul class='{cls}' id='{ident}'>" + "".join(
        f"<li>{escape(x)}</li>" for x in lines) + "</ul>"


def _alarms(alarms: list[dict[str, Any]], csrf: str, supervisor: bool) -> str:
    return "".join(alarm_item(a, csrf, supervisor) for a in alarms)


def _actions(tid: str, base: str, csrf: str) -> str:
    """A supervisor's buttons (a viewer gets none: the server refuses them too)."""
    return f"""<p><button id="disable" type="button">disable table…</button>
{_form(f"{base}/enable", csrf, "<button id='enable'>enable table</button>", "enable-form")}
{_form(f"{base}/check-software", csrf, "<button id='check'>check software signature</button>")}
<button id="quarantine" type="button" class="hidden">clear quarantine…</button></p>
{_dialogs(tid, base, csrf)}"""


def table_page(p: dict[str, Any], alarms: list[dict[str, Any]], who: str, csrf: str,
               health: dict[str, Any], role: str = "supervisor") -> str:
    tile = p["tile"]
    tid = tile["table"]
    sup = role == "supervisor"
    base = f"/table/{escape(tid)}"
    evidence = (f"<p>{p['evidence']} evidence records kept (<code>floor_evidence</code>)</p>"
                if p["evidence"] else "")
    body = f"""<div class="grid"><div>
<div id="tile" class="tile"></div>
{_actions(tid, base, csrf) if sup else "<p>(viewer: no actions)</p>"}
<h3>alarms</h3>{"" if alarms else "<p class='empty' id='table-alarms-none'>none</p>"}
<ul class="feed" id="table-alarms">{_alarms(alarms, csrf, sup)}</ul>
{evidence}
<h3>gaming day</h3><img id="chart" src="{base}/chart.svg" alt="drop and win today" width="320"
 height="120">
{_meters(p["meters"] or {})}
<h3>software checks</h3>{_list("checks", p["checks"])}
<h3>floor commands</h3>{_list("commands", p["commands"])}
</div><div>
<h3>last rounds</h3>{_list("rounds", p["rounds"])}
<h3>events</h3>{_list("events", p["events"])}
</div></div>"""
    return page(f"table {tid}", body, who, csrf, health,
                {"tile": tile, "chart": f"/table/{tid}/chart.svg", "supervisor": sup},
                ("table.js",), role)
