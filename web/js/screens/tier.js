// Tier (spec 10): the plan, the trial, and every feature. A feature the
// plan does not include stays visible with the upgrade prompt of its
// route's 403 body (required, actual, upgradeUrl), fetched from the route
// itself; the tier check runs before any handler, so the probe changes
// nothing.
import { get, post, api, errorView, upgradePrompt } from '../api.js';
import { h, replace, section, toast } from '../dom.js';

// feature -> [label, method, path, body] (routes of data/openapi.json)
const FEATURES = {
  personas: ['Custom personas', 'POST', '/api/personas/generate', {}],
  marketplace_install: ['Marketplace install'],
  marketplace_publish: ['Publish to the marketplace', 'POST', '/api/marketplace/publish', {}],
  billing_portal: ['Billing portal'],
  cost_by_workspace: ['Cost by workspace', 'GET', '/api/cost/by-workspace'],
  cloud_sync: ['Cloud sync', 'POST', '/api/cloud-sync/toggle', {}],
  admin_overview: ['Admin overview', 'GET', '/api/admin/overview'],
  audit_export: ['Audit export', 'POST', '/api/admin/audit-export', {}],
  team_connect: ['Team server', 'POST', '/api/team/connect', {}],
  team_governance: ['Team governance', 'GET', '/api/team/governance/permissions'],
  enterprise_packs: ['Enterprise packs', 'GET', '/api/marketplace/enterprise-packs'],
  kvark: ['KVARK enterprise retrieval'],
};

async function probe(feature, cell) {
  const [, method, path, body] = FEATURES[feature] || [];
  if (!path) {
    replace(cell, h('span', { class: 'muted' }, 'Not included on this plan.'));
    return;
  }
  try {
    await api(method, path, body);
    replace(cell, h('span', { class: 'ok' }, 'Available'));
  } catch (err) {
    replace(cell, err.tierInsufficient ? upgradePrompt(err.body) : h('span', { class: 'ok' }, 'Available'));
  }
}

export default async function render(main, ctx) {
  let t;
  try { t = await ctx.refreshTier(); if (!t) t = (await get('/api/tier')).body; } catch (err) { replace(main, errorView(err)); return; }
  const caps = t.capabilities || {};
  const features = caps.features || {};
  const rows = Object.keys(features).map((f) => {
    const cell = h('td', {});
    const on = features[f] === true;
    if (on) cell.appendChild(h('span', { class: 'ok' }, 'Included'));
    else probe(f, cell);
    return h('tr', { 'data-feature': f }, h('th', { scope: 'row' }, (FEATURES[f] || [f])[0]), cell);
  });
  const trial = t.trialActive ? `Trial: ${t.trialDaysRemaining} days left.`
    : t.trialStartedAt ? 'The trial has ended.' : 'The 15-day trial has not been started.';
  const start = !t.trialActive && !t.trialStartedAt ? h('button', { type: 'button', class: 'button',
    onclick: async () => {
      try { await post('/api/tier/start-trial'); toast('Trial started'); render(main, ctx); }
      catch (err) { toast(err.message, 'error'); }
    } }, 'Start the trial') : null;
  replace(main, h('h1', {}, 'Tier'),
    section('Your plan', h('p', { class: 'tier-now' }, h('strong', { id: 'tier-name' }, t.tier), t.rawTier && t.rawTier !== t.tier ? ` (set: ${t.rawTier})` : ''),
      h('p', {}, trial), start,
      h('p', {}, `Connectors: ${caps.connectorLimit === -1 || caps.connectorLimit === null ? 'no limit' : caps.connectorLimit}; workspaces: ${caps.workspaceLimit === -1 ? 'no limit' : caps.workspaceLimit}.`),
      h('p', { class: 'hint' }, 'Changing the plan needs the operator: waggle tier set PRO (or PATCH /api/tier with the admin token).')),
    section('Features', h('table', { class: 'features', 'aria-label': 'Features' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Feature'), h('th', { scope: 'col' }, 'On this plan'))),
      h('tbody', {}, rows))));
}
