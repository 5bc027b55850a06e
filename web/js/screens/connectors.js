// Connectors (spec 8.4-8.5): every registered connector with a drawn
// monogram (no vendor logo: logoUrl is on a CDN, which the CSP and offline
// use rule out), category, status, the connect form its authType and
// setupGuide call for, health check and disconnect. The plan's connector
// limit is shown before it is reached.
import { get, post, errorView, upgradePrompt } from '../api.js';
import { h, replace, section, field, toast } from '../dom.js';

const STATUS_TEXT = { connected: 'connected', disconnected: 'not connected', expired: 'expired', error: 'error' };

function monogram(c) {
  const name = String(c.name || c.id || '?');
  const letters = name.split(/[\s-]+/).filter(Boolean).map((w) => w[0]).join('').slice(0, 2) || '?';
  let hash = 0;
  for (const ch of String(c.id || name)) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return h('span', { class: `logo hue${hash % 8}`, 'aria-hidden': 'true' }, letters.toUpperCase());
}

// Which credential fields the connect body takes for an authType.
function credentialFields(c) {
  const secret = c.authType === 'api_key' ? 'apiKey' : 'token';
  const label = { api_key: 'API key', bearer: 'Access token', basic: 'Password or API token',
                  oauth2: 'Access token (from a sign-in)' }[c.authType] || 'Token';
  const inputs = [{ name: secret, label, type: 'password', required: true }];
  if (c.authType === 'basic' || c.id === 'email' || c.id === 'jira') inputs.push({ name: 'email', label: 'Email / user', type: 'text' });
  if (c.authType === 'oauth2') inputs.push({ name: 'refreshToken', label: 'Refresh token', type: 'password' });
  inputs.push({ name: 'baseUrl', label: 'Base URL (self-hosted site, optional)', type: 'url' });
  return inputs;
}

function connectForm(c, atLimit, reload) {
  const out = h('div', { class: 'form-result', 'aria-live': 'polite' });
  const inputs = credentialFields(c).map((f) => ({
    f, el: h('input', { name: f.name, type: f.type, required: f.required, autocomplete: 'off',
                        spellcheck: 'false', 'aria-label': `${c.name}: ${f.label}` }) }));
  const form = h('form', { class: 'connect', 'aria-label': `Connect ${c.name}` },
    c.setupGuide ? h('p', { class: 'guide' }, c.setupGuide) : null,
    c.authType === 'oauth2' ? h('p', { class: 'hint' },
      `OAuth sign-in runs on the operator's machine: waggle connectors oauth ${c.id} --client-id ID. ` +
      'Or paste an access token here.') : null,
    inputs.map(({ f, el }) => field(f.label, el)),
    h('button', { type: 'submit', class: 'button', disabled: atLimit }, `Connect ${c.name}`),
    atLimit ? h('p', { class: 'hint' }, 'The plan\'s connector limit is reached: disconnect one, or upgrade.') : null,
    out);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = {};
    for (const { f, el } of inputs) if (el.value) body[f.name] = el.value;
    try {
      await post(`/api/connectors/${encodeURIComponent(c.id)}/connect`, body);
      toast(`${c.name} connected`);
      reload();
    } catch (err) {
      replace(out, errorView(err));
    }
  });
  return form;
}

function card(c, atLimit, reload) {
  const result = h('div', { class: 'form-result', 'aria-live': 'polite' });
  const status = h('span', { class: `status ${c.status}` }, STATUS_TEXT[c.status] || String(c.status));
  const health = h('button', { type: 'button', class: 'button small secondary',
    'aria-label': `Check the health of ${c.name}`,
    onclick: async () => {
      replace(result, h('span', { class: 'muted' }, 'Checking…'));
      try {
        const { body } = await get(`/api/connectors/${encodeURIComponent(c.id)}/health`);
        replace(result, h('p', { class: 'ok' }, `Healthy: ${body.status}` +
          (body.latencyMs !== undefined ? ` (${body.latencyMs} ms)` : '')));
      } catch (err) {
        const b = err.body || {};
        replace(result, b.status ? h('p', { class: 'error' }, `${b.status}: ${b.error || err.message}`) : errorView(err));
      }
    } }, 'Health check');
  const disconnect = h('button', { type: 'button', class: 'button small danger',
    'aria-label': `Disconnect ${c.name}`,
    onclick: async () => {
      try {
        await post(`/api/connectors/${encodeURIComponent(c.id)}/disconnect`);
        toast(`${c.name} disconnected`);
        reload();
      } catch (err) { replace(result, errorView(err)); }
    } }, 'Disconnect');
  const connected = c.status === 'connected';
  const details = h('details', {}, h('summary', {}, connected ? 'Reconnect' : 'Connect'),
                    connectForm(c, atLimit && !connected, reload));
  return h('li', { class: 'connector', 'data-id': c.id },
    h('div', { class: 'row' }, monogram(c),
      h('div', { class: 'grow' }, h('h3', {}, c.name), h('p', { class: 'muted' }, c.description)),
      status),
    h('p', { class: 'meta' }, h('span', { class: 'tag' }, c.category || 'other'), ' ',
      h('span', { class: 'tag' }, c.authType), ' ', h('span', { class: 'tag' }, `${(c.tools || []).length} tools`)),
    h('div', { class: 'actions' }, health, connected ? disconnect : null),
    details, result);
}

export default async function render(main, ctx) {
  const reload = () => render(main, ctx);
  let list, tier;
  try {
    [list, tier] = await Promise.all([get('/api/connectors'), ctx.refreshTier()]);
  } catch (err) {
    replace(main, errorView(err));
    return;
  }
  const all = list.body.connectors || [];
  const connected = all.filter((c) => c.status === 'connected' && c.substrate !== 'demo').length;
  const limit = tier && tier.capabilities ? tier.capabilities.connectorLimit : undefined;
  const unlimited = limit === undefined || limit === null || limit < 0;
  const atLimit = !unlimited && connected >= limit;
  const filter = h('input', { type: 'search', placeholder: 'Filter by name or category', 'aria-label': 'Filter connectors' });
  const ul = h('ul', { class: 'cards', 'aria-label': 'Connectors' });
  const draw = () => {
    const q = filter.value.toLowerCase();
    replace(ul, all.filter((c) => !q || `${c.name} ${c.id} ${c.category}`.toLowerCase().includes(q))
      .map((c) => card(c, atLimit, reload)));
  };
  filter.addEventListener('input', draw);
  draw();
  replace(main,
    h('h1', {}, 'Connectors'),
    h('p', { class: `limit${atLimit ? ' full' : ''}`, id: 'connector-limit' },
      unlimited ? `${connected} connected (no limit on ${tier ? tier.tier : 'this plan'})`
                : `${connected} of ${limit} connectors connected on ${tier.tier}` +
                  (atLimit ? ' — the limit is reached.' : ` — ${limit - connected} left.`)),
    atLimit ? upgradePrompt({ required: 'PRO', actual: tier.tier, upgradeUrl: 'https://waggle-os.ai/upgrade',
                              message: 'A higher plan connects more services.' }) : null,
    section('All connectors', filter, ul));
}
