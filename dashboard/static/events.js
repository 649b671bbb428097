// The Events tab (every event in flight, with a live countdown to its
// NotBefore) and the History tab (finished events, fetched on demand).
// Rows are keyed by event id and rebuilt only when the event changed; the
// countdowns are ticked in place once a second.

import { $, actionButton, byName, clock, dateTime, h, key, pagedView, plural, reconcile, setText, shortId, span } from './dom.js';
import { allEvents, meta, revision, serverNow } from './state.js';
import { api, eventAction } from './actions.js';

const PAGE = 200;
const MAX_RESOURCES = 3; // resources named in a row; the rest are counted

const filter = { text: '', status: 'all', type: 'all', source: 'all' };
let rows = new Map();
let view = null;

/** setupEvents wires the filters, pager and row buttons of the Events tab. */
export function setupEvents(opts) {
  view = pagedView({
    invalidate: opts.invalidate,
    filters: ['#events-filter', '#events-status', '#events-type', '#events-source'],
    readFilters,
    prev: '#events-prev',
    next: '#events-next',
  });
  $('#events-table tbody').addEventListener('click', (ev) => onRowClick(ev, opts.openVM));
}

function readFilters() {
  filter.text = key($('#events-filter').value.trim());
  filter.status = $('#events-status').value;
  filter.type = $('#events-type').value;
  filter.source = $('#events-source').value;
}

// onRowClick runs the action a row's button names, or opens a VM it lists.
function onRowClick(ev, openVM) {
  const vm = ev.target.closest('[data-open-vm]');
  if (vm) {
    openVM(vm.dataset.openVm, vm);
    return;
  }
  const b = ev.target.closest('button[data-action]');
  const tr = b?.closest('tr[data-event]');
  if (tr) eventAction(b.dataset.action, tr.dataset.event);
}

/** renderEvents draws the current page of events if anything changed. */
export function renderEvents() {
  if (!view.stale(revision())) return;
  const all = allEvents();
  const list = byUrgency(all.filter(matches));
  const pages = Math.ceil(list.length / PAGE);
  const page = view.clamp(pages);
  const shown = list.slice(page * PAGE, (page + 1) * PAGE);
  const tbody = $('#events-table tbody');
  rows = reconcile(tbody, rows, shown, (e) => e.id, (e) => JSON.stringify(e), buildRow);
  $('#events-empty').hidden = shown.length > 0;
  setText($('#events-empty'), all.length ? 'No event matches the filters.' : 'No events in flight.');
  drawSummary(all, list);
  setText($('#events-page'), list.length ? `Events ${page * PAGE + 1}-${page * PAGE + shown.length} of ${list.length}` : '');
  view.drawPager(pages);
  tickCountdowns(tbody);
}

function matches(e) {
  if (filter.status !== 'all' && e.status !== filter.status) return false;
  if (filter.type !== 'all' && e.type !== filter.type) return false;
  if (filter.source !== 'all' && e.source !== filter.source) return false;
  if (!filter.text) return true;
  const t = filter.text;
  return key(e.scope).includes(t) || e.id.startsWith(t) || (e.campaign ?? '').startsWith(t) ||
    (e.resources ?? []).some((r) => key(r).includes(t));
}

// byUrgency sorts what is happening now first (Started, oldest start
// first), then what comes next (Scheduled, soonest NotBefore first). The
// times are parsed once, not in every comparison: a campaign can keep a
// thousand events in flight.
function byUrgency(events) {
  const keyed = events.map((e) => {
    const started = e.status === 'Started';
    return { e, started, t: Date.parse(started ? e.startedAt : e.notBefore) || 0 };
  });
  keyed.sort((a, b) => (b.started - a.started) || (a.t - b.t) || byName(a.e.scope, b.e.scope) || (a.e.id < b.e.id ? -1 : 1));
  return keyed.map((k) => k.e);
}

function drawSummary(all, list) {
  const started = all.filter((e) => e.status === 'Started').length;
  let text = `${plural(all.length, 'event')} in flight: ${started} started, ${all.length - started} scheduled`;
  if (list.length !== all.length) text += ` · ${list.length} match the filters`;
  setText($('#events-summary'), text);
}

// A row is focusable (tabindex -1) so that the focus has somewhere to go
// when an action takes the row's buttons away.
function buildRow(e) {
  return h('tr', { 'data-event': e.id, 'data-status': e.status, tabindex: -1 },
    typeCell(e),
    h('td', {}, statusCell(e)),
    h('td', { text: e.scope }),
    resourcesCell(e),
    h('td', {}, countdownEl(e), h('span', { class: 'sub', text: whenDetail(e) })),
    h('td', {}, h('span', { class: 'approved', text: approvedText(e), title: e.approvedAt ? dateTime(e.approvedAt) : null })),
    h('td', { text: e.source }),
    campaignCell(e),
    h('td', { class: 'ev-actions' }, ...rowActions(e)));
}

// typeCell, resourcesCell and campaignCell are the cells the events and
// the history tables share.
const typeCell = (e) => h('td', { title: e.description || null },
  h('span', { class: 'type', text: e.type }),
  h('span', { class: 'id', text: shortId(e.id), title: e.id }));

const resourcesCell = (e) => h('td', { class: 'ev-resources' }, ...resourceList(e.resources ?? []));

const campaignCell = (e) =>
  h('td', { class: 'ev-campaign', text: e.campaign ? shortId(e.campaign) : '—', title: e.campaign || null });

/** statusCell shows the status, and the VMs an actuator failed on. */
export function statusCell(e) {
  const box = h('span', { class: `status status-${e.status}`, text: e.status });
  if (!e.failed?.length) return box;
  return h('span', {}, box, h('span', { class: 'failed', text: `failed on ${e.failed.join(', ')}` }));
}

// resourceList names the first few VMs as buttons that open their panel
// and counts the rest; the full list is in the cell's tooltip.
function resourceList(resources) {
  const out = resources.slice(0, MAX_RESOURCES).map((r) =>
    h('button', { type: 'button', class: 'link', 'data-open-vm': r, text: r }));
  if (resources.length > MAX_RESOURCES) {
    out.push(h('span', { class: 'more', text: `+${resources.length - MAX_RESOURCES} more`, title: resources.join(', ') }));
  }
  return out;
}

/** rowActions are the buttons an event's state allows. */
export function rowActions(e) {
  if (e.status === 'Scheduled') return [actionButton('approve', 'Approve', 'primary'), actionButton('cancel', 'Cancel', 'danger')];
  if (e.failed?.length) return [actionButton('resolve-retry', 'Retry'), actionButton('resolve-complete', 'Complete')];
  return [];
}

/** approvedText says who approved an event and when: "admin at 10:42:03". */
export function approvedText(e) {
  if (!e.approvedBy) return '—';
  return e.approvedAt ? `${e.approvedBy} at ${clock(e.approvedAt)}` : e.approvedBy;
}

// whenDetail is the fixed time under the countdown.
function whenDetail(e) {
  if (e.status === 'Started') return e.endsAt && (e.actuator || 'simulate') === 'simulate' ? `ends ${clock(e.endsAt)}` : 'being carried out';
  return e.notBefore ? `not before ${clock(e.notBefore)}` : '';
}

/**
 * countdownEl is an element tickCountdowns keeps current: the times it
 * needs are in its data attributes, so any view can hold one.
 */
export function countdownEl(e) {
  const el = h('span', {
    class: 'countdown',
    'data-cd-status': e.status,
    'data-cd-not-before': e.notBefore ?? '',
    'data-cd-started': e.startedAt ?? '',
  });
  el.textContent = countdownText(el.dataset, serverNow());
  return el;
}

function countdownText(d, now) {
  if (d.cdStatus === 'Started') {
    const t = Date.parse(d.cdStarted);
    return Number.isNaN(t) ? 'started' : `started ${span(now - t)} ago`;
  }
  const nb = Date.parse(d.cdNotBefore);
  if (Number.isNaN(nb)) return '—';
  return nb > now ? `in ${span(nb - now + 999)}` : 'due';
}

/** tickCountdowns brings every countdown under root up to the second. */
export function tickCountdowns(root) {
  const now = serverNow();
  for (const el of root.querySelectorAll('.countdown')) setText(el, countdownText(el.dataset, now));
}

// --- History ---------------------------------------------------------------

let historyLoadedFor = -1; // meta.eventsLeft at the last load
let historySeq = 0; // only the latest request may draw
let historyLastLoad = 0;
let historyTimer = null;
let historyRows = new Map();

/** setupHistory wires the History tab's controls. */
export function setupHistory(opts) {
  $('#history-limit').addEventListener('change', loadHistory);
  $('#history-refresh').addEventListener('click', loadHistory);
  $('#history-table tbody').addEventListener('click', (ev) => {
    const vm = ev.target.closest('[data-open-vm]');
    if (vm) opts.openVM(vm.dataset.openVm, vm);
  });
}

/**
 * renderHistory loads the history when the tab opens, and again when an
 * event has left the stream since, at most once a second however fast
 * events finish, and only while the page is seen: a hidden page loads it
 * when it is shown again.
 */
export function renderHistory(opening) {
  if (opening) {
    loadHistory();
    return;
  }
  if (historyLoadedFor === meta.eventsLeft || historyTimer || document.hidden) return;
  const wait = Math.max(0, historyLastLoad + 1000 - Date.now());
  historyTimer = setTimeout(() => {
    historyTimer = null;
    if (!document.hidden) loadHistory();
  }, wait);
}

// loadHistory fetches the history and draws it. Its failures show in the
// tab's summary, not in #messages, which is for the operator's actions:
// a reload that fails once a second during a rollout would drown them.
async function loadHistory() {
  const seq = ++historySeq;
  historyLoadedFor = meta.eventsLeft;
  historyLastLoad = Date.now();
  const summary = $('#history-summary');
  try {
    const list = await api('GET', `/v1/history?limit=${encodeURIComponent($('#history-limit').value)}`);
    if (seq !== historySeq) return;
    drawHistory(list ?? []);
    summary.classList.remove('error');
  } catch (err) {
    if (seq !== historySeq) return;
    setText(summary, `Could not load the history: ${err.message}`);
    summary.classList.add('error');
  }
}

// drawHistory keeps the rows already shown (a finished event does not
// change), so a reload neither costs a thousand rows nor moves the focus.
function drawHistory(list) {
  const sig = (e) => `${e.outcome}|${e.endedAt}`;
  historyRows = reconcile($('#history-table tbody'), historyRows, list, (e) => e.id, sig, historyRow);
  $('#history-empty').hidden = list.length > 0;
  setText($('#history-summary'), `${plural(list.length, 'finished event')}, newest first · loaded ${clock(Date.now())}`);
}

function historyRow(e) {
  return h('tr', { 'data-event': e.id, 'data-outcome': e.outcome ?? '', tabindex: -1 },
    h('td', { text: dateTime(e.endedAt) }),
    h('td', {}, h('span', { class: `outcome outcome-${e.outcome}`, text: e.outcome ?? '—' })),
    typeCell(e),
    h('td', { text: e.scope }),
    resourcesCell(e),
    h('td', { text: e.source }),
    h('td', {}, h('span', { class: 'approved', text: approvedText(e) })),
    h('td', { text: e.startedAt ? clock(e.startedAt) : 'never' }),
    campaignCell(e));
}
