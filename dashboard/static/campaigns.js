// The Campaigns tab: the form that starts a rollout, and each campaign's
// progress, overall and per scope, with pause, resume and cancel. A
// campaign over a thousand scopes lists only the scopes under way until
// the operator asks for all of them.

import { $, actionButton, clock, h, identity, pagedView, plural, reconcile, setText, shortId } from './dom.js';
import { allEvents, campaigns, revision } from './state.js';
import { campaignAction, say, startCampaign } from './actions.js';
import { countdownEl } from './events.js';

const FEW_SCOPES = 12; // a campaign over this many scopes or fewer lists them all
const SHOW_ENDED = 10; // ended campaigns shown before "show all"

const expanded = new Set(); // campaign ids whose every scope is listed
let showAllEnded = false;
let cards = new Map();
let view = null;

/** setupCampaigns wires the form and the campaign list. */
export function setupCampaigns(opts) {
  view = pagedView({ invalidate: opts.invalidate });
  $('#campaign-form').addEventListener('submit', onSubmit);
  $('#campaign-all').addEventListener('change', (ev) => {
    $('#campaign-scopes').disabled = ev.target.checked;
  });
  $('#campaign-list').addEventListener('click', onListClick);
  $('#campaigns-more').addEventListener('click', () => {
    showAllEnded = !showAllEnded;
    view.redraw();
  });
}

function onListClick(ev) {
  const b = ev.target.closest('button[data-action],button[data-toggle]');
  const card = b?.closest('[data-campaign]');
  if (!card) return;
  const id = card.dataset.campaign;
  if (b.dataset.action) {
    campaignAction(b.dataset.action, id);
    return;
  }
  if (expanded.has(id)) expanded.delete(id);
  else expanded.add(id);
  view.redraw();
}

async function onSubmit(ev) {
  ev.preventDefault();
  const spec = readForm();
  if (!spec) return;
  const submit = $('#campaign-form button[type="submit"]');
  submit.disabled = true;
  try {
    await startCampaign(spec);
  } finally {
    submit.disabled = false;
  }
}

// readForm turns the form into a CampaignSpec, leaving out what is empty
// so that the server applies its defaults.
function readForm() {
  const all = $('#campaign-all').checked;
  const scopes = $('#campaign-scopes').value.split(/[\s,]+/).filter(Boolean);
  if (!all && scopes.length === 0) {
    say('Name at least one scope, or tick "Every scope".', true);
    $('#campaign-scopes').focus();
    return null;
  }
  const spec = { type: $('#campaign-type').value };
  if (all) spec.all = true;
  else spec.scopes = scopes;
  const text = (id) => $(id).value.trim();
  if (text('#campaign-notice')) spec.notice = text('#campaign-notice');
  if (text('#campaign-duration')) spec.duration = text('#campaign-duration');
  if (text('#campaign-description')) spec.description = text('#campaign-description');
  if (text('#campaign-parallel')) spec.parallelScopes = Number(text('#campaign-parallel'));
  return spec;
}

/** renderCampaigns draws the list if a campaign, an event or a toggle changed. */
export function renderCampaigns() {
  if (!view.stale(revision())) return;
  const events = new Map(allEvents().map((e) => [e.id, e]));
  const active = (c) => c.state === 'running' || c.state === 'paused';
  const newest = (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt);
  const list = campaigns().sort(newest);
  const running = list.filter(active);
  const ended = list.filter((c) => !active(c));
  const shown = [...running, ...(showAllEnded ? ended : ended.slice(0, SHOW_ENDED))];
  cards = reconcile($('#campaign-list'), cards, shown, (c) => c.id, (c) => cardSig(c, events), (c) => buildCard(c, events));
  $('#campaigns-empty').hidden = list.length > 0;
  const more = $('#campaigns-more');
  more.hidden = ended.length <= SHOW_ENDED;
  setText(more, showAllEnded ? 'Show fewer ended campaigns' : `Show all ${ended.length} ended campaigns`);
}

// A card is rebuilt when its campaign changed (applyCampaign puts a new
// object), it was folded or unfolded, or an event of its scopes moved:
// comparing identities, not the JSON of a thousand scopes four times a
// second.
const cardSig = (c, events) =>
  `${identity(c)}:${expanded.has(c.id)}:${c.scopes.map((s) => s.event && eventSig(events.get(s.event))).join()}`;

const eventSig = (e) => (e ? `${e.status}${e.notBefore ?? ''}${e.startedAt ?? ''}` : '');

function buildCard(c, events) {
  const total = c.scopes.reduce((n, s) => n + s.updateDomains, 0);
  const done = c.scopes.reduce((n, s) => n + Math.min(s.done, s.updateDomains), 0);
  const inFlight = c.scopes.filter((s) => s.event).length;
  const waiting = c.scopes.filter((s) => s.waiting).length;
  let summary = `${done}/${total} update domains done`;
  if (inFlight) summary += ` · ${plural(inFlight, 'event')} in flight`;
  if (waiting && c.state === 'running') summary += ` · ${waiting} waiting`;
  return h('article', { class: 'campaign card', 'data-campaign': c.id, 'data-state': c.state, tabindex: -1 },
    h('header', { class: 'campaign-head' },
      h('h3', {}, h('span', { class: 'type', text: c.spec.type }), ' ',
        h('span', { class: 'id', text: shortId(c.id), title: c.id })),
      h('span', { class: `state-badge state-${c.state}`, text: c.state }),
      h('div', { class: 'button-row' }, ...steering(c))),
    h('p', { class: 'campaign-desc', text: describe(c) }),
    h('div', { class: 'progress-line' },
      h('progress', { max: Math.max(total, 1), value: done, 'aria-label': `${c.spec.type} campaign ${shortId(c.id)}: update domains done` }),
      h('span', { class: 'progress-text', text: summary })),
    h('p', { class: 'campaign-times muted', text: times(c) }),
    scopeTable(c, events));
}

// steering lists the buttons that apply to the campaign's state.
function steering(c) {
  if (c.state === 'running') return [actionButton('pause', 'Pause'), actionButton('cancel', 'Cancel', 'danger')];
  if (c.state === 'paused') return [actionButton('resume', 'Resume', 'primary'), actionButton('cancel', 'Cancel', 'danger')];
  return [];
}

function describe(c) {
  const where = c.spec.all ? 'every scope' : plural(c.scopes.length, 'scope');
  const impact = c.durationInSeconds > 0 ? `${c.durationInSeconds}s impact` : 'impact unknown';
  const notice = c.spec.notice ? `${c.spec.notice} notice` : "the type's minimum notice";
  const parallel = `${c.spec.parallelScopes || 1} at a time`;
  return `${c.description} — ${where}, ${parallel}, ${notice}, ${impact}`;
}

function times(c) {
  let text = `Started ${clock(c.createdAt)}`;
  if (c.endedAt) text += ` · ended ${clock(c.endedAt)}`;
  else if (c.estimatedEnd) text += ` · estimated end ${clock(c.estimatedEnd)}`;
  return text;
}

// scopeTable shows each scope's progress: all of them for a small running
// campaign or when expanded; else those under way, or none for a campaign
// that has ended, and a count of the rest.
function scopeTable(c, events) {
  const ended = c.state === 'done' || c.state === 'cancelled';
  const underWay = c.scopes.filter((s) => s.event || s.waiting);
  const all = expanded.has(c.id) || (!ended && c.scopes.length <= FEW_SCOPES);
  const rows = all ? c.scopes : ended ? [] : underWay.slice(0, FEW_SCOPES);
  const box = h('div', { class: 'campaign-scopes' });
  if (rows.length) {
    box.append(h('table', { class: 'compact' },
      h('thead', {}, h('tr', {}, ...['Scope', 'Progress', 'Now', ''].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, ...rows.map((s) => scopeRow(s, events.get(s.event), ended)))));
  }
  if (ended || c.scopes.length > FEW_SCOPES) box.append(scopeSummary(c, underWay.length, all));
  return box;
}

// scopeSummary counts the scopes by where they stand, with the button that
// lists them all or folds them away.
function scopeSummary(c, underWay, all) {
  const finished = c.scopes.filter((s) => s.done >= s.updateDomains).length;
  const rest = c.scopes.length - underWay - finished;
  const counts = [underWay && `${underWay} under way`, `${finished} done`, rest && `${rest} not started`].filter(Boolean);
  return h('p', { class: 'muted scope-rest' }, `${plural(c.scopes.length, 'scope')}: ${counts.join(', ')}. `,
    h('button', { type: 'button', class: 'link', 'data-toggle': 'scopes', 'aria-expanded': String(all), text: all ? 'Fold the list' : 'Show every scope' }));
}

function scopeRow(s, event, ended) {
  const pct = s.updateDomains ? Math.round((100 * Math.min(s.done, s.updateDomains)) / s.updateDomains) : 100;
  const bar = h('span', { class: 'minibar', 'aria-hidden': 'true' }, h('span', { class: 'minibar-fill' }));
  bar.firstChild.style.width = `${pct}%`; // a CSSOM property set, which the CSP allows
  return h('tr', { 'data-progress-scope': s.scope },
    h('td', { text: s.scope }),
    h('td', { class: 'nowrap' }, h('span', { class: 'ud-progress', text: `UD ${s.done}/${s.updateDomains}` }), bar),
    h('td', {}, ...scopeNow(s, event, ended)),
    h('td', {}, s.noNotice ? h('span', { class: 'badge badge-quiet', text: 'no notice', title: 'This scope had not enabled Scheduled Events: its events start at once.' }) : ''));
}

// scopeNow says what a scope of the campaign is doing right now.
function scopeNow(s, event, ended) {
  if (s.done >= s.updateDomains) return ['done'];
  if (ended) return [`stopped at UD ${s.done}`];
  if (s.waiting) return [`UD ${s.done} waiting: ${s.waiting}`];
  if (!s.event) return ['not started'];
  if (!event) return [`UD ${s.done}: event ${shortId(s.event)}`];
  const what = event.status === 'Started' ? 'in maintenance' : 'scheduled';
  return [`UD ${s.done} ${what}, `, countdownEl(event)];
}
