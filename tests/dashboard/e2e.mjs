// e2e.mjs - the dashboard in a real browser: Debian's chromium, headless,
// driven by playwright-core (no browser download), against a real waggled
// and a loopback GitHub replay server. Run by ctest (label e2e) as
//   node e2e.mjs WAGGLE_BINARY SCREENSHOT_DIR
// Each step prints "ok - name" or "not ok - name"; exit 0 only when all
// passed. Screenshots of every screen go to SCREENSHOT_DIR.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startReplay } from './replay.mjs';

const [waggle, shots] = process.argv.slice(2);
if (!waggle || !shots) {
  console.error('usage: node e2e.mjs WAGGLE_BINARY SCREENSHOT_DIR');
  process.exit(2);
}
const CHROMIUM = process.env.WAGGLE_CHROMIUM || '/usr/bin/chromium';
const GH_TOKEN = 'ghp_dashboarde2etoken0123456789abcd';
const XSS_ARG = '<img src=x onerror="window.__xss=\'arg\'"><script>window.__xss=\'arg2\'</script>';
const XSS_NAME = '<img src=x onerror="window.__xss=\'name\'">Evil server';
fs.mkdirSync(shots, { recursive: true });

let failed = 0;
async function step(name, fn) {
  try {
    await fn();
    console.log(`ok - ${name}`);
  } catch (e) {
    failed++;
    console.log(`not ok - ${name}\n  ${String(e && e.stack || e).split('\n').slice(0, 6).join('\n  ')}`);
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg || 'assertion failed'); }

// ---- the data dir: a catalog entry and a skill whose names are markup ----
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waggle-e2e-'));
fs.writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify([{
  id: 'xss-probe', name: XSS_NAME, description: '<script>window.__xss="desc"</script> probe for markup in names',
  author: 'e2e', category: 'Code', url: 'https://example.com/xss-probe', installCmd: 'npx -y xss-probe',
  capabilities: ['probe markup'], official: false, keywords: ['xssprobe'],
}]));

// ---- waggled ----
function startWaggled() {
  return new Promise((resolve, reject) => {
    const p = spawn(waggle, ['--data-dir', dir, 'serve', '--listen', '127.0.0.1:0', '--threads', '4',
                             '--allow-private-upstreams', '--allow-http-upstreams'],
                    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, WAGGLE_API_TOKEN: '' } });
    let log = '', base = null;
    const timer = setTimeout(() => reject(new Error(`waggled did not start:\n${log}`)), 30000);
    p.stderr.setEncoding('utf8');
    p.stderr.on('data', (d) => {
      log += d;
      const l = log.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (l) base = l[1];
      const u = log.match(/dashboard at (http:\/\/\S+\/login#t=[0-9a-f]{64})/);
      if (base && u) { clearTimeout(timer); resolve({ proc: p, base, loginUrl: u[1], log: () => log }); }
    });
    p.on('exit', (code) => reject(new Error(`waggled exited ${code}:\n${log}`)));
  });
}

const replay = await startReplay(GH_TOKEN);
const srv = await startWaggled();
const apiToken = fs.readFileSync(path.join(dir, 'api-token'), 'utf8').trim();
async function bearer(method, p, body) {
  const r = await fetch(srv.base + p, { method, headers: { Authorization: `Bearer ${apiToken}`, 'Content-Type': 'application/json' },
                                        body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: await r.json().catch(() => null) };
}

// A second origin on the same host (127.0.0.1, another port): the same
// *site*, so SameSite=Strict lets the cookie through; only Origin tells.
const evil = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end(`<!doctype html><title>evil</title><script>
    fetch(${JSON.stringify(srv.base)} + '/api/connectors/github/disconnect', { method: 'POST', mode: 'no-cors',
      credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: '{}' })
      .then(() => { document.title = 'sent'; }, () => { document.title = 'blocked'; });
  </script>`);
});
await new Promise((r) => evil.listen(0, '127.0.0.1', r));
const evilBase = `http://127.0.0.1:${evil.address().port}`;

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
                                        args: ['--no-sandbox', '--disable-dev-shm-usage'] });
// WAGGLE_SHOT_SCALE=0.6 makes smaller screenshots (docs/img/ in the README).
const context = await browser.newContext({ viewport: { width: 1280, height: 800 },
  deviceScaleFactor: Number(process.env.WAGGLE_SHOT_SCALE || 1) });
const page = await context.newPage();
const problems = [];
page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
page.on('console', (m) => {
  if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
});
if (process.env.WAGGLE_E2E_DEBUG) {
  const t0 = Date.now();
  page.on('request', (r) => { if (r.url().includes('/api/events')) console.log(`# ${Date.now() - t0} ms request ${r.url()}`); });
  page.on('response', (r) => { if (r.url().includes('/api/events')) console.log(`# ${Date.now() - t0} ms response ${r.status()}`); });
  page.on('requestfailed', (r) => { if (r.url().includes('/api/events')) console.log(`# ${Date.now() - t0} ms failed ${r.failure().errorText}`); });
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) console.log(`# ${Date.now() - t0} ms navigated ${f.url()}`); });
}
page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
const shot = (name) => page.screenshot({ path: path.join(shots, `${name}.png`) });
const screen = async (name) => {
  await page.goto(`${srv.base}/#/${name}`);
  await page.waitForSelector('main h1');
};

try {
  await step('log in through the one-time URL; the cookie is HttpOnly and SameSite=Strict', async () => {
    await page.goto(srv.loginUrl);
    await page.waitForSelector('main h1:text("Connectors")');
    assert(!page.url().includes('t='), `the token stays in the address bar: ${page.url()}`);
    const cookies = await context.cookies(srv.base);
    const c = cookies.find((k) => k.name === 'waggle_session');
    assert(c, 'no session cookie');
    assert(c.httpOnly && c.sameSite === 'Strict' && c.path === '/', JSON.stringify(c));
    assert(await page.evaluate(() => document.cookie) === '', 'the cookie is readable from script');
    // the link works once
    const other = await browser.newContext();
    const p2 = await other.newPage();
    await p2.goto(srv.loginUrl);
    await p2.waitForSelector('text=already used or has expired');
    await other.close();
  });

  await step('the connector list shows every connector with status and the plan limit', async () => {
    await page.waitForSelector('li.connector[data-id="github"]');
    const n = await page.locator('li.connector').count();
    const { body } = await bearer('GET', '/api/connectors');
    assert(n === body.connectors.length, `${n} cards for ${body.connectors.length} connectors`);
    assert(/0 of 5 connectors connected on FREE/.test(await page.textContent('#connector-limit')));
    assert(await page.locator('li.connector[data-id="github"] .status').textContent() === 'not connected');
    await shot('connectors');
  });

  await step('connect GitHub against the loopback replay server, then a health check', async () => {
    const card = page.locator('li.connector[data-id="github"]');
    await card.locator('summary').click();
    await card.locator('input[name="token"]').fill(GH_TOKEN);
    await card.locator('input[name="baseUrl"]').fill(replay.base);
    await card.locator('button[type="submit"]').click();
    await page.waitForSelector('li.connector[data-id="github"] .status.connected');
    assert(/1 of 5 connectors connected/.test(await page.textContent('#connector-limit')));
    await page.locator('li.connector[data-id="github"] button:text("Health check")').click();
    await page.waitForSelector('li.connector[data-id="github"] .ok');
    assert(replay.seen.some((s) => s.method === 'GET' && s.url === '/user'), 'the probe never reached the replay server');
  });

  await step('a tool call at Normal waits in the live queue and is approved there', async () => {
    await screen('approvals');
    const before = replay.issues().length;
    const r = await bearer('POST', '/api/tools/execute', { tool: 'connector_github_create_issue',
      args: { owner: 'octocat', repo: 'Hello-World', title: 'Approved from the dashboard' } });
    assert(r.status === 202, `expected 202, got ${r.status} ${JSON.stringify(r.body)}`);
    const item = page.locator(`li.approval[data-approval="${r.body.approvalId}"]`);
    await item.waitFor();
    assert(/Approved from the dashboard/.test(await item.locator('pre.args').textContent()));
    assert(/expires in/.test(await item.locator('.countdown').textContent()));
    assert((await item.textContent()).includes(r.body.decision.rule), 'the rule is not shown');
    await shot('approvals');
    await item.locator('button:text("Approve")').click();
    await item.waitFor({ state: 'detached' });
    for (let i = 0; i < 100 && replay.issues().length === before; i++) await page.waitForTimeout(100);
    assert(replay.issues().length === before + 1, 'the approved call did not run');
    assert(JSON.parse(replay.issues().at(-1).body).title === 'Approved from the dashboard');
  });

  await step('XSS through a tool argument renders as text', async () => {
    const r = await bearer('POST', '/api/tools/execute', { tool: 'connector_github_create_issue',
      args: { owner: 'octocat', repo: 'Hello-World', title: XSS_ARG } });
    assert(r.status === 202);
    const item = page.locator(`li.approval[data-approval="${r.body.approvalId}"]`);
    await item.waitFor();
    const text = await item.locator('pre.args').textContent();
    assert(text.includes('<img src=x onerror='), `the markup is not shown as text: ${text}`);
    assert(await page.locator('main img, main script, main svg').count() === 0, 'markup became elements');
    await item.locator('button:text("Deny")').click();
    await item.waitFor({ state: 'detached' });
    assert(await page.evaluate(() => window.__xss) === undefined, 'a script ran');
  });

  await step('Trusted for 10 minutes: the banner shows and an auto-approved step appears', async () => {
    await screen('autonomy');
    await page.locator('#level-trusted').check();
    await page.selectOption('#autonomy-minutes', '10');
    await page.locator('button:text("Apply")').click();
    await page.waitForSelector('#banner:not([hidden])');
    assert(/Trusted autonomy is on/.test(await page.textContent('#banner')));
    assert(/caps an override at 8 h/.test(await page.textContent('main')), 'the server cap is not shown');
    await shot('autonomy');
    // write_file is standard: Normal asks, Trusted passes it with a ⚡ step
    // on the live stream (a connector write is elevated: Trusted still asks).
    await screen('approvals');
    const form = page.locator('form[aria-label="Run a tool call"]');
    await form.locator('input').first().fill('write_file');
    await form.locator('textarea').fill('{"path":"notes.txt","content":"hello"}');
    await form.locator('button:text("Ask the gate")').click();
    const auto = page.locator('ul[aria-label="Auto-approved steps"] li');
    await auto.first().waitFor();
    assert(/⚡ write_file auto-approved \(trusted\)/.test(await auto.first().textContent()),
           await auto.first().textContent());
    // and a connector write at Trusted still waits for a person
    await form.locator('input').first().fill('connector_github_create_issue');
    await form.locator('textarea').fill('{"owner":"octocat","repo":"Hello-World","title":"at trusted"}');
    await form.locator('button:text("Run")').click();
    await page.waitForSelector('form[aria-label="Run a tool call"] :text("Waiting for approval")');
    await shot('approvals-trusted');
    await page.locator('li.approval button:text("Deny")').first().click();
    await screen('autonomy');
    await page.locator('button:text("Back to Normal")').click();
    await page.waitForSelector('#banner[hidden]', { state: 'attached' });
  });

  await step('personas on FREE show the upgrade prompt from the 403 body', async () => {
    await screen('tier');
    const row = page.locator('tr[data-feature="personas"]');
    await row.locator('.upgrade').waitFor();
    const t = await row.textContent();
    assert(/Needs PRO/.test(t) && /requires the PRO tier/.test(t), t);
    assert(await row.locator('a').getAttribute('href') === 'https://waggle-os.ai/upgrade');
    await shot('tier');
  });

  await step('the gate playground on rm -rf ~ asks at all three levels', async () => {
    await screen('gate');
    await page.locator('main input').first().fill('rm -rf ~');
    await page.locator('button:text("Decide")').click();
    await page.waitForSelector('table.decisions tbody tr[data-level="yolo"]');
    for (const level of ['normal', 'trusted', 'yolo']) {
      const t = await page.locator(`tr[data-level="${level}"]`).textContent();
      assert(/asks a person/.test(t) && /critical\.rm_home/.test(t), `${level}: ${t}`);
    }
    assert(/never auto-passes/.test(await page.locator('tr[data-level="yolo"]').textContent()));
    await shot('gate');
  });

  await step('XSS through a catalog server (connector) name renders as text', async () => {
    await screen('catalog');
    await page.locator('main input[type="search"]').fill('xssprobe');
    await page.locator('button:text("Search")').click();
    await page.waitForSelector('ul[aria-label="Matches"] li');
    const t = await page.locator('ul[aria-label="Matches"]').textContent();
    assert(t.includes(XSS_NAME) && t.includes('<script>'), t);
    assert(await page.locator('main img, main script, main b').count() === 0, 'markup became elements');
    await shot('catalog');
    assert(await page.evaluate(() => window.__xss) === undefined, 'a script ran');
    await screen('capabilities');
    await page.waitForSelector('section[aria-label="Tools"]');
    await shot('capabilities');
  });

  await step('a cross-origin POST with the session cookie is refused (Origin)', async () => {
    const evilPage = await context.newPage();
    await evilPage.goto(`${evilBase}/`);
    await evilPage.waitForFunction(() => document.title !== 'evil');
    await evilPage.close();
    const { body } = await bearer('GET', '/api/connectors');
    assert(body.connectors.find((c) => c.id === 'github').status === 'connected', 'the cross-origin POST disconnected GitHub');
    assert(/path=\/api\/connectors\/github\/disconnect status=403/.test(srv.log()), 'no 403 in the access log');
    // the same request from the dashboard's own page is allowed
    const st = await page.evaluate(async () => (await fetch('/api/gate/check', { method: 'POST',
      headers: { 'Content-Type': 'application/json' }, body: '{"tool":"bash","args":{"command":"ls"}}' })).status);
    assert(st === 200, `same-origin POST: ${st}`);
  });

  await step('the other screens render; acquire shows risk badges; audit verifies the chain', async () => {
    await screen('acquire');
    await page.locator('button:text("Propose")').click();
    await page.waitForSelector('ul[aria-label="Candidates"] .badge.risk-low');
    await shot('acquire');
    await screen('audit');
    await page.waitForSelector('table.audit tbody tr');
    await page.locator('button:text("Verify chain")').click();
    await page.waitForSelector('#verify-result .ok');
    assert(/The chain is intact/.test(await page.textContent('#verify-result')));
    await shot('audit');
  });

  await step('keyboard: the skip link and the navigation take visible focus', async () => {
    // A screen change moves focus to <main>; backwards from there come the
    // navigation, the header and the skip link.
    await screen('connectors');
    let nav = null, skip = false;
    for (let i = 0; i < 20 && !skip; i++) {
      await page.keyboard.press('Shift+Tab');
      const at = await page.evaluate(() => ({ nav: document.activeElement.closest('nav') ? document.activeElement.getAttribute('href') : null,
        skip: document.activeElement.classList.contains('skip'),
        outline: getComputedStyle(document.activeElement).outlineStyle }));
      if (at.nav && !nav) {
        assert(at.outline !== 'none', 'a focused link shows no focus ring');
        nav = at.nav;
      }
      skip = at.skip;
    }
    assert(nav, 'the keyboard never reached the navigation');
    assert(skip, 'the keyboard never reached the skip link');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('nav a[aria-current="page"]');
  });

  await step('phone width and dark mode stay readable', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await screen('approvals');
    const wide = await page.evaluate(() => [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 5).map((el) => `${el.tagName}.${el.className}`));
    assert(wide.length === 0, `the page scrolls sideways at 390 px: ${wide.join(', ')}`);
    await shot('phone-approvals');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await screen('connectors');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert(bg === 'rgb(20, 20, 19)', `dark background: ${bg}`);
    await shot('dark-connectors');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  for (const l of srv.log().split('\n').filter((x) => x.includes('path=/api/events'))) console.log(`# ${l}`);
  await step('the live stream stayed connected (a tool\'s error event is not a lost connection)', async () => {
    assert(await page.textContent('#live') === 'live', await page.textContent('#live'));
  });
  await step('no script error and no CSP violation on any screen', async () => {
    assert(problems.length === 0, problems.join('\n'));
  });
} finally {
  await browser.close();
  srv.proc.kill('SIGTERM');
  await new Promise((r) => srv.proc.once('exit', r));
  await replay.close();
  evil.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(failed ? `${failed} step(s) failed` : 'all steps passed');
process.exit(failed ? 1 : 0);
