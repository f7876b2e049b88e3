"""The floor page's script: tiles, summary, filters, sort and alarms, kept live.

Tile updates arrive as server-sent events, one per table per change; they are kept in a
map and drawn at most once a frame, so a floor of 1,000 tables playing stays responsive.
The summary counts what the tiles say (each table in exactly one state); simulated tables
(load tests) are left out of it and hidden unless asked for ("N of M tables shown" counts
the simulated ones in M while they are shown). A table whose meters are under an open
``meters`` alarm (implausible: unbalanced, totals not the seats', a jump) is counted but
its drop and win are left out, and the summary says how many were. Served as
``/static/pit.js``; its data is the page's JSON data element (``PAGE``, read by the
common script).
"""

PIT_JS = r"""
const CSRF = PAGE.csrf, initial = PAGE.tiles;
const tiles = new Map(), dirty = new Set(), box = document.getElementById('tiles');
const F = {state: document.getElementById('f-state'), game: document.getElementById('f-game'),
  sort: document.getElementById('f-sort'), sim: document.getElementById('f-sim')};
let frame = false, resort = true;
const ORDER = {quarantined: 0, tilted: 1, offline: 2, closed: 3, open: 4};
function visible(t){
  if (t.simulated && !F.sim.checked) return false;
  const s = stateOf(t);
  if (F.state.value === 'alarm') { if (!(t.alarms && t.alarms.length)) return false; }
  else if (F.state.value && F.state.value !== s) return false;
  return !F.game.value || F.game.value === (t.variant || '');
}
function key(t){
  const d = t.day || {};
  switch (F.sort.value) {
    case 'state': return [ORDER[stateOf(t)], t.table];
    case 'drop': return [-(d.drop || 0), t.table];
    case 'win': return [-(d.win || 0), t.table];
    case 'seen': return [t.last_seen || '', t.table];
    default: return [t.table];
  }
}
function cmp(a, b){ const x = key(a), y = key(b);
  for (let i = 0; i < x.length; i++) { if (x[i] < y[i]) return -1; if (x[i] > y[i]) return 1; }
  return 0; }
function el(t){
  let e = document.getElementById('tile-' + t.table);
  if (!e) { e = document.createElement('a'); e.id = 'tile-' + t.table;
    e.href = '/table/' + encodeURIComponent(t.table); box.appendChild(e); resort = true; }
  return e;
}
function summary(){
  const n = {open: 0, closed: 0, tilted: 0, offline: 0, quarantined: 0};
  let drop = 0, win = 0, alarms = 0, shown = 0, all = 0, listed = 0, unverified = 0;
  const games = new Set();
  for (const t of tiles.values()) {
    if (t.variant) games.add(t.variant);
    if (!t.simulated || F.sim.checked) listed++;
    if (t.simulated) continue;
    all++; n[stateOf(t)]++;
    if (t.meters_unverified) unverified++;
    else { drop += (t.day || {}).drop || 0; win += (t.day || {}).win || 0; }
    if (t.alarms && t.alarms.length) alarms++;
  }
  for (const e of box.children) if (!e.classList.contains('hidden')) shown++;
  const s = document.getElementById('summary'); s.replaceChildren();
  const part = (label, v, id) => { const sp = document.createElement('span');
    const b = document.createElement('b'); b.textContent = v; b.id = 'sum-' + id;
    sp.append(b, ' ' + label); s.appendChild(sp); };
  for (const k of Object.keys(n)) part(k, n[k], k);
  part('with alarms', alarms, 'alarms');
  part('drop today', money(drop), 'drop'); part('win today', money(win), 'win');
  part('hold', drop > 0 ? (100 * win / drop).toFixed(1) + ' %' : '–', 'hold');
  part('with meters under alarm (left out of drop and win)', unverified, 'unverified');
  document.getElementById('shown').textContent = shown + ' of ' + listed + ' tables shown'
    + (listed !== all ? ' (' + (listed - all) + ' simulated)' : '');
  const g = F.game; const have = new Set([...g.options].map(o => o.value));
  for (const v of [...games].sort()) if (!have.has(v)) g.add(new Option(v, v));
}
function draw(){
  frame = false;
  for (const id of dirty) { const t = tiles.get(id); const e = el(t); tileHtml(t, e);
    e.classList.toggle('hidden', !visible(t)); }
  dirty.clear();
  if (resort) { resort = false;
    const order = [...tiles.values()].sort(cmp);
    for (const t of order) box.appendChild(document.getElementById('tile-' + t.table)); }
  summary();
}
function later(){ if (!frame) { frame = true; requestAnimationFrame(draw); } }
function put(t){ const was = tiles.get(t.table); tiles.set(t.table, t); dirty.add(t.table);
  if (F.sort.value !== 'table' && (!was || cmp(was, t) !== 0)) resort = true; later(); }
function refilter(){ for (const t of tiles.values()) dirty.add(t.table); resort = true; later(); }
for (const f of Object.values(F)) f.addEventListener('change', refilter);
initial.forEach(put);
let openAlarms = Number(document.getElementById('alarm-count').textContent);
function alarmItem(a){
  let li = document.getElementById('alarm-' + a.id);
  const was = li ? li.className : null;
  if (!li && !PAGE.first_alarms_page) { if (!a.ack_at) openAlarms++; }
  else if (!li) { li = document.createElement('li'); li.id = 'alarm-' + a.id;
    const ul = document.getElementById('alarms'); ul.insertBefore(li, ul.firstChild);
    while (ul.children.length > 200) ul.removeChild(ul.lastChild); }
  if (li) { li.replaceChildren(a.line); li.className = a.ack_at ? 'done' : 'open';
    if (!a.ack_at && PAGE.supervisor) { const f = document.createElement('form');
      f.method = 'post'; f.action = '/alarm/' + a.id + '/acknowledge'; f.className = 'inline';
      const c = document.createElement('input'); c.type = 'hidden'; c.name = 'csrf';
      c.value = CSRF; const b = document.createElement('button'); b.className = 'ack';
      const r = document.createElement('input'); r.name = 'reason'; r.maxLength = 200;
      r.placeholder = 'reason (a rollback needs one)';
      b.textContent = 'acknowledge'; f.append(c, r, b); li.append(' ', f); }
    if (was === null && !a.ack_at) openAlarms++;
    if (was === 'open' && a.ack_at) openAlarms--; }
  document.getElementById('alarm-count').textContent = Math.max(openAlarms, 0);
  if (!a.ack_at) document.getElementById('alarm-box').open = true;
}
const es = new EventSource('/live');
es.addEventListener('tile', e => put(JSON.parse(e.data)));
es.addEventListener('alarm', e => alarmItem(JSON.parse(e.data)));
es.addEventListener('health', e => showHealth(JSON.parse(e.data)));
"""
