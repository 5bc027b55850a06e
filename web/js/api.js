// api.js - the one way the dashboard talks to waggled: the public HTTP API
// (data/openapi.json), same origin, with the session cookie. fetch sends
// Origin on every POST, which the server checks (CSRF).
import { h } from './dom.js';

export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.message || body.error)) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
  get tierInsufficient() { return this.status === 403 && this.body.error === 'TIER_INSUFFICIENT'; }
}

let onUnauthorized = () => {};
export function setUnauthorizedHandler(fn) { onUnauthorized = fn; }

export async function api(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  const text = await res.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = { error: 'NOT_JSON', message: text.slice(0, 200) }; }
  }
  if (res.status === 401 && path !== '/api/dashboard/login') onUnauthorized();
  if (!res.ok && res.status !== 202) throw new ApiError(res.status, data);
  return { status: res.status, body: data };
}

export const get = (path) => api('GET', path);
export const post = (path, body = {}) => api('POST', path, body);

// The 403 body of a route the plan does not include (spec 10): required,
// actual, upgradeUrl, shown where the feature would be.
export function upgradePrompt(body) {
  const url = typeof body.upgradeUrl === 'string' && /^https:\/\//.test(body.upgradeUrl)
    ? body.upgradeUrl : null;
  return h('div', { class: 'upgrade', role: 'note' },
    h('strong', {}, `Needs ${body.required || 'a higher tier'}`),
    h('span', {}, body.message || ` You are on ${body.actual || 'FREE'}.`),
    url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'button small' },
            'Upgrade') : null);
}

// An error as a line of text (or the upgrade prompt when that is what it is).
export function errorView(err) {
  if (err instanceof ApiError && err.tierInsufficient) return upgradePrompt(err.body);
  const code = err instanceof ApiError ? (err.body.error || err.status) : 'ERROR';
  return h('p', { class: 'error', role: 'alert' }, `${code}: ${err.message}`);
}
