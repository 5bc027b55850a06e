// app.js - the dashboard's shell: sign-in with the one-time link, the
// screens (routed by the URL fragment, #/connectors ...), the tier badge and
// the banner shown while elevated autonomy is active. Plain ES modules, no
// framework: nine screens of lists and forms need no virtual DOM, and
// nothing has to be vendored, audited or updated.
import { api, get, post, setUnauthorizedHandler } from './api.js';
import * as autonomy from './autonomy.js';
import { h, replace, ago } from './dom.js';
import * as events from './events.js';
import connectors from './screens/connectors.js';
import approvals from './screens/approvals.js';
import autonomyScreen from './screens/autonomy.js';
import gate from './screens/gate.js';
import capabilities from './screens/capabilities.js';
import catalog from './screens/catalog.js';
import acquire from './screens/acquire.js';
import tier from './screens/tier.js';
import audit from './screens/audit.js';

const screens = { connectors, approvals, autonomy: autonomyScreen, gate, capabilities, catalog,
                  acquire, tier, audit };
const main = () => document.getElementById('main');
export const session = { info: null, tier: null };
let cleanup = null;

function signedOut(reason) {
  events.stop();
  document.body.classList.add('signed-out');
  document.getElementById('logout').hidden = true;
  replace(main(),
    h('section', { class: 'card login', 'aria-label': 'Sign in' },
      h('h1', {}, 'Sign in to waggle'),
      h('p', {}, reason || 'This browser has no dashboard session.'),
      h('p', {}, 'On the machine that runs waggled, run'),
      h('pre', {}, h('code', {}, 'waggle dashboard')),
      h('p', {}, 'and open the one-time link it prints (it works once, for 10 minutes). ' +
                 '`waggle serve` and scripts/run.sh print one when they start.')));
}

async function exchange(token) {
  // The token came in the fragment: never in a request line, a log or a Referer.
  history.replaceState(null, '', '/#/connectors');
  try {
    await post('/api/dashboard/login', { token });
    return true;
  } catch (e) {
    signedOut(e.body && e.body.error === 'LOGIN_INVALID'
      ? 'That login link was already used or has expired.' : `Sign-in failed: ${e.message}`);
    return false;
  }
}

export async function refreshTier() {
  try {
    session.tier = (await get('/api/tier')).body;
    const t = session.tier;
    const badge = document.getElementById('tier-badge');
    badge.textContent = t.trialActive ? `TRIAL · ${t.trialDaysRemaining} days left` : t.tier;
  } catch { /* the badge stays as it was */ }
  return session.tier;
}

function showBanner() {
  const b = document.getElementById('banner');
  const a = autonomy.current();
  if (a.level === 'normal') {
    b.hidden = true;
    document.body.classList.remove('elevated');
    return;
  }
  b.hidden = false;
  document.body.classList.add('elevated');
  replace(b, h('strong', {}, `${a.level === 'yolo' ? 'YOLO' : 'Trusted'} autonomy is on`),
    ` — calls the gate would ask about may run without your click for ${ago(a.expiresAt - Date.now())} more. `,
    h('a', { href: '#/autonomy' }, 'Change'));
}

function route() {
  if (!session.info) return;
  const name = (location.hash.match(/^#\/([a-z]+)/) || [])[1] || 'connectors';
  const screen = screens[name] || connectors;
  if (cleanup) { try { cleanup(); } catch { /* ignore */ } }
  cleanup = null;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.getAttribute('href') === `#/${name}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.getElementById('nav').classList.remove('open');
  document.getElementById('nav-toggle').setAttribute('aria-expanded', 'false');
  const m = main();
  replace(m, h('p', { class: 'muted' }, 'Loading…'));
  document.title = `${name} · waggle dashboard`;
  Promise.resolve(screen(m, session)).then((c) => { cleanup = c || null; })
    .catch((e) => replace(m, h('p', { class: 'error', role: 'alert' }, String(e.message || e))));
  m.focus({ preventScroll: true });
}

function pendingCount() {
  const el = document.getElementById('pending-count');
  get('/api/approvals').then(({ body }) => {
    const n = body.approvals.filter((a) => a.state === 'pending').length;
    el.textContent = n ? String(n) : '';
  }).catch(() => {});
}

async function boot() {
  setUnauthorizedHandler(() => { session.info = null; signedOut('Your session ended.'); });
  const m = location.hash.match(/(?:^#|&)t=([0-9a-f]{64})$/);
  if (location.pathname === '/login' || m) {
    if (!m || !(await exchange(m[1]))) { if (!m) signedOut('The login link has no token.'); return; }
  }
  try {
    session.info = (await get('/api/dashboard/session')).body;
  } catch {
    signedOut();
    return;
  }
  document.body.classList.remove('signed-out');
  const logout = document.getElementById('logout');
  logout.hidden = false;
  logout.addEventListener('click', async () => {
    await api('POST', '/api/dashboard/logout', {}).catch(() => {});
    session.info = null;
    signedOut('Signed out.');
  });
  document.getElementById('nav-toggle').addEventListener('click', (e) => {
    const nav = document.getElementById('nav');
    const open = nav.classList.toggle('open');
    e.currentTarget.setAttribute('aria-expanded', String(open));
  });
  events.start();
  events.subscribe(() => pendingCount());
  autonomy.onChange(showBanner);
  setInterval(showBanner, 1000);
  showBanner();
  pendingCount();
  await refreshTier();
  window.addEventListener('hashchange', route);
  route();
}

session.refreshTier = refreshTier;
boot();
