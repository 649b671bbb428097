// What the page knows of the fleet, as the live stream (GET /v1/stream)
// delivers it. The stream sends the whole state again after each `hello`;
// that copy is collected aside and swapped in at `ready`, so a reconnect
// never shows a half-empty fleet. Views read it through the functions below
// and compare revision() with the one they last drew to skip work.

import { byName, key } from './dom.js';

/** The states a VM cell shows, in the legend's order. */
export const VM_STATES = ['running', 'scheduled', 'frozen', 'rebooting', 'redeploying', 'deleted'];

const newWorld = () => ({ scopes: new Map(), campaigns: new Map() });

let world = newWorld();
let incoming = null; // the world being received between hello and ready
let sortedKeys = null; // scope keys in name order; null when scopes came or went
const ghosts = new Map(); // scope key -> Map(vm key -> VM) of VMs gone since the page loaded
const vmIndex = new Map(); // vm key -> scope key, for the VM panel
let rev = 0;
let eventsCache = { rev: -1, list: [] };
let totalsCache = { rev: -1, totals: null };

/** meta holds what is not the fleet itself. */
export const meta = {
  replica: '',
  version: '',
  clockOffset: 0, // serverTime - Date.now(), for countdowns
  ready: false, // the first `ready` arrived
  eventsLeft: 0, // grows each time an event leaves the document (history changed)
};

/** revision grows with every change; views redraw when it moved. */
export const revision = () => rev;

/** serverNow is the server's clock as well as the page can tell. */
export const serverNow = () => Date.now() + meta.clockOffset;

function changed() {
  rev++;
}

function syncClock(serverTime) {
  const t = Date.parse(serverTime);
  if (!Number.isNaN(t)) meta.clockOffset = t - Date.now();
}

/** applyHello starts a fresh copy of the state, swapped in at `ready`. */
export function applyHello(d) {
  meta.replica = d.replica ?? '';
  meta.version = d.version ?? '';
  syncClock(d.serverTime);
  incoming = newWorld();
  changed();
}

/** applyPing refreshes the clock offset. */
export function applyPing(d) {
  syncClock(d.serverTime);
}

/** applyScope replaces one scope's VMs and events. */
export function applyScope(d) {
  const entry = { scope: d.scope, vms: d.vms ?? [], events: d.events ?? [], view: null };
  const k = key(entry.scope.name);
  if (incoming) {
    incoming.scopes.set(k, entry);
    return;
  }
  const old = world.scopes.get(k);
  if (!old) sortedKeys = null;
  else noteDepartures(k, old, entry);
  world.scopes.set(k, entry);
  indexScope(k, old, entry);
  changed();
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
  for (const vk of ghosts.get(k)?.keys() ?? []) vmIndex.delete(vk);
  ghosts.delete(k);
  indexScope(k, old, null);
  sortedKeys = null;
  changed();
}

/** applyCampaign replaces one campaign. */
export function applyCampaign(c) {
  (incoming ?? world).campaigns.set(c.id, c);
  if (!incoming) changed();
}

/**
 * applyReady swaps in the state received since `hello`. VMs that were on
 * the page before and are missing now stay as deleted ghosts, as if the
 * change had come while connected.
 */
export function applyReady() {
  if (incoming) {
    for (const [k, entry] of incoming.scopes) {
      const old = world.scopes.get(k);
      if (old) noteDepartures(k, old, entry);
    }
    const leftScopes = [...world.scopes.keys()].some((k) => !incoming.scopes.has(k));
    if (leftScopes) meta.eventsLeft++;
    for (const k of ghosts.keys()) if (!incoming.scopes.has(k)) ghosts.delete(k);
    world = incoming;
    incoming = null;
    sortedKeys = null;
    rebuildIndex();
  }
  meta.ready = true;
  changed();
}

// noteDepartures compares a scope before and after a change: its VMs that
// went become ghosts, VMs that came back stop being ghosts, and an event
// that left means the history has a new line.
function noteDepartures(k, old, entry) {
  const now = new Set(entry.vms.map((vm) => key(vm.name)));
  let gone = ghosts.get(k);
  for (const vm of old.vms) {
    if (now.has(key(vm.name))) continue;
    if (!gone) ghosts.set(k, (gone = new Map()));
    gone.set(key(vm.name), { ...vm, state: 'deleting' });
  }
  if (gone) for (const vk of now) gone.delete(vk);
  const ids = new Set(entry.events.map((e) => e.id));
  if (old.events.some((e) => !ids.has(e.id))) meta.eventsLeft++;
}

function indexScope(k, old, entry) {
  for (const vm of old?.vms ?? []) vmIndex.delete(key(vm.name));
  for (const vk of ghosts.get(k)?.keys() ?? []) vmIndex.set(vk, k);
  for (const vm of entry?.vms ?? []) vmIndex.set(key(vm.name), k);
}

function rebuildIndex() {
  vmIndex.clear();
  for (const [k, entry] of world.scopes) indexScope(k, null, entry);
}

/** scopeKeys lists every scope's key in name order. */
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
 * domains events hit. Worked out once per change of the scope.
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
  for (const vm of gone?.values() ?? []) cells.push({ vm, state: 'deleted', events: [], gone: true });
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

/** findVM returns the VM's cell and its scope's view, ghosts included. */
export function findVM(name) {
  const k = vmIndex.get(key(name));
  const view = k === undefined ? null : scopeView(k);
  const cell = view?.cells.find((c) => key(c.vm.name) === key(name));
  return cell ? { cell, view } : null;
}

/** findEvent returns an event in flight by id. */
export function findEvent(id) {
  return allEvents().find((e) => e.id === id) ?? null;
}

/** allEvents lists every event in flight. */
export function allEvents() {
  if (eventsCache.rev !== rev) {
    const list = [];
    for (const entry of world.scopes.values()) list.push(...entry.events);
    eventsCache = { rev, list };
  }
  return eventsCache.list;
}

/** campaigns lists every campaign. */
export const campaigns = () => [...world.campaigns.values()];

/** totals counts what the header shows. */
export function totals() {
  if (totalsCache.rev === rev) return totalsCache.totals;
  const t = { scopes: 0, busyScopes: 0, vms: 0, eventsScheduled: 0, eventsStarted: 0, campaigns: 0 };
  for (const s of VM_STATES) t[s] = 0;
  for (const [k, entry] of world.scopes) {
    const view = scopeView(k);
    t.scopes++;
    t.vms += entry.vms.length;
    if (view.events.length) t.busyScopes++;
    for (const s of VM_STATES) t[s] += view.counts[s];
    for (const e of view.events) t[e.status === 'Started' ? 'eventsStarted' : 'eventsScheduled']++;
  }
  for (const c of world.campaigns.values()) if (c.state === 'running') t.campaigns++;
  totalsCache = { rev, totals: t };
  return t;
}
