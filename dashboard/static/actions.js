// Talking to the admin API and the operator's actions: requests signed in
// by the session cookie, the confirmation every destructive action asks for
// first, and the outcome of each action in #messages. The views only find
// which action a button names (data-action) and call here.

import { $, clock, plural, rememberFocus, restoreFocus, shortId } from './dom.js';
import { findEvent, scopeKeys } from './state.js';

const LOGIN = '/ui/login';

/** toLogin leaves for the sign-in form: the session is gone. */
export function toLogin() {
  window.location.assign(LOGIN);
}

/**
 * api calls the admin API and returns the decoded JSON answer. A 401 sends
 * the page to the sign-in form; any other failure throws an Error whose
 * message is the server's own.
 */
export async function api(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    throw new Error(`could not reach the server: ${err.message}`);
  }
  if (res.status === 401) {
    toLogin();
    throw new Error('the session has expired: sign in again');
  }
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new Error(data?.error ?? `${method} ${path}: HTTP ${res.status}`);
  return data;
}

/**
 * say shows the outcome of an action in #messages, which screen readers
 * announce (role="status"). Only the latest outcome is kept: it is what the
 * operator just did.
 */
export function say(text, isError = false) {
  const box = $('#messages');
  box.textContent = text;
  box.classList.toggle('error', isError);
  box.dataset.at = clock(Date.now());
}

/**
 * act runs an API call and says how it went: success(result) gives the
 * message, and an error shows the server's message.
 */
async function act(call, success) {
  try {
    const result = await call();
    say(success(result));
    return result;
  } catch (err) {
    say(err.message, true);
    return null;
  }
}

/**
 * confirmAction asks before a destructive action, in the #confirm dialog.
 * It resolves true only if the operator chose OK; Escape and Cancel give
 * false. The focus starts on Cancel, so a stray Enter does no harm. When
 * the action is itself a cancellation, Cancel is labelled backLabel, so
 * that the two buttons cannot be mistaken for each other. A live update
 * may rebuild the button that opened the dialog while it is open, so the
 * focus goes back to that button's counterpart when the dialog closes.
 */
function confirmAction(text, okLabel, backLabel = 'Cancel') {
  const dialog = $('#confirm');
  if (dialog.open) return Promise.resolve(false);
  const back = rememberFocus();
  $('#confirm-text').textContent = text;
  $('#confirm-ok').textContent = okLabel;
  $('#confirm-cancel').textContent = backLabel;
  dialog.returnValue = '';
  dialog.showModal();
  $('#confirm-cancel').focus();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      // The closed dialog may still hold the focus here: take it back.
      restoreFocus(back, { force: true });
      resolve(dialog.returnValue === 'ok');
    }, { once: true });
  });
}

/** setupConfirm wires the dialog's two buttons once. */
export function setupConfirm() {
  const dialog = $('#confirm');
  $('#confirm-ok').addEventListener('click', () => dialog.close('ok'));
  $('#confirm-cancel').addEventListener('click', () => dialog.close('cancel'));
}

/**
 * VM_ACTIONS describes the actions on a VM: what the button says, what the
 * confirmation explains, and how the outcome reads.
 */
export const VM_ACTIONS = [
  {
    action: 'restart', label: 'Restart', done: 'scheduled',
    explain: 'A Reboot event is scheduled with 15 minutes of notice, then the VM reboots.',
  },
  {
    action: 'redeploy', label: 'Redeploy', done: 'scheduled',
    explain: 'A Redeploy event is scheduled with 10 minutes of notice, then the VM moves to another host.',
  },
  {
    action: 'evict', label: 'Evict', done: 'scheduled',
    explain: 'A Preempt event gives 30 seconds of notice, then the VM is deleted. Spot VMs only.',
  },
  {
    action: 'terminate', label: 'Terminate', done: 'scheduled',
    explain: "A Terminate event gives the scale set's notice, then the VM is deleted. Scale-set VMs only.",
  },
  {
    action: 'fail', label: 'Fail', done: 'started',
    explain: 'A hardware failure: a Platform Reboot that starts at once, without notice.',
  },
];

/** vmAction asks, then runs one of VM_ACTIONS on the named VM. */
export async function vmAction(action, name) {
  const a = VM_ACTIONS.find((x) => x.action === action);
  if (!a) return;
  const ok = await confirmAction(`${a.label} ${name}? ${a.explain}`, `${a.label} ${name}`);
  if (!ok) return;
  await act(
    () => api('POST', `/v1/vms/${encodeURIComponent(name)}/${action}`),
    (e) => `${a.label} of ${name} ${a.done} (${e.type} ${shortId(e.id)})`,
  );
}

// eventName says which event an action is about, for the operator: its
// type and the VMs it hits.
function eventName(id) {
  const e = findEvent(id);
  if (!e) return `event ${shortId(id)}`;
  const res = e.resources ?? [];
  const who = res.length <= 2 ? res.join(', ') : `${res.length} VMs of ${e.scope}`;
  return `${e.type} of ${who || e.scope}`;
}

// APPROVAL_IMPACT says what approving an event does at once. A Freeze
// pauses the VMs for seconds and is approved without asking; the others
// reboot, move or delete VMs.
const APPROVAL_IMPACT = {
  Reboot: 'its VMs reboot now',
  Redeploy: 'its VMs move to another host now',
  Preempt: 'its VMs are deleted now',
  Terminate: 'its VMs are deleted now',
};

// approvalQuestion is what approving the event asks first, or null for a
// Freeze. An event the page no longer holds is asked about too.
function approvalQuestion(id, name) {
  const type = findEvent(id)?.type;
  if (type === 'Freeze') return null;
  const impact = APPROVAL_IMPACT[type] ?? 'it starts now';
  return [`Approve the ${name}? It starts at once, without waiting for its NotBefore: ${impact}.`, 'Approve, start now', 'Not yet'];
}

/**
 * eventAction approves, cancels or resolves an event. Approving anything
 * but a Freeze, cancelling and completing a failed event ask first.
 */
export async function eventAction(action, id) {
  const name = eventName(id);
  const spec = {
    approve: { ask: approvalQuestion(id, name), route: 'approve', done: 'approved: it starts now' },
    cancel: {
      ask: [`Cancel the ${name}? It leaves the document and goes to the history.`, 'Cancel the event', 'Keep it'],
      route: 'cancel', done: 'cancelled',
    },
    'resolve-complete': {
      ask: [`Complete the ${name} as it is, although its command failed on some VMs?`, 'Complete it'],
      route: 'resolve', body: { action: 'complete' }, done: 'completed',
    },
    'resolve-retry': { ask: null, route: 'resolve', body: { action: 'retry' }, done: 'retried on its failed VMs' },
  }[action];
  if (!spec) return;
  if (spec.ask && !(await confirmAction(...spec.ask))) return;
  await act(() => api('POST', `/v1/events/${encodeURIComponent(id)}/${spec.route}`, spec.body), () => `${name} ${spec.done}`);
}

/** campaignAction pauses, resumes or cancels a campaign; cancel asks first. */
export async function campaignAction(action, id) {
  if (!['pause', 'resume', 'cancel'].includes(action)) return;
  if (action === 'cancel') {
    const ok = await confirmAction(
      `Cancel campaign ${shortId(id)}? Its Scheduled events are cancelled; Started ones go on.`,
      'Cancel the campaign', 'Keep it');
    if (!ok) return;
  }
  const done = { pause: 'paused', resume: 'resumed', cancel: 'cancelled' }[action];
  await act(() => api('POST', `/v1/campaigns/${encodeURIComponent(id)}/${action}`), (c) => `Campaign ${shortId(c.id)} ${done}`);
}

/**
 * startCampaign asks, then starts a campaign from the form's spec. A
 * campaign is the widest action on the page (a Reboot of every scope), so
 * the question says how wide, how fast and with how much notice.
 */
export async function startCampaign(spec) {
  const where = spec.all ? 'every scope' : plural(spec.scopes.length, 'scope');
  if (!(await confirmAction(campaignQuestion(spec), `Start the ${spec.type} campaign`))) return null;
  return act(() => api('POST', '/v1/campaigns', spec), (c) => `${spec.type} campaign ${shortId(c.id)} started over ${where}`);
}

const SCOPES_NAMED = 5; // scopes the question names before counting the rest

// campaignQuestion reads like "Reboot every scope (1,000 scopes), 1 at a
// time, 15m notice?".
function campaignQuestion(spec) {
  let where;
  if (spec.all) {
    where = `every scope (${plural(scopeKeys().length, 'scope')})`;
  } else {
    const names = spec.scopes.slice(0, SCOPES_NAMED).join(', ');
    const more = spec.scopes.length > SCOPES_NAMED ? ` and ${spec.scopes.length - SCOPES_NAMED} more` : '';
    where = `${plural(spec.scopes.length, 'scope')} (${names}${more})`;
  }
  const pace = `${spec.parallelScopes || 1} at a time`;
  const notice = spec.notice ? `${spec.notice} notice` : "the type's own notice";
  const impact = spec.duration ? `, ${spec.duration} impact` : '';
  return `${spec.type} ${where}, ${pace}, ${notice}${impact}? Each scope goes one update domain at a time.`;
}
