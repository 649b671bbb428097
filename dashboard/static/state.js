// What the page knows of the fleet, as the live stream (GET /v1/stream)
// delivers it. The stream sends the whole state again after each `hello`;
// that copy is collected aside and swapped in at `ready`, so a reconnect
// never shows a half-empty fleet. Views read it through the functions below
// and compare revision() with the one they last drew to skip work.

import { byName, key } from './dom.js';

/** The states a VM cell shows, in the legend's order. */
export const VM_STATES = ['running', 'scheduled', 'frozen', 'rebooting', 'redeploying', 'deleted'];

// A VM that leaves stays on the page as a "deleted" cell (a ghost), so the
// operator sees what went. A page may stay open for days while scale sets
// churn and Spot VMs are evicted under new names each time, so ghosts do
// not last: each is dropped GHOST_TTL_MS (15 minutes) after it left, by a
// sweep every GHOST_SWEEP_MS, and a scope keeps its GHOSTS_PER_SCOPE
// newest only.
const GHOST_TTL_MS = 15 * 60_000;
/** GHOST_SWEEP_MS is how often the page should call sweepGhosts. */
export const GHOST_SWEEP_MS = 60_000;
const GHOSTS_PER_SCOPE = 50;

const newWorld = () => ({ scopes: new Map(), campaigns: new Map() });

let world = newWorld();
let incoming = null; // the world being received between hello and ready
let sortedKeys = null; // scope keys in name order; null when scopes came or went
let rev = 0;
let eventsCache = { rev: -1, list: [] };
let totalsCache = { rev: -1, totals: null };

// VM names are unique across the fleet, so a name is live in one scope at
// most, and then has no ghost anywhere: a VM deleted from one scope and
// created again in another is the new one, never the ghost.
const liveIndex = new Map(); // vm key -> scope key
const ghosts = new Map(); // scope key -> Map(vm key -> {vm, goneAt}), oldest first
const ghostScope = new Map(); // vm key -> scope key of its ghost

/** meta holds what is not the fleet itself. */
export const meta = {
  replica: '',
  version: '',
  pageVersion: '', // the server's version when the page loaded: its scripts are that version's
  clockOffset: 0, // serverTime - Date.now(): the countdowns read the server's clock, not the operator's
  ready: false, // the first `ready` arrived
  eventsLeft: 0, // grows each time an event leaves the document (history changed)
};

/** revision grows with every change; views redraw when it moved. */
export const revision = () => rev;

/** serverNow is the server's clock as well as the page can tell. */
export const serverNow = () => Date.now() + meta.clockOffset;

function syncClock(serverTime) {
  const t = Date.parse(serverTime);
  if (!Number.isNaN(t)) meta.clockOffset = t - Date.now();
}

/**
 * applyHello starts a fresh copy of the state, swapped in at `ready`. It
 * also notes the server's version: once it differs from the one the page
 * came from, the page's scripts may not match the API any more.
 */
export function applyHello(d) {
  meta.replica = d.replica ?? '';
  meta.version = d.version ?? '';
  if (!meta.pageVersion) meta.pageVersion = meta.version;
  syncClock(d.serverTime);
  incoming = newWorld();
  rev++;
}

/** upgraded is true when the server runs another version than the page's. */
export const upgraded = () => Boolean(meta.version && meta.pageVersion && meta.version !== meta.pageVersion);

/** applyPing keeps the countdowns on the server's clock, which may drift from the operator's. */
export function applyPing(d) {
  syncClock(d.serverTime);
}

/** applyScope replaces one scope's VMs and events: the stream sends them whole. */
export function applyScope(d) {
  const entry = { scope: d.scope, vms: d.vms ?? [], events: d.events ?? [], view: null };
  const k = key(entry.scope.name);
  if (incoming) {
    incoming.scopes.set(k, entry);
    return;
  }
  const old = world.scopes.get(k);
  world.scopes.set(k, entry);
  if (old) unindexLive(k, old);
  else sortedKeys = null;
  indexLive(k, entry);
  if (old) noteDepartures(k, old, entry, Date.now());
  rev++;
}

/** applyScopeRemoved forgets a scope, its VMs and their ghosts. */
export function applyScopeRemoved(d) {
  const k = key(d.name);
  if (incoming) {
    incoming.scopes.delete(k);
    return;
  }
  const old = world.scopes.get(k);
  if (!old) return;
  if (old.events.length) meta.eventsLeft++;
  world.scopes.delete(k);
  unindexLive(k, old);
  dropGhostsOf(k);
  sortedKeys = null;
  rev++;
}

/** applyCampaign replaces one campaign: a new object, which views rely on. */
export function applyCampaign(c) {
  (incoming ?? world).campaigns.set(c.id, c);
  if (!incoming) rev++;
}

/**
 * applyReady swaps in the state received since `hello`. VMs that were on
 * the page before and are missing now become ghosts, as if the change had
 * come while connected.
 */
export function applyReady() {
  if (incoming) {
    const before = world;
    world = incoming;
    incoming = null;
    sortedKeys = null;
    liveIndex.clear();
    for (const [k, entry] of world.scopes) indexLive(k, entry);
    for (const k of [...ghosts.keys()]) if (!world.scopes.has(k)) dropGhostsOf(k);
    const now = Date.now();
    let leftScopes = false;
    for (const [k, old] of before.scopes) {
      const entry = world.scopes.get(k);
      if (entry) noteDepartures(k, old, entry, now);
      else leftScopes = true;
    }
    if (leftScopes) meta.eventsLeft++;
  }
  meta.ready = true;
  rev++;
}

// noteDepartures compares a scope before and after a change: its VMs that
// are live nowhere now become ghosts, and an event that left means the
// history has a new line.
function noteDepartures(k, old, entry, now) {
  for (const vm of old.vms) {
    if (!liveIndex.has(key(vm.name))) addGhost(k, vm, now);
  }
  const ids = new Set(entry.events.map((e) => e.id));
  if (old.events.some((e) => !ids.has(e.id))) meta.eventsLeft++;
}

// indexLive notes where the scope's VMs live, and drops their ghosts
// wherever they are.
function indexLive(k, entry) {
  for (const vm of entry.vms) {
    const vk = key(vm.name);
    liveIndex.set(vk, k);
    dropGhost(vk);
  }
}

function unindexLive(k, entry) {
  for (const vm of entry.vms) {
    const vk = key(vm.name);
    if (liveIndex.get(vk) === k) liveIndex.delete(vk);
  }
}

function addGhost(k, vm, now) {
  const vk = key(vm.name);
  dropGhost(vk);
  let list = ghosts.get(k);
  if (!list) ghosts.set(k, (list = new Map()));
  list.set(vk, { vm: { ...vm, state: 'deleting' }, goneAt: now });
  ghostScope.set(vk, k);
  if (list.size > GHOSTS_PER_SCOPE) dropGhost(list.keys().next().value);
}

// dropGhost forgets a VM's ghost; its scope's view is built again.
function dropGhost(vk) {
  const k = ghostScope.get(vk);
  if (k === undefined) return false;
  ghostScope.delete(vk);
  const list = ghosts.get(k);
  list.delete(vk);
  if (list.size === 0) ghosts.delete(k);
  const entry = world.scopes.get(k);
  if (entry) entry.view = null;
  return true;
}

function dropGhostsOf(k) {
  for (const vk of [...(ghosts.get(k)?.keys() ?? [])]) dropGhost(vk);
}

/** sweepGhosts drops the ghosts older than GHOST_TTL_MS; true if any went. */
export function sweepGhosts(now = Date.now()) {
  const old = [];
  for (const list of ghosts.values()) {
    for (const [vk, g] of list) if (now - g.goneAt > GHOST_TTL_MS) old.push(vk);
  }
  for (const vk of old) dropGhost(vk);
  if (old.length) rev++;
  return old.length > 0;
}

/** scopeKeys lists every scope's key in name order, sorted once per change of the set. */
export function scopeKeys() {
  if (!sortedKeys) {
    sortedKeys = [...world.scopes.keys()].sort((a, b) =>
      byName(world.scopes.get(a).scope.name, world.scopes.get(b).scope.name));
  }
  return sortedKeys;
}

/**
 * scopeView is what the fleet draws of a scope: its VMs (ghosts included)
 * as cells grouped by update domain, counted by state, and which update
 * domains events hit. Worked out once per change of the scope, and a new
 * object each time, which the views' render signatures rely on.
 */
export function scopeView(k) {
  const entry = world.scopes.get(k);
  if (!entry) return null;
  if (!entry.view) entry.view = buildView(entry, ghosts.get(k));
  return entry.view;
}

function buildView(entry, gone) {
  const { scope, vms, events } = entry;
  const eventsByVM = new Map();
  for (const e of events) {
    for (const r of e.resources ?? []) {
      const list = eventsByVM.get(key(r));
      if (list) list.push(e);
      else eventsByVM.set(key(r), [e]);
    }
  }
  const cells = vms.map((vm) => {
    const evs = eventsByVM.get(key(vm.name)) ?? [];
    return { vm, state: displayState(vm, evs), events: evs, gone: false };
  });
  for (const g of gone?.values() ?? []) cells.push({ vm: g.vm, state: 'deleted', events: [], gone: true });
  cells.sort((a, b) => byName(a.vm.name, b.vm.name));
  return { scope, events, cells, ...groupCells(scope, cells) };
}

// groupCells sorts the cells into update-domain rows and counts them; a UD
// holding a VM of a Started event is "in maintenance", of a Scheduled one
// "scheduled".
function groupCells(scope, cells) {
  const udCount = Math.max(scope.updateDomains ?? 0, ...cells.map((c) => c.vm.updateDomain + 1));
  const rows = Array.from({ length: udCount }, () => []);
  const counts = Object.fromEntries(VM_STATES.map((s) => [s, 0]));
  const started = new Set();
  const scheduled = new Set();
  for (const c of cells) {
    const ud = c.vm.updateDomain;
    rows[ud].push(c);
    counts[c.state]++;
    for (const e of c.events) (e.status === 'Started' ? started : scheduled).add(ud);
  }
  const asc = (set) => [...set].sort((a, b) => a - b);
  return { rows, counts, startedUDs: asc(started), scheduledUDs: asc(scheduled) };
}

// displayState is what a cell shows: what the event's simulated impact does
// to the VM, else "scheduled" while a Scheduled event names it.
function displayState(vm, events) {
  switch (vm.state) {
    case 'deleting':
      return 'deleted';
    case 'frozen':
    case 'rebooting':
    case 'redeploying':
      return vm.state;
    default:
      return events.some((e) => e.status === 'Scheduled') ? 'scheduled' : 'running';
  }
}

/**
 * findVM returns the VM's cell and its scope's view: the live VM wherever
 * it is, else its ghost, else null.
 */
export function findVM(name) {
  const vk = key(name);
  const k = liveIndex.get(vk) ?? ghostScope.get(vk);
  const view = k === undefined ? null : scopeView(k);
  const cell = view?.cells.find((c) => key(c.vm.name) === vk);
  return cell ? { cell, view } : null;
}

/** findEvent returns an event in flight by id, for the actions' messages and questions. */
export function findEvent(id) {
  return allEvents().find((e) => e.id === id) ?? null;
}

/** allEvents lists every event in flight, gathered once per change. */
export function allEvents() {
  if (eventsCache.rev !== rev) {
    const list = [];
    for (const entry of world.scopes.values()) list.push(...entry.events);
    eventsCache = { rev, list };
  }
  return eventsCache.list;
}

/** campaigns returns a new array each call, which the caller may sort. */
export const campaigns = () => [...world.campaigns.values()];

/**
 * totals counts what the header shows. A scope is "in maintenance" while
 * one of its events has Started; one whose events are all Scheduled is
 * only "scheduled".
 */
export function totals() {
  if (totalsCache.rev === rev) return totalsCache.totals;
  const t = { scopes: 0, busyScopes: 0, scheduledScopes: 0, vms: 0, eventsScheduled: 0, eventsStarted: 0, campaigns: 0 };
  for (const s of VM_STATES) t[s] = 0;
  for (const [k, entry] of world.scopes) {
    const view = scopeView(k);
    t.scopes++;
    t.vms += entry.vms.length;
    for (const s of VM_STATES) t[s] += view.counts[s];
    let started = 0;
    for (const e of view.events) if (e.status === 'Started') started++;
    t.eventsStarted += started;
    t.eventsScheduled += view.events.length - started;
    if (started) t.busyScopes++;
    else if (view.events.length) t.scheduledScopes++;
  }
  for (const c of world.campaigns.values()) if (c.state === 'running') t.campaigns++;
  totalsCache = { rev, totals: t };
  return t;
}
