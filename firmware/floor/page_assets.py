"""The pit view's style sheet and the script every page shares (a tile, money, the
health banner), served from ``/static/`` by the pit view itself (the pages' CSP allows no
inline script or style, and nothing from anywhere else)."""

from __future__ import annotations

STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#10231a;color:#eee}
header{display:flex;justify-content:space-between;align-items:center;padding:.5em 1em;
 background:#0a1710;gap:1em}
header form{display:inline}
a{color:#9fd}
main{padding:.8em 1em}
#banner{display:none;background:#b00020;color:#fff;padding:.5em 1em;font-weight:bold}
#banner.show{display:block}
#summary{display:flex;flex-wrap:wrap;gap:.4em 1.2em;align-items:center;background:#0d2e20;
 padding:.5em .8em;border-radius:.4em;margin-bottom:.6em}
#summary b{font-size:1.15em}
.controls{display:flex;flex-wrap:wrap;gap:.6em;align-items:center;margin:.4em 0}
.legend{display:flex;flex-wrap:wrap;gap:.8em;font-size:.85em;margin:.3em 0 .6em}
.legend span{display:inline-flex;align-items:center;gap:.3em}
.sw{display:inline-block;width:1em;height:1em;border-radius:.2em;border:2px solid transparent}
#tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(13.5em,1fr));gap:.6em;
 align-items:start}
.tile{display:block;background:#1d4a33;border-radius:.5em;padding:.55em .7em;
 text-decoration:none;color:#eee;border:3px solid transparent;font-size:.92em;
 contain:content}
.tile h2{margin:0 0 .25em;font-size:1.1em;display:flex;justify-content:space-between}
.tile .state{font-size:.75em;font-weight:normal;padding:0 .4em;border-radius:.3em;
 background:#0006}
.tile.tilted{background:#b00020;border-color:#ff5252}
.tile.closed{background:#444}
.tile.offline{opacity:.55;border-style:dashed;border-color:#888}
.tile.quarantined{background:#5e2a84;border-color:#ce93d8}
.tile.alarm{border-color:#ffab00;border-style:solid}
.tile .note{color:#ffd180}
.broker-down .tile{filter:grayscale(.8)}
.hidden{display:none!important}
table{border-collapse:collapse;margin:.4em 0}
td,th{padding:.2em .6em;border-bottom:1px solid #345;text-align:right}
th:first-child,td:first-child{text-align:left}
ul.feed{list-style:none;padding:0;max-height:24em;overflow:auto;font-family:monospace;
 font-size:.9em}
ul.feed li{padding:.1em 0;border-bottom:1px solid #234}
#alarms{max-height:14em;overflow:auto;margin:.3em 0 .8em}
#alarms li.open{color:#ffab00}
#alarms li.done{color:#999}
.alarm-line{color:#ffab00;font-weight:bold}
button{font-size:1em;padding:.35em .9em}
.grid{display:grid;grid-template-columns:minmax(20em,1fr) minmax(20em,1fr);gap:1em}
dialog{background:#1d4a33;color:#eee;border:2px solid #ffab00;border-radius:.5em}
dialog input{width:22em;font-size:1em}
form.inline{display:inline}
.pager{font-size:.9em;margin:.2em 0}
.sw-open{background:#1d4a33}.sw-closed{background:#444}.sw-tilted{background:#b00020}
.sw-offline{background:#1d4a33}.sw-quarantined{background:#5e2a84}
.sw-alarm{border-color:#ffab00}
"""

#: colours of the legend, in the order the summary counts the states
STATES = (
    ("open", "#1d4a33", "open: taking wagers"),
    ("closed", "#444", "closed by the floor"),
    ("tilted", "#b00020", "tilted (paused by a fault)"),
    ("offline", "#1d4a33", "offline (faded, dashed): last known state shown"),
    ("quarantined", "#5e2a84", "quarantined: its messages are dropped"),
)

COMMON_JS = r"""
function money(c){ if (c === null || c === undefined) return '–';
  const a = Math.abs(c), d = Math.floor(a / 100), r = String(a % 100).padStart(2, '0');
  return (c < 0 ? '-' : '') + '$' + d.toLocaleString('en-US') + '.' + r; }
function pct(v){ return v === null || v === undefined ? '–' : v.toFixed(1) + ' %'; }
function stateOf(t){ return t.quarantined ? 'quarantined' : !t.online ? 'offline'
  : t.tilt ? 'tilted' : t.closed ? 'closed' : 'open'; }
function tileHtml(t, el){
  const s = stateOf(t);
  el.className = 'tile ' + s + (t.alarms && t.alarms.length ? ' alarm' : '');
  el.dataset.state = s; el.dataset.game = t.variant || '';
  el.replaceChildren();
  const h = document.createElement('h2'); const n = document.createElement('span');
  n.textContent = t.table; const st = document.createElement('span');
  st.className = 'state'; st.textContent = s; h.append(n, st); el.appendChild(h);
  const line = (txt, cls) => { const d = document.createElement('div');
    d.textContent = txt; if (cls) d.className = cls; el.appendChild(d); };
  line(t.variant || t.phase ? (t.variant || '?') + ' · ' + (t.phase || '?') + ' · round '
       + (t.round ?? '?') : 'no status received yet');
  const day = t.day || {};
  line('drop ' + money(day.drop) + ' · win ' + money(day.win) + ' · hold ' + pct(day.hold));
  if (!t.online) line((t.since ? 'offline since ' + t.since + ' · ' : 'offline · ')
                      + 'last seen ' + (t.last_seen || 'never'), 'note');
  else line('last seen ' + (t.last_seen || '–'));
  if (t.tilt) line('TILT: ' + (t.tilt.cause || t.tilt.code), 'tilt-line');
  if (t.closed) line('TABLE CLOSED');
  if (t.quarantined) line('QUARANTINED: its messages are dropped', 'note');
  const kinds = [...new Set((t.alarms || []).map(a => a.kind))];
  if (kinds.length) line('ALARM: ' + kinds.join(', '), 'alarm-line');
}
function showHealth(h){
  const b = document.getElementById('banner'); const msgs = [];
  if (h.fault) msgs.push('FLOOR SERVICE FAULT: ' + h.fault
    + ': the service is restarting; what is shown may be stale');
  if (!h.broker) msgs.push('broker unreachable since ' + h.broker_since_text
    + ': tiles show what the floor last knew');
  if (h.lag_s) msgs.push('the floor is ' + Math.round(h.lag_s)
    + ' s behind the tables: tiles show what they reported that long ago');
  for (const w of h.warnings || []) msgs.push(w);
  if (!h.database) msgs.push('floor database unreachable since ' + h.database_since_text
    + ' (' + h.database_error + '): tables wait, nothing is lost');
  b.textContent = msgs.join(' · '); b.classList.toggle('show', msgs.length > 0);
  document.body.classList.toggle('broker-down', !h.broker || !!h.fault);
}
const PAGE = JSON.parse(document.getElementById('page-data').textContent);
showHealth(PAGE.health);
"""
