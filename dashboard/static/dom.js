// DOM and formatting helpers shared by the views. Every piece of server data
// reaches the page through textContent or an attribute, never as HTML.

/** $ finds one element by CSS selector. */
export const $ = (sel, root = document) => root.querySelector(sel);

/**
 * h builds an element: props are attributes (class, text, data-*, aria-*...);
 * false, null and undefined props are skipped, true sets an empty attribute.
 * Children are nodes or strings (inserted as text).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const name in props) {
    const v = props[name];
    if (v === undefined || v === null || v === false) continue;
    if (name === 'class') el.className = v;
    else if (name === 'text') el.textContent = v;
    else el.setAttribute(name, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c !== null && c !== undefined && c !== false) el.append(c);
  }
  return el;
}

/** setText changes an element's text only when it differs, to spare layout. */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// Names sort as people expect: web-2 before web-10.
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** byName compares two names for sorting. */
export const byName = (a, b) => collator.compare(a, b);

/** key is how names are matched: VM and scope names are case-insensitive. */
export const key = (name) => String(name).toLowerCase();

const pad = (n) => String(n).padStart(2, '0');

/** clock formats a time as the operator's local HH:MM:SS. */
export function clock(t) {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return '—';
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** dateTime formats a time as local YYYY-MM-DD HH:MM:SS. */
export function dateTime(t) {
  const d = new Date(t);
  if (!t || Number.isNaN(d.getTime())) return '—';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(d)}`;
}

/**
 * span formats a length of time the way the events table reads it:
 * "14s", "1m 05s", "2h 03m", "6d 23h" (two units at most).
 */
export function span(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${pad(s % 60)}s`;
  const hrs = Math.floor(m / 60);
  if (hrs < 24) return `${hrs}h ${pad(m % 60)}m`;
  return `${Math.floor(hrs / 24)}d ${pad(hrs % 24)}h`;
}

/** shortId is the first block of a UUID, enough to tell events apart on screen. */
export const shortId = (id) => String(id ?? '').slice(0, 8);

/** plural writes "1 VM" / "3 VMs". */
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * rememberFocus notes the focused element inside root, with a selector that
 * finds its counterpart if a re-render replaces it: live updates must never
 * throw the keyboard user's focus back to the top of the page.
 */
export function rememberFocus(root) {
  const el = document.activeElement;
  if (!el || el === document.body || !root.contains(el)) return null;
  return { el, sel: selectorFor(el) };
}

/** restoreFocus puts the focus back where rememberFocus found it. */
export function restoreFocus(root, memo) {
  if (!memo || document.activeElement === memo.el) return;
  const el = memo.el.isConnected ? memo.el : memo.sel && root.querySelector(memo.sel);
  if (el) el.focus({ preventScroll: true });
}

// KEYED are the attributes that name a re-rendered container.
const KEYED = ['data-event', 'data-campaign', 'data-scope', 'data-panel-event', 'data-progress-scope'];

// selectorFor names an element by the data attributes the views key their
// DOM by: its keyed container (an event row, a campaign, a scope) and its
// own action or VM.
function selectorFor(el) {
  const own = ['data-vm', 'data-action', 'data-open-vm', 'data-toggle']
    .filter((a) => el.hasAttribute(a))
    .map((a) => `[${a}="${CSS.escape(el.getAttribute(a))}"]`)
    .join('');
  if (!own) return null;
  const box = el.parentElement?.closest(KEYED.map((a) => `[${a}]`).join(','));
  if (!box) return own;
  const attr = KEYED.find((a) => box.hasAttribute(a));
  return `[${attr}="${CSS.escape(box.getAttribute(attr))}"] ${own}`;
}

/**
 * reconcile puts one node per item in container, reusing the node built for
 * the same key while its signature is unchanged, and touching the container
 * only if the sequence of nodes differs. cache maps key -> {sig, el} and is
 * returned updated for the next call.
 */
export function reconcile(container, cache, items, keyOf, sigOf, build) {
  const memo = rememberFocus(container);
  const next = new Map();
  const nodes = items.map((item) => {
    const k = keyOf(item);
    const sig = sigOf(item);
    let entry = cache.get(k);
    if (!entry || entry.sig !== sig) entry = { sig, el: build(item) };
    next.set(k, entry);
    return entry.el;
  });
  patch(container, nodes);
  restoreFocus(container, memo);
  return next;
}

// patch makes container's children be nodes. When the order is unchanged
// and only some nodes were rebuilt, it swaps those alone, so the browser
// re-lays out a row rather than the whole list.
function patch(container, nodes) {
  const kids = Array.from(container.children);
  const inPlace = kids.length === nodes.length &&
    nodes.every((n, i) => n === kids[i] || !n.isConnected);
  if (!inPlace) {
    container.replaceChildren(...nodes);
    return;
  }
  nodes.forEach((n, i) => {
    if (n !== kids[i]) kids[i].replaceWith(n);
  });
}
