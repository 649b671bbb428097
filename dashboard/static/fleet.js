// The Fleet tab: every scope as a grid of update domains by VMs, each VM a
// button coloured and labelled by its state. Only one page of scopes is in
// the DOM (at most PAGE_SCOPES scopes and about PAGE_CELLS VM buttons), so
// a fleet of 10,000 VMs costs no more to draw than one of 2,000; a scope
// larger than a page pages through its own VMs. A scope's card is rebuilt
// only when that scope changed.
//
// Each scope's grid is one Tab stop (a roving tabindex): Tab goes from
// scope to scope, the arrow keys from VM to VM, so that what follows the
// grid is not hundreds of Tab presses away.

import { $, count, h, identity, key, pagedView, plural, reconcile, setText } from './dom.js';
import { VM_STATES, revision, scopeKeys, scopeView, totals } from './state.js';
import { countdownEl } from './events.js';

const PAGE_SCOPES = 50;
const PAGE_CELLS = 2000;

/** KINDS are the scope kinds as the operator reads them. */
export const KINDS = {
  'availability-set': 'availability set',
  'scale-set': 'scale set',
  'cloud-service': 'cloud service',
  standalone: 'standalone',
};

const filter = { text: '', state: 'all', busy: false };
const scopePages = new Map(); // scope key -> page of its VMs, for scopes over PAGE_CELLS
const tabStops = new Map(); // scope key -> vm key of the cell that is the scope's Tab stop
let cards = new Map(); // scope key -> {sig, el}
let view = null;

/** setupFleet wires the filters, pager, legend and grid. */
export function setupFleet(opts) {
  view = pagedView({
    invalidate: opts.invalidate,
    filters: ['#filter-scope', '#filter-state', '#filter-busy'],
    readFilters,
    prev: '#fleet-prev',
    next: '#fleet-next',
    onTurn: () => $('#fleet').scrollIntoView({ block: 'start' }),
  });
  $('#legend').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-filter-state]');
    if (!b) return;
    const s = b.dataset.filterState;
    $('#filter-state').value = filter.state === s ? 'all' : s;
    view.refilter();
  });
  const grid = $('#fleet-grid');
  grid.addEventListener('click', (ev) => {
    const turn = ev.target.closest('button[data-scope-page]');
    if (turn) turnScope(turn);
    const b = ev.target.closest('button[data-vm]');
    if (b) opts.openVM(b.dataset.vm, b);
  });
  grid.addEventListener('keydown', moveFocus);
  grid.addEventListener('focusin', (ev) => {
    const b = ev.target.closest('button[data-vm]');
    if (b) makeTabStop(b);
  });
  buildLegend();
}

function readFilters() {
  filter.text = key($('#filter-scope').value.trim());
  filter.state = $('#filter-state').value;
  filter.busy = $('#filter-busy').checked;
  scopePages.clear();
}

// turnScope shows the previous or next page of one large scope's VMs.
function turnScope(button) {
  const k = key(button.closest('[data-scope]').dataset.scope);
  const delta = button.dataset.scopePage === 'next' ? 1 : -1;
  scopePages.set(k, (scopePages.get(k) ?? 0) + delta);
  view.redraw();
}

/** renderFleet draws the current page if the fleet or the filters changed. */
export function renderFleet() {
  if (!view.stale(revision())) return;
  const list = matching();
  const starts = pageStarts(list);
  const page = view.clamp(starts.length);
  const from = starts[page] ?? 0;
  const to = starts[page + 1] ?? list.length;
  cards = reconcile($('#fleet-grid'), cards, list.slice(from, to), (s) => s.k, cardSig, buildCard);
  drawPager(from, to, list.length, starts.length);
  drawLegend();
}

// A card shows its scope's view (a new object on each change), filtered by
// state, at one page of its VMs.
const cardSig = (s) => `${identity(s.view)}:${filter.state}:${s.page}`;

// matching lists the scopes the filters select, in name order, each with
// the page of its VMs shown and how many cells that page holds.
function matching() {
  const out = [];
  for (const k of scopeKeys()) {
    const v = scopeView(k);
    if (filter.text && !key(v.scope.name).includes(filter.text)) continue;
    if (filter.busy && v.events.length === 0) continue;
    const total = filter.state === 'all' ? v.cells.length : v.counts[filter.state];
    if (filter.state !== 'all' && total === 0) continue;
    const pages = Math.max(1, Math.ceil(total / PAGE_CELLS));
    const page = Math.min(Math.max(scopePages.get(k) ?? 0, 0), pages - 1);
    const n = Math.min(total - page * PAGE_CELLS, PAGE_CELLS);
    out.push({ k, view: v, total, pages, page, n });
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
  let text = `Scopes ${count(from + 1)}-${count(to)} of ${count(total)}`;
  if (total === 0) text = filtered ? 'No scope matches the filters' : 'No scopes';
  setText($('#fleet-page'), text);
  view.drawPager(pages);
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
// hit, the pager of a scope too large for a page, then one row of VM
// buttons per update domain.
function buildCard(s) {
  const v = s.view;
  const wide = v.rows.some((r) => r.length > 4) || s.n > 16;
  const card = h('article', {
    class: wide ? 'scope wide' : 'scope',
    'data-scope': v.scope.name,
    'data-busy': v.startedUDs.length ? 'started' : v.scheduledUDs.length ? 'scheduled' : false,
    'aria-label': `Scope ${v.scope.name}`,
    tabindex: -1,
  });
  card.append(buildHead(v));
  if (s.pages > 1) card.append(scopePager(s));
  card.append(buildRows(s));
  pickTabStop(card, s.k);
  return card;
}

function buildHead(v) {
  const { scope } = v;
  const live = v.cells.length - v.counts.deleted;
  const head = h('header', { class: 'scope-head' },
    h('h3', { class: 'scope-name', text: scope.name, title: scope.name }),
    h('span', { class: 'scope-meta', text: `${KINDS[scope.kind] ?? scope.kind} · ${plural(live, 'VM')} · ${scope.updateDomains} UD · ${scope.faultDomains} FD` }));
  const started = v.startedUDs;
  const scheduled = v.scheduledUDs.filter((ud) => !started.includes(ud));
  if (started.length) head.append(badge('hit', `UD ${started.join(', ')} in maintenance`));
  if (scheduled.length) {
    const next = soonest(v.events);
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

// scopePager pages through the VMs of a scope over PAGE_CELLS: "VMs
// 2,001-4,000 of 4,500".
function scopePager(s) {
  const first = s.page * PAGE_CELLS;
  const name = s.view.scope.name;
  return h('div', { class: 'scope-pager' },
    h('button', { type: 'button', class: 'small', 'data-scope-page': 'prev', disabled: s.page === 0, 'aria-label': `Previous VMs of ${name}`, text: '‹ Previous' }),
    h('span', { text: `VMs ${count(first + 1)}-${count(first + s.n)} of ${count(s.total)}` }),
    h('button', { type: 'button', class: 'small', 'data-scope-page': 'next', disabled: s.page >= s.pages - 1, 'aria-label': `Next VMs of ${name}`, text: 'Next ›' }));
}

// buildRows draws the update-domain rows of the page's cells; under a
// state filter, only the matching VMs and the rows holding them. A UD
// with no VM at all says so, unless the scope spans pages.
function buildRows(s) {
  const v = s.view;
  const body = h('div', { class: 'uds' });
  const first = s.page * PAGE_CELLS;
  const last = first + s.n;
  let seen = 0;
  v.rows.forEach((cells, ud) => {
    const shown = filter.state === 'all' ? cells : cells.filter((c) => c.state === filter.state);
    const from = Math.max(first - seen, 0);
    const to = Math.min(last - seen, shown.length);
    seen += shown.length;
    const empty = shown.length === 0 && filter.state === 'all' && s.pages === 1;
    if (from < to || empty) body.append(udRow(v, ud, shown.slice(from, to)));
  });
  if (v.cells.length === 0) body.append(h('p', { class: 'ud-empty', text: 'No VMs in this scope.' }));
  return body;
}

// udRow is one update domain: its label, marked when an event hits it, and
// its VMs.
function udRow(v, ud, cells) {
  const hit = v.startedUDs.includes(ud) ? 'started' : v.scheduledUDs.includes(ud) ? 'scheduled' : false;
  const group = h('div', { class: 'cells', role: 'group', 'aria-label': `${v.scope.name}, update domain ${ud}` },
    ...cells.map(cell));
  if (cells.length === 0) group.append(h('span', { class: 'ud-empty', text: 'no VMs' }));
  return h('div', { class: 'ud', 'data-ud': ud, 'data-hit': hit },
    h('span', { class: 'ud-label', text: `UD ${ud}` }), group);
}

function cell(c) {
  const { vm } = c;
  const spot = vm.priority === 'Spot';
  return h('button', {
    type: 'button',
    class: spot ? 'vm spot' : 'vm',
    'data-vm': vm.name,
    'data-state': c.state,
    // The label starts with the cell's visible text, as voice control needs.
    'aria-label': `${vm.name} FD${vm.faultDomain}: ${c.state}, update domain ${vm.updateDomain}, fault domain ${vm.faultDomain}${spot ? ', Spot' : ''}`,
    title: spot ? `${vm.name} (Spot)` : vm.name,
    tabindex: -1,
  },
  h('span', { class: 'vm-name', text: vm.name }), ' ',
  h('span', { class: 'vm-fd', text: `FD${vm.faultDomain}` }));
}

// pickTabStop makes one cell of a new card its Tab stop: the one last
// focused in that scope if it is on the card, else the first.
function pickTabStop(card, k) {
  const want = tabStops.get(k);
  const cells = card.querySelectorAll('button[data-vm]');
  const stop = [...cells].find((b) => key(b.dataset.vm) === want) ?? cells[0];
  if (stop) stop.tabIndex = 0;
}

// makeTabStop makes a focused cell its scope's Tab stop, and remembers it
// for when the card is rebuilt.
function makeTabStop(b) {
  const card = b.closest('[data-scope]');
  for (const other of card.querySelectorAll('button[data-vm][tabindex="0"]')) {
    if (other !== b) other.tabIndex = -1;
  }
  b.tabIndex = 0;
  tabStops.set(key(card.dataset.scope), key(b.dataset.vm));
}

// moveFocus lets arrow keys walk the grid: left and right along the page's
// VMs, up and down to the same place in the neighbouring update domain,
// Home and End to the ends of the row. The focus moves the Tab stop.
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
