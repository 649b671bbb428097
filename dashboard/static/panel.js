// The VM panel (#vm-panel): one VM's details, the events that name it, and
// the actions on it. It stays open beside the fleet and follows the VM live;
// Escape or the close button returns the focus to where it came from.

import { $, actionButton, dateTime, h, rememberFocus, restoreFocus } from './dom.js';
import { findVM, revision } from './state.js';
import { VM_ACTIONS, eventAction, vmAction } from './actions.js';
import { approvedText, countdownEl, rowActions, statusCell } from './events.js';
import { KINDS } from './fleet.js';

let current = null; // the VM shown, by name
let returnTo = null; // rememberFocus's note of the element to focus when the panel closes
let drawn = { rev: -1, sig: '' };

/** setupPanel wires the panel's buttons and the Escape key. */
export function setupPanel() {
  const panel = $('#vm-panel');
  $('#vm-panel-close').addEventListener('click', closeVM);
  panel.addEventListener('click', onClick);
  document.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Escape' || !current || $('#confirm').open) return;
    // Escape in a field outside the panel clears the field, not the panel.
    if (!panel.contains(ev.target) && ev.target.closest?.('input, select, textarea')) return;
    closeVM();
  });
}

function onClick(ev) {
  const b = ev.target.closest('button[data-action]');
  if (!b || !current) return;
  const box = b.closest('[data-panel-event]');
  if (box) eventAction(b.dataset.action, box.dataset.panelEvent);
  else vmAction(b.dataset.action, current);
}

/** openVM shows a VM in the panel and moves the focus there. */
export function openVM(name, from) {
  current = name;
  returnTo = rememberFocus(null, from ?? document.activeElement);
  drawn = { rev: -1, sig: '' };
  $('#vm-panel').hidden = false;
  document.body.classList.add('panel-open');
  renderPanel();
  markSelected();
  $('#vm-panel-title').focus();
}

/**
 * closeVM hides the panel and gives the focus back to what opened it, or
 * its counterpart if a live update rebuilt it; if that is gone or on a tab
 * no longer shown, to the tab shown.
 */
function closeVM() {
  if (!current) return;
  current = null;
  $('#vm-panel').hidden = true;
  document.body.classList.remove('panel-open');
  markSelected();
  const tab = $('[role="tab"][aria-selected="true"]');
  if (returnTo) restoreFocus(returnTo, { force: true, last: tab });
  else tab.focus();
  returnTo = null;
}

/**
 * markSelected outlines the VM the panel shows in the fleet grid; it runs
 * after each render, since a render may rebuild that VM's button.
 */
export function markSelected() {
  const want = current ? $(`#fleet-grid button[data-vm="${CSS.escape(current)}"]`) : null;
  for (const el of document.querySelectorAll('#fleet-grid .vm.selected')) {
    if (el !== want) el.classList.remove('selected');
  }
  want?.classList.add('selected');
}

/** renderPanel redraws the open panel when its VM or events changed. */
export function renderPanel() {
  if (!current || drawn.rev === revision()) return;
  const found = findVM(current);
  const sig = JSON.stringify(found?.cell ?? null);
  drawn.rev = revision();
  if (sig === drawn.sig) return;
  drawn.sig = sig;
  const body = $('#vm-panel-body');
  const memo = rememberFocus(body);
  $('#vm-panel-title').textContent = current;
  body.replaceChildren(...(found ? content(found.cell, found.view) : [h('p', { text: 'This VM is not in the fleet.' })]));
  restoreFocus(memo, { last: $('#vm-panel-title') });
}

function content(cell, view) {
  const { vm } = cell;
  return [
    h('p', { class: 'panel-state' },
      h('span', { class: `swatch s-${cell.state}`, 'aria-hidden': 'true' }),
      h('strong', { text: cell.state })),
    details(vm, view),
    h('h3', { text: 'Events' }),
    cell.events.length ? h('ul', { class: 'panel-events' }, ...cell.events.map(eventItem)) :
      h('p', { class: 'muted', text: 'No event names this VM.' }),
    h('h3', { text: 'Actions' }),
    actions(cell),
  ];
}

function details(vm, view) {
  const rows = [
    ['Scope', `${vm.scope} (${KINDS[view.scope.kind] ?? view.scope.kind})`],
    ['Update domain', String(vm.updateDomain)],
    ['Fault domain', `FD${vm.faultDomain}`],
    ['Priority', vm.priority],
    ['VM id', vm.vmId],
    ['Addresses', (vm.addresses ?? []).join(', ') || '—'],
    ['Created', dateTime(vm.createdAt)],
  ];
  return h('dl', { class: 'panel-details' },
    ...rows.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v ?? '—' })]));
}

function eventItem(e) {
  return h('li', { 'data-panel-event': e.id, tabindex: -1 },
    h('div', { class: 'panel-event-head' },
      h('span', { class: 'type', text: e.type }),
      statusCell(e),
      countdownEl(e)),
    e.description ? h('p', { class: 'muted', text: e.description }) : '',
    h('p', { class: 'muted' }, `${e.source} event `, h('span', { class: 'id-inline', text: e.id })),
    h('p', { class: 'muted' }, 'Approved: ', h('span', { class: 'approved', text: approvedText(e) })),
    h('div', { class: 'button-row' }, ...rowActions(e)));
}

// actions lists the five actions; a VM already gone has none.
function actions(cell) {
  if (cell.gone) return h('p', { class: 'muted', text: 'This VM has been deleted.' });
  return h('div', { class: 'panel-actions' }, ...VM_ACTIONS.map((a) => {
    const b = actionButton(a.action, a.label, a.action === 'restart' ? '' : 'danger-outline');
    b.title = a.explain;
    return b;
  }));
}
