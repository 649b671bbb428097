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

/** count writes a number the way the operator reads it: 1,000. */
export const count = (n) => n.toLocaleString('en-US');

/** plural writes "1 VM" / "1,000 VMs". */
export const plural = (n, one) => `${count(n)} ${n === 1 ? one : `${one}s`}`;

/** actionButton is a small button naming the action the views dispatch on. */
export const actionButton = (action, text, cls = '') =>
  h('button', { type: 'button', class: `small ${cls}`.trim(), 'data-action': action, text });

// Objects from the stream are replaced, never changed in place, so an
// object's identity says whether it changed: cheaper than comparing its JSON.
const ids = new WeakMap();
let lastId = 0;

/** identity is a number unique to an object, for render signatures. */
export function identity(obj) {
  let id = ids.get(obj);
  if (id === undefined) ids.set(obj, (id = ++lastId));
  return id;
}

/**
 * pagedView is the bookkeeping the paged and filtered views share: the
 * page shown, the filter controls (a change re-reads them through
 * readFilters and goes back to the first page), the Prev/Next buttons, and
 * whether anything drawn moved since the last draw. The renders come often
 * (a campaign changes a thousand scopes a second), so a view that did not
 * move must cost nothing.
 */
export function pagedView({ invalidate, filters = [], readFilters = () => {}, prev, next, onTurn = () => {} }) {
  let local = 0; // grows with each change only the view knows of
  let drawn = '';
  const view = {
    page: 0,
    /** redraw asks for a render after a change of the view's own. */
    redraw() {
      local++;
      invalidate();
    },
    /** refilter re-reads the filters and goes back to the first page. */
    refilter() {
      readFilters();
      view.page = 0;
      view.redraw();
    },
    /** stale is true once per change of the state (rev) or of the view. */
    stale(rev) {
      const at = `${rev}:${local}`;
      if (at === drawn) return false;
      drawn = at;
      return true;
    },
    /** clamp keeps the page within pages (one at least) and returns it. */
    clamp(pages) {
      view.page = Math.min(Math.max(view.page, 0), Math.max(pages, 1) - 1);
      return view.page;
    },
    /** drawPager enables Prev and Next as the page allows. */
    drawPager(pages) {
      $(prev).disabled = view.page <= 0;
      $(next).disabled = view.page >= pages - 1;
    },
  };
  for (const sel of filters) {
    const el = $(sel);
    const typing = el.tagName === 'INPUT' && el.type !== 'checkbox';
    el.addEventListener(typing ? 'input' : 'change', view.refilter);
  }
  const turn = (delta) => {
    view.page += delta;
    view.redraw();
    onTurn();
  };
  if (prev) $(prev).addEventListener('click', () => turn(-1));
  if (next) $(next).addEventListener('click', () => turn(1));
  return view;
}

// --- Focus -----------------------------------------------------------------

// Live updates rebuild the rows and cards that changed; the keyboard
// user's focus must never fall back to the top of the page meanwhile.
// Elements are found again by the data attributes the views key their DOM
// by: KEYED name a rebuilt container (a row, a card), OWN an element in it.
const KEYED = ['data-event', 'data-campaign', 'data-scope', 'data-panel-event', 'data-progress-scope'];
const KEYED_SEL = KEYED.map((a) => `[${a}]`).join(',');
const OWN = ['data-vm', 'data-action', 'data-open-vm', 'data-toggle', 'data-scope-page'];
const HOMES = '[role="tabpanel"], [role="region"]';

const attrSel = (el, attrs) => attrs
  .filter((a) => el.hasAttribute(a))
  .map((a) => `[${a}="${CSS.escape(el.getAttribute(a))}"]`)
  .join('');

// boxPath names a keyed container by its own key and those of the keyed
// containers around it (a campaign's scope row is keyed by the scope only).
function boxPath(box, root) {
  const parts = [];
  for (let b = box; b && root.contains(b); b = b.parentElement?.closest(KEYED_SEL)) {
    parts.unshift(attrSel(b, KEYED));
  }
  return parts.join(' ');
}

/**
 * rememberFocus notes el (the focused element by default) with what finds
 * it, or failing that its nearest replacement, once a render has replaced
 * it: its selector, its keyed container, and that container's place among
 * its siblings. root is where to look: by default the tab or the region
 * (the VM panel) holding el. It returns null when el is not in root.
 */
export function rememberFocus(root = null, el = document.activeElement) {
  if (!el || el === document.body) return null;
  root ??= el.closest(HOMES) ?? document.body;
  if (!root.contains(el)) return null;
  const box = el.closest(KEYED_SEL);
  const boxSel = box && root.contains(box) ? boxPath(box, root) : '';
  const own = attrSel(el, OWN);
  let sel = own && (boxSel ? `${boxSel} ${own}` : own);
  if (box === el) sel = boxSel;
  const parent = boxSel ? box.parentElement : null;
  return {
    el, root, sel, parent,
    boxSel: box === el ? '' : boxSel,
    index: parent ? Array.prototype.indexOf.call(parent.children, box) : -1,
  };
}

/**
 * restoreFocus puts the focus back where rememberFocus found it, if it was
 * lost (or always, with force): on the same element if it is still there,
 * else on its counterpart, else on the first action left in its container
 * (Pause became Resume), else the container itself, else the container
 * that took its place (the next row), else the tab or region, else last.
 */
export function restoreFocus(memo, { force = false, last = null } = {}) {
  if (!memo) return;
  const now = document.activeElement;
  if (!force && now && now !== document.body) return;
  const { el, root, sel, boxSel, parent, index } = memo;
  const tries = [
    () => el.isConnected && el,
    () => sel && root.querySelector(sel),
    () => boxSel && firstAction(root.querySelector(boxSel)),
    () => parent?.isConnected && parent.children[Math.min(index, parent.children.length - 1)],
    () => root.closest(HOMES),
    () => last,
  ];
  for (const find of tries) {
    const target = find();
    if (!target) continue;
    target.focus({ preventScroll: true });
    if (document.activeElement === target) return;
  }
}

// firstAction is where the focus lands in a container that lost the
// focused element: its first action left (Resume after Pause, Prev after
// the last page's Next), or its VM cell that is a Tab stop.
const LANDINGS = ['[data-action]', '[data-scope-page]', 'button[data-vm][tabindex="0"]']
  .map((s) => `${s}:not(:disabled)`).join(',');
const firstAction = (box) => box && (box.querySelector(LANDINGS) ?? box);

/**
 * reconcile puts one node per item in container, reusing the node built for
 * the same key while its signature is unchanged, and touching the container
 * only where the sequence of nodes differs. cache maps key -> {sig, el} and
 * is returned updated for the next call.
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
  restoreFocus(memo);
  return next;
}

// patch makes container's children be nodes, moving as few as it can: the
// nodes that stay keep their place while new ones are inserted around
// them, so a row added at the top of a thousand costs one insertion, and
// the focus stays on a node that is not moved.
function patch(container, nodes) {
  const keep = new Set(nodes);
  for (const kid of Array.from(container.children)) {
    if (!keep.has(kid)) kid.remove();
  }
  let at = container.firstElementChild;
  for (const n of nodes) {
    if (n === at) at = at.nextElementSibling;
    else container.insertBefore(n, at);
  }
}
