// The dashboard's entry point: it follows the live stream, keeps the
// connection sign (#conn) honest, switches tabs, and draws what changed at
// most RENDER_GAP_MS apart, however fast the stream delivers: a campaign
// over a thousand scopes can send hundreds of changes a second.

import { $, count, setText } from './dom.js';
import {
  GHOST_SWEEP_MS, applyCampaign, applyHello, applyPing, applyReady, applyScope, applyScopeRemoved, meta,
  sweepGhosts, totals, upgraded,
} from './state.js';
import { setupConfirm, toLogin } from './actions.js';
import { renderFleet, setupFleet } from './fleet.js';
import { renderEvents, renderHistory, setupEvents, setupHistory, tickCountdowns } from './events.js';
import { renderCampaigns, setupCampaigns } from './campaigns.js';
import { markSelected, openVM, renderPanel, setupPanel } from './panel.js';

const RENDER_GAP_MS = 250;
const WATCHDOG_MS = 40_000; // the server pings every 15 s; silence this long means a dead link
const RETRY_MAX_MS = 15_000;
const RECONNECTED_MS = 4_000; // how long "Reconnected" shows before "Live"

const TABS = ['fleet', 'events', 'campaigns', 'history'];
const RENDERERS = {
  fleet: renderFleet,
  events: renderEvents,
  campaigns: renderCampaigns,
  history: () => renderHistory(false),
};

let activeTab = 'fleet';

// --- Drawing ---------------------------------------------------------------

let queued = false;
let lastRender = 0;

/**
 * invalidate asks for a redraw: the next animation frame at least
 * RENDER_GAP_MS after the last one, so bursts of changes cost one render.
 */
function invalidate() {
  if (queued) return;
  queued = true;
  const wait = Math.max(0, lastRender + RENDER_GAP_MS - performance.now());
  setTimeout(() => requestAnimationFrame(render), wait);
}

function render() {
  queued = false;
  lastRender = performance.now();
  renderHeader();
  if (!meta.ready) return;
  RENDERERS[activeTab]();
  renderPanel();
  markSelected();
}

// A scope is "in maintenance" while one of its events has Started; a
// scope whose events are all Scheduled counts apart.
const COUNTERS = {
  'count-busy': (t) => `${count(t.busyScopes)}/${count(t.scopes)}`,
  'count-sched-scopes': (t) => count(t.scheduledScopes),
  'count-scheduled': (t) => count(t.eventsScheduled),
  'count-started': (t) => count(t.eventsStarted),
  'count-frozen': (t) => count(t.frozen),
  'count-rebooting': (t) => count(t.rebooting),
  'count-redeploying': (t) => count(t.redeploying),
  'count-deleted': (t) => count(t.deleted),
  'count-vms': (t) => count(t.vms),
  'count-campaigns': (t) => count(t.campaigns),
};

// renderHeader updates the counters; a counter above zero stands out.
function renderHeader() {
  const t = totals();
  for (const [id, value] of Object.entries(COUNTERS)) {
    const el = $(`#${id}`);
    const v = String(value(t));
    setText(el, v);
    el.parentElement.classList.toggle('nonzero', v !== '0' && !v.startsWith('0/'));
  }
  setText($('#tab-events .tab-count'), count(t.eventsScheduled + t.eventsStarted));
  setText($('#server-info'), meta.replica ? `replica ${meta.replica} · forewarn ${meta.version}` : '');
  renderUpgrade();
}

// renderUpgrade offers a reload once the server runs another version than
// the one the page's scripts came from. It does not reload by itself:
// behind a load balancer during a rolling upgrade the page may meet both
// versions in turn, and the operator may be in the middle of something.
function renderUpgrade() {
  const banner = $('#upgrade');
  banner.hidden = !upgraded();
  if (!banner.hidden) {
    setText($('#upgrade-text'), `The server now runs forewarn ${meta.version}; this page is from ${meta.pageVersion}.`);
  }
}

// Countdowns move every second without a full render: only the visible
// tab's and the panel's are touched.
function tick() {
  if (document.hidden || !meta.ready) return;
  tickCountdowns($(`#${activeTab}`));
  tickCountdowns($('#vm-panel'));
}

// --- Tabs ------------------------------------------------------------------

function selectTab(name, focus = false) {
  if (!TABS.includes(name)) name = 'fleet';
  const opening = name !== activeTab;
  activeTab = name;
  for (const t of TABS) {
    const tab = $(`#tab-${t}`);
    tab.setAttribute('aria-selected', String(t === name));
    tab.tabIndex = t === name ? 0 : -1;
    $(`#${t}`).hidden = t !== name;
  }
  if (focus) $(`#tab-${name}`).focus();
  if (window.location.hash !== `#${name}`) history.replaceState(null, '', `#${name}`);
  if (opening && name === 'history' && meta.ready) renderHistory(true);
  tick(); // the countdowns of a tab that was hidden are stale
  invalidate();
}

function setupTabs() {
  const list = $('[role="tablist"]');
  list.addEventListener('click', (ev) => {
    const tab = ev.target.closest('[role="tab"]');
    if (tab) selectTab(tab.getAttribute('aria-controls'));
  });
  // Arrow keys move between tabs, as the ARIA tabs pattern has it.
  list.addEventListener('keydown', (ev) => {
    const i = TABS.indexOf(activeTab);
    const to = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: TABS.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    selectTab(TABS[(to + TABS.length) % TABS.length], true);
  });
  window.addEventListener('hashchange', () => selectTab(window.location.hash.slice(1)));
  selectTab(window.location.hash.slice(1) || 'fleet');
}

// --- The live stream -------------------------------------------------------

let source = null;
let watchdog = 0;
let retryTimer = 0;
let retryDelay = 1000;
let liveTimer = 0;
let everLost = false;

function setConn(state, text) {
  const conn = $('#conn');
  conn.dataset.state = state;
  setText(conn, text);
  document.body.dataset.conn = state;
}

function connect() {
  clearTimeout(retryTimer);
  source?.close();
  source = new EventSource('/v1/stream');
  const on = (name, apply) => source.addEventListener(name, (m) => {
    feed();
    let data;
    try {
      data = JSON.parse(m.data || '{}');
    } catch (err) {
      console.error(`forewarn: bad ${name} event from the stream:`, err);
      return;
    }
    apply(data);
    invalidate();
  });
  on('hello', applyHello);
  on('scope', applyScope);
  on('scope-removed', applyScopeRemoved);
  on('campaign', applyCampaign);
  on('ready', onReady);
  on('ping', applyPing);
  source.addEventListener('error', onError);
  feed();
}

// feed restarts the watchdog: the stream is alive.
function feed() {
  clearTimeout(watchdog);
  watchdog = setTimeout(() => {
    lost();
    connect();
  }, WATCHDOG_MS);
}

function onReady() {
  applyReady();
  retryDelay = 1000;
  document.body.dataset.ready = 'true';
  clearTimeout(liveTimer);
  if (!everLost) {
    setConn('live', 'Live');
    return;
  }
  setConn('live', 'Reconnected');
  liveTimer = setTimeout(() => setConn('live', 'Live'), RECONNECTED_MS);
}

// onError marks the connection lost. EventSource retries network errors by
// itself; an HTTP error closes it for good, so the page retries with
// backoff, after checking whether the session has expired.
function onError() {
  lost();
  if (source.readyState !== EventSource.CLOSED) return;
  checkSession();
  retryTimer = setTimeout(connect, retryDelay);
  retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
}

function lost() {
  everLost = true;
  clearTimeout(liveTimer);
  setConn('lost', 'Connection lost — reconnecting…');
}

async function checkSession() {
  try {
    const res = await fetch('/v1/status', { headers: { Accept: 'application/json' } });
    if (res.status === 401) toLogin();
  } catch {
    // The server is unreachable: the retry will tell.
  }
}

// --- Start -----------------------------------------------------------------

// trackChrome keeps --chrome-h equal to the height of the sticky top bar
// and tabs, which wrap to more lines on a narrow screen.
function trackChrome() {
  const chrome = $('.chrome');
  new ResizeObserver(() => {
    document.documentElement.style.setProperty('--chrome-h', `${chrome.offsetHeight}px`);
  }).observe(chrome);
}

function start() {
  trackChrome();
  setupConfirm();
  setupFleet({ invalidate, openVM });
  setupEvents({ invalidate, openVM });
  setupHistory({ openVM });
  setupCampaigns({ invalidate });
  setupPanel();
  setupTabs();
  $('#upgrade-reload').addEventListener('click', () => window.location.reload());
  setInterval(tick, 1000);
  setInterval(() => sweepGhosts() && invalidate(), GHOST_SWEEP_MS);
  document.addEventListener('visibilitychange', () => document.hidden || invalidate());
  connect();
}

start();
