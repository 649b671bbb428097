// The Fleet tab: every scope as a grid of update domains by VMs, each VM a
// button coloured and labelled by its state. Only one page of scopes is in
// the DOM (at most PAGE_SCOPES scopes and about PAGE_CELLS VM buttons), so
// a fleet of 10,000 VMs costs no more to draw than one of 2,000; a scope's
// card is rebuilt only when that scope changed.

import { $, h, key, plural, reconcile, setText } from './dom.js';
import { VM_STATES, revision, scopeKeys, scopeView, totals } from './state.js';
import { countdownEl } from './events.js';

const PAGE_SCOPES = 50;
const PAGE_CELLS = 2000;

const KINDS = {
  'availability-set': 'availability set',
  'scale-set': 'scale set',
  'cloud-service': 'cloud service',
  standalone: 'standalone',
};

const filter = { text: '', state: 'all', busy: false };
let page = 0;
let cards = new Map(); // scope key -> {sig, el}
let drawn = { rev: -1, filters: -1 };
let filtersRev = 0;
let invalidate = () => {};

/** setupFleet wires the filters, pager, legend and grid. */
export function setupFleet(opts) {
  invalidate = opts.invalidate;
  const onFilter = () => {
    filter.text = key($('#filter-scope').value.trim());
    filter.state = $('#filter-state').value;
    filter.busy = $('#filter-busy').checked;
    page = 0;
    filtersRev++;
    invalidate();
  };
  $('#filter-scope').addEventListener('input', onFilter);
  $('#filter-state').addEventListener('change', onFilter);
  $('#filter-busy').addEventListener('change', onFilter);
  $('#fleet-prev').addEventListener('click', () => turn(-1));
  $('#fleet-next').addEventListener('click', () => turn(1));
  $('#legend').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-filter-state]');
    if (!b) return;
    const s = b.dataset.filterState;
    $('#filter-state').value = filter.state === s ? 'all' : s;
    onFilter();
  });
  const grid = $('#fleet-grid');
  grid.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-vm]');
    if (b) opts.openVM(b.dataset.vm, b);
  });
  grid.addEventListener('keydown', moveFocus);
  buildLegend();
}

function turn(delta) {
  page += delta;
  filtersRev++;
  invalidate();
  $('#fleet').scrollIntoView({ block: 'start' });
}

/** renderFleet draws the current page if the fleet or the filters changed. */
export function renderFleet() {
  if (drawn.rev === revision() && drawn.filters === filtersRev) return;
  if (drawn.filters !== filtersRev) cards = new Map();
  drawn = { rev: revision(), filters: filtersRev };
  const list = matching();
  const starts = pageStarts(list);
  page = Math.min(Math.max(page, 0), starts.length - 1);
  const from = starts[page] ?? 0;
  const to = starts[page + 1] ?? list.length;
  cards = reconcile($('#fleet-grid'), cards, list.slice(from, to), (s) => s.k, (s) => s.view, buildCard);
  drawPager(from, to, list.length, starts.length);
  drawLegend();
}

// matching lists the scopes the filters select, in name order, each with
// how many of its cells will be drawn.
function matching() {
  const out = [];
  for (const k of scopeKeys()) {
    const view = scopeView(k);
    if (filter.text && !key(view.scope.name).includes(filter.text)) continue;
    if (filter.busy && view.events.length === 0) continue;
    const n = filter.state === 'all' ? view.cells.length : view.counts[filter.state];
    if (filter.state !== 'all' && n === 0) continue;
    out.push({ k, view, n: Math.min(n, PAGE_CELLS) });
  }
  return out;
}

// pageStarts cuts the list into pages of at most PAGE_SCOPES scopes and
// about PAGE_CELLS cells; a page always holds at least one scope.
function pageStarts(list) {
  const starts = [0];
  let scopes = 0;
  let cells = 0;
  list.forEach((s, i) => {
    if (scopes > 0 && (scopes === PAGE_SCOPES || cells + s.n > PAGE_CELLS)) {
      starts.push(i);
      scopes = 0;
      cells = 0;
    }
    scopes++;
    cells += s.n;
  });
  return starts;
}

function drawPager(from, to, total, pages) {
  const filtered = filter.text || filter.state !== 'all' || filter.busy;
  let text = `Scopes ${from + 1}-${to} of ${total}`;
  if (total === 0) text = filtered ? 'No scope matches the filters' : 'No scopes';
  setText($('#fleet-page'), text);
  $('#fleet-prev').disabled = page <= 0;
  $('#fleet-next').disabled = page >= pages - 1;
  $('#fleet-empty').hidden = total > 0;
}

// The legend doubles as a quick state filter; its counts are the fleet's.
function buildLegend() {
  const items = VM_STATES.map((s) => h('li', {},
    h('button', { type: 'button', class: 'legend-item', 'data-filter-state': s, 'aria-pressed': 'false' },
      h('span', { class: `swatch s-${s}`, 'aria-hidden': 'true' }),
      h('span', { text: s }),
      h('span', { class: 'legend-count', text: '0' }))));
  $('#legend').replaceChildren(...items);
}

function drawLegend() {
  const t = totals();
  for (const b of $('#legend').querySelectorAll('button[data-filter-state]')) {
    const s = b.dataset.filterState;
    setText(b.querySelector('.legend-count'), String(t[s]));
    b.setAttribute('aria-pressed', String(filter.state === s));
  }
}

// buildCard draws one scope: a header that says which update domains are
// hit, then one row of VM buttons per update domain.
function buildCard({ view, n }) {
  const wide = view.rows.some((r) => r.length > 4) || n > 16;
  const card = h('article', {
    class: wide ? 'scope wide' : 'scope',
    'data-scope': view.scope.name,
    'data-busy': view.startedUDs.length ? 'started' : view.scheduledUDs.length ? 'scheduled' : false,
    'aria-label': `Scope ${view.scope.name}`,
  });
  card.append(buildHead(view), buildRows(view, n));
  return card;
}

function buildHead(view) {
  const { scope } = view;
  const live = view.cells.length - view.counts.deleted;
  const head = h('header', { class: 'scope-head' },
    h('h3', { class: 'scope-name', text: scope.name, title: scope.name }),
    h('span', { class: 'scope-meta', text: `${KINDS[scope.kind] ?? scope.kind} · ${plural(live, 'VM')} · ${scope.updateDomains} UD · ${scope.faultDomains} FD` }));
  const started = view.startedUDs;
  const scheduled = view.scheduledUDs.filter((ud) => !started.includes(ud));
  if (started.length) head.append(badge('hit', `UD ${started.join(', ')} in maintenance`));
  if (scheduled.length) {
    const next = soonest(view.events);
    const b = badge('sched', `UD ${scheduled.join(', ')} scheduled`);
    if (next) b.append(', ', countdownEl(next));
    head.append(b);
  }
  if (!scope.enabled) {
    head.append(badge('quiet', 'no notice',
      'No VM of this scope has asked for its events lately: its events start at once, without notice.'));
  }
  return head;
}

// soonest is the Scheduled event of a scope that comes due first.
function soonest(events) {
  let best = null;
  for (const e of events) {
    if (e.status === 'Scheduled' && (!best || Date.parse(e.notBefore) < Date.parse(best.notBefore))) best = e;
  }
  return best;
}

function badge(kind, text, title) {
  return h('span', { class: `badge badge-${kind}`, text, title });
}

// buildRows draws the update-domain rows; under a state filter, only the
// matching VMs and the rows holding them. A scope too large for one page
// (over PAGE_CELLS VMs) shows its first PAGE_CELLS and counts the rest.
function buildRows(view, limit) {
  const body = h('div', { class: 'uds' });
  let room = limit;
  let hidden = 0;
  view.rows.forEach((cells, ud) => {
    const shown = filter.state === 'all' ? cells : cells.filter((c) => c.state === filter.state);
    if (filter.state !== 'all' && shown.length === 0) return;
    if (room <= 0) {
      hidden += shown.length;
      return;
    }
    body.append(udRow(view, ud, shown.slice(0, room)));
    hidden += Math.max(0, shown.length - room);
    room -= shown.length;
  });
  if (hidden) body.append(h('p', { class: 'truncated', text: `${hidden} more VMs not shown: filter by state to narrow.` }));
  if (view.cells.length === 0) body.append(h('p', { class: 'ud-empty', text: 'No VMs in this scope.' }));
  return body;
}

// udRow is one update domain: its label, marked when an event hits it, and
// its VMs.
function udRow(view, ud, cells) {
  const hit = view.startedUDs.includes(ud) ? 'started' : view.scheduledUDs.includes(ud) ? 'scheduled' : false;
  const group = h('div', { class: 'cells', role: 'group', 'aria-label': `${view.scope.name}, update domain ${ud}` },
    ...cells.map(cell));
  if (cells.length === 0) group.append(h('span', { class: 'ud-empty', text: 'no VMs' }));
  return h('div', { class: 'ud', 'data-ud': ud, 'data-hit': hit },
    h('span', { class: 'ud-label', text: `UD ${ud}` }), group);
}

function cell(c) {
  const { vm } = c;
  return h('button', {
    type: 'button',
    class: vm.priority === 'Spot' ? 'vm spot' : 'vm',
    'data-vm': vm.name,
    'data-state': c.state,
    'aria-label': `${vm.name}: ${c.state}, update domain ${vm.updateDomain}, fault domain ${vm.faultDomain}`,
    title: vm.priority === 'Spot' ? `${vm.name} (Spot)` : vm.name,
  },
  h('span', { class: 'vm-name', text: vm.name }),
  h('span', { class: 'vm-fd', text: `FD${vm.faultDomain}` }));
}

// moveFocus lets arrow keys walk the grid: left and right along the page's
// VMs, up and down to the same place in the neighbouring update domain,
// Home and End to the ends of the row.
function moveFocus(ev) {
  const from = ev.target.closest?.('button[data-vm]');
  if (!from) return;
  const row = from.closest('.cells');
  const inRow = [...row.querySelectorAll('button[data-vm]')];
  const i = inRow.indexOf(from);
  let to = null;
  if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
    const all = [...$('#fleet-grid').querySelectorAll('button[data-vm]')];
    to = all[all.indexOf(from) + (ev.key === 'ArrowLeft' ? -1 : 1)];
  } else if (ev.key === 'ArrowUp' || ev.key === 'ArrowDown') {
    const rows = [...$('#fleet-grid').querySelectorAll('.cells')].filter((r) => r.querySelector('button[data-vm]'));
    const next = rows[rows.indexOf(row) + (ev.key === 'ArrowUp' ? -1 : 1)];
    const cellsThere = next ? [...next.querySelectorAll('button[data-vm]')] : [];
    to = cellsThere[Math.min(i, cellsThere.length - 1)];
  } else if (ev.key === 'Home') {
    to = inRow[0];
  } else if (ev.key === 'End') {
    to = inRow[inRow.length - 1];
  } else {
    return;
  }
  ev.preventDefault();
  to?.focus();
}
