// gateway.test.mjs - `waggle mcp --gateway FILE` in front of real MCP servers
// nobody here wrote (npm: @modelcontextprotocol/server-filesystem,
// server-everything, server-memory), driven by the official SDK client:
// the upstream tools are listed as SERVER__TOOL next to waggle's own, a read
// runs silently, a write needs approval at normal (elicitation or isError
// with the approval id) and runs at yolo, every call is in the audit log, a
// vault: env value reaches the child and waggle's own environment does not,
// content types (text, image, embedded resource, resource links, structured
// content) pass through, an upstream's progress reaches the client, an upstream killed mid-call fails that call with the
// reason, a killed upstream is restarted (the client is told through
// tools/list_changed and a tool error in between), and under waggle serve
// --gateway the capabilities status is real and approvals run in-process.
// A remote (url) server: server-everything in its Streamable HTTP mode on
// 127.0.0.1 behind the same gate (listed with its prefix, a read runs
// silently, an unknown verb asks at normal, a kill mid-call fails the call
// with the reason and the server comes back once it listens again, and
// waggle serve --gateway reports its real state).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, readFileSync, existsSync, readdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { WAGGLE, dataDir, removeDir, cli, textOf, auditCount, startServer, stopServer } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const server = (name) => join(here, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');

// A data dir with a gateway file for the three servers and a root for the
// filesystem server; returns {dir, root, cfg}.
function setup() {
  const dir = dataDir();
  const root = join(dir, 'root');
  mkdirSync(root);
  writeFileSync(join(root, 'hello.txt'), 'hello from the filesystem server\n');
  const cfg = join(dir, 'gateway.json');
  writeFileSync(cfg, JSON.stringify({
    mcpServers: {
      fs: { command: process.execPath, args: [server('filesystem'), root] },
      ev: { command: process.execPath, args: [server('everything')], env: { GW_API_TOKEN: 'vault:gw-test-token' } },
      mem: { command: process.execPath, args: [server('memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
    },
  }));
  const v = cli(dir, ['vault', 'set', 'gw-test-token'], 'tok-from-the-vault-42');
  assert.equal(v.status, 0, v.stderr);
  return { dir, root, cfg };
}

async function gateway(dir, cfg, { level = 'normal', elicit, onListChanged, extra = [] } = {}) {
  const transport = new StdioClientTransport({
    command: WAGGLE,
    args: ['--data-dir', dir, 'mcp', '--level', level, '--poll-ms', '100', '--gateway', cfg, ...extra],
    env: { ...process.env, WAGGLE_GATEWAY_TEST_SECRET: 'must-not-reach-upstreams' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'waggle-gateway-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  if (onListChanged) client.setNotificationHandler(ToolListChangedNotificationSchema, onListChanged);
  // waggle's stderr (upstream state changes), kept for failure messages
  const log = { text: '' };
  transport.stderr?.on('data', (b) => { log.text = (log.text + b.toString()).slice(-8000); });
  await client.connect(transport);
  return { client, transport, log };
}

// The pid of waggle's child that runs the given server script.
function childOf(pid, script) {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const kids = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    for (const k of kids) {
      try {
        if (readFileSync(`/proc/${k}/cmdline`, 'utf8').includes(script)) return Number(k);
      } catch { /* gone */ }
    }
  }
  return 0;
}

const until = async (what, fn) => {
  for (let i = 0; i < 400; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
};

test('upstream tools are listed with their prefix next to waggle\'s own', async () => {
  const { dir, cfg } = setup();
  const { client } = await gateway(dir, cfg);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['gate_check', 'find_connector', 'fs__read_text_file', 'fs__write_file', 'fs__move_file',
      'ev__echo', 'ev__get-tiny-image', 'mem__read_graph', 'mem__create_entities'])
      assert.ok(names.includes(n), `${n} listed`);
    const w = tools.find((t) => t.name === 'fs__write_file');
    assert.equal(w.annotations.destructiveHint, true);
    assert.equal(w.inputSchema.type, 'object');
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('a read runs silently and is audited', async () => {
  const { dir, root, cfg } = setup();
  const { client } = await gateway(dir, cfg);
  try {
    const r = await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(root, 'hello.txt') } });
    assert.equal(r.isError, false, textOf(r));
    assert.match(textOf(r), /hello from the filesystem server/);
    const g = await client.callTool({ name: 'mem__read_graph', arguments: {} });
    assert.equal(g.isError, false, textOf(g));
    assert.equal(auditCount(dir, 'approval_requested'), 0);
    assert.equal(auditCount(dir, 'provider_call'), 2);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('an upstream\'s progress reaches the client as notifications/progress', async () => {
  const { dir, cfg } = setup();
  const { client } = await gateway(dir, cfg);
  try {
    const progress = [];
    const r = await client.callTool({ name: 'ev__trigger-long-running-operation', arguments: { duration: 1.2, steps: 4 } },
      undefined, { onprogress: (p) => progress.push(p) });
    assert.equal(r.isError, false, textOf(r));
    assert.match(textOf(r), /Long running operation completed/);
    const upstream = progress.filter((p) => /ev__trigger-long-running-operation: \d of 4/.test(p.message || ''));
    assert.ok(upstream.length >= 3, JSON.stringify(progress));
    for (let i = 1; i < progress.length; i++)
      assert.ok(progress[i].progress > progress[i - 1].progress, 'progress only grows');
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('a write needs approval at normal: nothing is written', async () => {
  const { dir, root, cfg } = setup();
  const { client } = await gateway(dir, cfg);
  try {
    const target = join(root, 'new.txt');
    const r = await client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'x' } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /needs a person's approval/);
    assert.match(textOf(r), /gateway\.annotation\.destructive/);
    assert.match(r.structuredContent.approvalId, /^[0-9a-f]{32}$/);
    assert.equal(existsSync(target), false);
    // another process cannot run an upstream's tool: it says so and leaves it pending
    const a = cli(dir, ['approve', r.structuredContent.approvalId]);
    assert.notEqual(a.status, 0);
    assert.match(a.stderr, /MCP gateway upstream/);
    assert.equal(auditCount(dir, 'approval_granted'), 0);
    assert.equal(existsSync(target), false);
    const m = await client.callTool({ name: 'fs__move_file', arguments: { source: join(root, 'hello.txt'), destination: target } });
    assert.equal(m.isError, true);
    assert.equal(existsSync(join(root, 'hello.txt')), true);
    const c = await client.callTool({ name: 'mem__create_entities', arguments: { entities: [] } });
    assert.equal(c.isError, true);
    assert.equal(auditCount(dir, 'approval_requested'), 3);
    assert.equal(auditCount(dir, 'provider_call'), 0);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('a write runs when the person accepts (elicitation)', async () => {
  const { dir, root, cfg } = setup();
  let asked = null;
  const { client } = await gateway(dir, cfg, {
    elicit: async (req) => { asked = req.params; return { action: 'accept', content: { approve: true } }; },
  });
  try {
    const target = join(root, 'approved.txt');
    const r = await client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'approved' } });
    assert.equal(r.isError, false, textOf(r));
    assert.match(asked.message, /fs__write_file/);
    assert.equal(readFileSync(target, 'utf8'), 'approved');
    assert.equal(auditCount(dir, 'approval_granted'), 1);
    assert.equal(auditCount(dir, 'provider_call'), 1);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('a write runs at yolo, auto-approved and audited', async () => {
  const { dir, root, cfg } = setup();
  const { client } = await gateway(dir, cfg, { level: 'yolo' });
  try {
    const target = join(root, 'yolo.txt');
    const r = await client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'yolo' } });
    assert.equal(r.isError, false, textOf(r));
    assert.equal(readFileSync(target, 'utf8'), 'yolo');
    assert.equal(auditCount(dir, 'approval_auto'), 1);
    assert.equal(auditCount(dir, 'provider_call'), 1);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('--never-autopass SERVER__* asks even at yolo', async () => {
  const { dir, root, cfg } = setup();
  const { client } = await gateway(dir, cfg, { level: 'yolo', extra: ['--never-autopass', 'fs__*'] });
  try {
    const target = join(root, 'never.txt');
    const r = await client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'no' } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /operator\.never_autopass/);
    assert.equal(existsSync(target), false);
    const ok = await client.callTool({ name: 'mem__read_graph', arguments: {} });
    assert.equal(ok.isError, false, textOf(ok));
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('content passes through; a vault: env value reaches the child, waggle\'s own environment does not', async () => {
  const { dir, cfg } = setup();
  const { client } = await gateway(dir, cfg);
  try {
    const img = await client.callTool({ name: 'ev__get-tiny-image', arguments: {} });
    assert.equal(img.isError, false, textOf(img));
    assert.ok(img.content.some((c) => c.type === 'image' && c.mimeType === 'image/png' && c.data.length > 0));
    const ref = await client.callTool({ name: 'ev__get-resource-reference', arguments: {} });
    assert.ok(ref.content.some((c) => c.type === 'resource' && c.resource.uri.startsWith('demo://')));
    const links = await client.callTool({ name: 'ev__get-resource-links', arguments: { count: 2 } });
    assert.equal(links.content.filter((c) => c.type === 'resource_link').length, 2);
    const sc = await client.callTool({ name: 'ev__get-structured-content', arguments: { location: 'Chicago' } });
    assert.equal(typeof sc.structuredContent.temperature, 'number');
    const sum = await client.callTool({ name: 'ev__get-sum', arguments: { a: 2, b: 3 } });
    assert.match(textOf(sum), /5/);
    const env = await client.callTool({ name: 'ev__get-env', arguments: {} });
    assert.equal(env.isError, false, textOf(env));
    assert.match(textOf(env), /tok-from-the-vault-42/);
    assert.doesNotMatch(textOf(env), /must-not-reach-upstreams|WAGGLE_/);
    assert.ok(auditCount(dir, 'vault_read') >= 1);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('a killed upstream is restarted: a tool error meanwhile, list_changed, then it works again', async () => {
  const { dir, root, cfg } = setup();
  let changes = 0;
  const { client, transport, log } = await gateway(dir, cfg, { onListChanged: () => { changes++; } });
  try {
    const read = () => client.callTool({ name: 'fs__read_text_file', arguments: { path: join(root, 'hello.txt') } });
    assert.equal((await read()).isError, false);
    const pid = childOf(transport.pid, 'server-filesystem');
    assert.ok(pid > 0, 'the filesystem server is a child of waggle');
    process.kill(pid, 'SIGKILL');
    // while it is down the call is a tool error that says why (not a protocol error)
    const down = await until('a tool error', async () => {
      const r = await read();
      return r.isError ? r : null;
    });
    assert.match(textOf(down), /upstream MCP server fs/);
    const back = await until('the restart', async () => {
      const r = await read();
      return r.isError ? null : r;
    });
    assert.match(textOf(back), /hello from the filesystem server/);
    const again = childOf(transport.pid, 'server-filesystem');
    assert.ok(again > 0 && again !== pid, 'a new child');
    await until('list_changed', async () => changes >= 1);
    // the operator's log (waggle's stderr) tells the story, one line a change
    assert.match(log.text, /waggle mcp: gateway fs: healthy, \d+ tools/);
    assert.match(log.text, /waggle mcp: gateway fs: went down: .*\(signal 9\); next start in \d+ ms/);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('an upstream that dies mid-call: the call is a tool error with the reason, at once', async () => {
  const { dir, cfg } = setup();
  const { client, transport } = await gateway(dir, cfg);
  try {
    const call = client.callTool({ name: 'ev__trigger-long-running-operation', arguments: { duration: 60, steps: 60 } },
      undefined, { timeout: 120000 });
    const pid = await until('the everything server', async () => childOf(transport.pid, 'server-everything'));
    // the call has reached the upstream once its provider_call row is written
    await until('the call upstream', async () => auditCount(dir, 'provider_call') >= 1);
    process.kill(pid, 'SIGKILL');
    const r = await call;
    assert.equal(r.isError, true);
    assert.match(textOf(r), /upstream MCP server ev (did not complete trigger-long-running-operation|is (restarting|starting))/);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('waggle serve --gateway: the real state in capabilities/status, HTTP execute and approve in-process', async () => {
  const { dir, root, cfg } = setup();
  const srv = await startServer(dir, ['--gateway', cfg]);
  const api = async (method, path, body) => {
    const r = await fetch(srv.base + path, {
      method, headers: { Authorization: `Bearer ${srv.token}`, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: await r.json() };
  };
  try {
    const st = await api('GET', '/api/capabilities/status');
    assert.equal(st.status, 200);
    const fs = st.body.mcpServers.find((s) => s.name === 'fs');
    assert.equal(fs.state, 'healthy');
    assert.equal(fs.healthy, true);
    assert.ok(fs.tools >= 10, `fs lists ${fs.tools} tools`);
    assert.equal(fs.source, 'gateway');
    assert.ok(st.body.tools.mcp >= fs.tools);
    const tools = await api('GET', '/api/tools');
    assert.ok(JSON.stringify(tools.body).includes('fs__write_file'));
    const target = join(root, 'http.txt');
    const w = await api('POST', '/api/tools/execute', { tool: 'fs__write_file', args: { path: target, content: 'via http' } });
    assert.equal(w.status, 202, JSON.stringify(w.body));
    assert.equal(existsSync(target), false);
    const a = await api('POST', `/api/approval/${w.body.approvalId}`, { approved: true });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(readFileSync(target, 'utf8'), 'via http');
    const r = await api('POST', '/api/tools/execute', { tool: 'fs__read_text_file', args: { path: target } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(JSON.stringify(r.body.result), /via http/);
  } finally {
    await stopServer(srv);
    removeDir(dir);
  }
});

// ---- a remote (url) upstream: server-everything over Streamable HTTP -------------------

// A free loopback port (bound, read, released).
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// `node server-everything streamableHttp` on port (its README: the
// streamableHttp argument, PORT from the environment, endpoint /mcp).
async function startEverythingHttp(port) {
  const proc = spawn(process.execPath, [server('everything'), 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  let timer;
  await new Promise((resolve, reject) => {
    const onData = (b) => {
      text = (text + b.toString()).slice(-8000);
      if (/listening on port/.test(text)) resolve();
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (c) => reject(new Error(`server-everything exited ${c}: ${text}`)));
    timer = setTimeout(() => reject(new Error(`server-everything did not start: ${text}`)), 20000);
  }).finally(() => clearTimeout(timer));
  const exit = { code: null };
  proc.on('exit', (c, sig) => { exit.code = c ?? sig; });
  // what the server printed and whether it exited: for failure messages
  const diag = () => `server-everything on ${port}${exit.code !== null ? ` exited (${exit.code})` : ''}:\n${text}`;
  return { proc, url: `http://127.0.0.1:${port}/mcp`, diag };
}

// A failure's message carries what the upstream server and waggle printed
// (an upstream that went away says why only there).
function explain(e, ...diags) {
  if (e && typeof e === 'object' && 'message' in e)
    e.message += diags.map((d) => `\n--- ${typeof d === 'function' ? d() : d}`).join('');
  return e;
}

function killProc(proc, sig = 'SIGTERM') {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.on('exit', () => resolve());
    proc.kill(sig);
  });
}

// Whether something answers HTTP at url on 127.0.0.1 (any status).
async function answers(url) {
  try {
    await fetch(url, { signal: AbortSignal.timeout(3000) });
    return true;
  } catch {
    return false;
  }
}

// server-everything on a free port, proven to answer on 127.0.0.1 before a
// gateway is pointed at it: "listening" in its log is not proof enough on a
// loaded machine (a CI run once saw every connection refused afterwards).
// Up to three ports; each miss is reported with what the server printed.
async function reachableEverything() {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const up = await startEverythingHttp(port);
    if (await answers(up.url)) return { port, up };
    const why = up.diag();
    await killProc(up.proc, 'SIGKILL');
    if (attempt === 3) throw new Error(`server-everything never answered on 127.0.0.1: ${why}`);
    console.error(`# server-everything did not answer (attempt ${attempt}), another port: ${why}`);
  }
}

// A data dir whose gateway file has one url server "rev" (with a header
// from the vault, as a remote server's API key would be).
async function setupRemote() {
  const dir = dataDir();
  const { port, up } = await reachableEverything();
  const cfg = join(dir, 'gateway.json');
  writeFileSync(cfg, JSON.stringify({
    mcpServers: { rev: { url: up.url, headers: { 'X-Api-Key': 'vault:gw-remote-key' }, timeoutMs: 120000 } },
  }));
  const v = cli(dir, ['vault', 'set', 'gw-remote-key'], 'remote-key-from-the-vault');
  assert.equal(v.status, 0, v.stderr);
  return { dir, cfg, port, up };
}

test('a url server: tools listed with the prefix, a read runs silently, an unknown verb asks', async () => {
  const { dir, cfg, up } = await setupRemote();
  const { client, log } = await gateway(dir, cfg);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['gate_check', 'rev__echo', 'rev__get-sum', 'rev__toggle-simulated-logging'])
      assert.ok(names.includes(n), `${n} listed`);
    const sum = await client.callTool({ name: 'rev__get-sum', arguments: { a: 2, b: 3 } });
    assert.equal(sum.isError, false, textOf(sum));
    assert.match(textOf(sum), /5/);
    const echo = await client.callTool({ name: 'rev__echo', arguments: { message: 'over http' } });
    assert.match(textOf(echo), /over http/);
    assert.equal(auditCount(dir, 'approval_requested'), 0);
    assert.equal(auditCount(dir, 'provider_call'), 2);
    const t = await client.callTool({ name: 'rev__toggle-simulated-logging', arguments: {} });
    assert.equal(t.isError, true);
    assert.match(textOf(t), /needs a person's approval/);
    assert.equal(auditCount(dir, 'approval_requested'), 1);
    assert.equal(auditCount(dir, 'provider_call'), 2);
    assert.ok(auditCount(dir, 'vault_read') >= 1, 'the header value came from the vault');
  } catch (e) {
    throw explain(e, up.diag, () => `waggle: ${log.text}`);
  } finally {
    await client.close();
    await killProc(up.proc);
    removeDir(dir);
  }
});

test('a url server\'s progress, sent in its POST stream, reaches the client', async () => {
  const { dir, cfg, up } = await setupRemote();
  const { client, log } = await gateway(dir, cfg);
  try {
    const progress = [];
    const r = await client.callTool({ name: 'rev__trigger-long-running-operation', arguments: { duration: 1.2, steps: 4 } },
      undefined, { onprogress: (p) => progress.push(p) });
    assert.equal(r.isError, false, textOf(r));
    const upstream = progress.filter((p) => /rev__trigger-long-running-operation: \d of 4/.test(p.message || ''));
    assert.ok(upstream.length >= 3, JSON.stringify(progress));
  } catch (e) {
    throw explain(e, up.diag, () => `waggle: ${log.text}`);
  } finally {
    await client.close();
    await killProc(up.proc);
    removeDir(dir);
  }
});

test('a url server killed mid-call: the call fails with the reason, then the server comes back', async () => {
  const { dir, cfg, port, up } = await setupRemote();
  const { client, log } = await gateway(dir, cfg);
  let again = null;
  try {
    const call = client.callTool({ name: 'rev__trigger-long-running-operation', arguments: { duration: 60, steps: 60 } },
      undefined, { timeout: 120000 });
    await until('the call upstream', async () => auditCount(dir, 'provider_call') >= 1);
    await new Promise((r) => setTimeout(r, 300));
    await killProc(up.proc, 'SIGKILL');
    const r = await call;
    assert.equal(r.isError, true);
    assert.match(textOf(r), /upstream MCP server rev (did not complete trigger-long-running-operation|is (restarting|starting))/);
    again = await startEverythingHttp(port);
    const back = await until('the new session', async () => {
      const e = await client.callTool({ name: 'rev__echo', arguments: { message: 'back' } });
      return e.isError ? null : e;
    });
    assert.match(textOf(back), /back/);
  } catch (e) {
    throw explain(e, up.diag, () => `waggle: ${log.text}`);
  } finally {
    await client.close();
    await killProc(up.proc);
    if (again) await killProc(again.proc);
    removeDir(dir);
  }
});

test('waggle serve --gateway: a url server\'s real state in capabilities/status', async () => {
  const { dir, cfg, up } = await setupRemote();
  const srv = await startServer(dir, ['--gateway', cfg]);
  try {
    const r = await fetch(`${srv.base}/api/capabilities/status`, { headers: { Authorization: `Bearer ${srv.token}` } });
    assert.equal(r.status, 200);
    const body = await r.json();
    const rev = body.mcpServers.find((s) => s.name === 'rev');
    assert.equal(rev.state, 'healthy', JSON.stringify(rev));
    assert.equal(rev.healthy, true);
    assert.equal(rev.transport, 'http');
    assert.ok(rev.tools >= 10, `rev lists ${rev.tools} tools`);
    assert.equal(rev.source, 'gateway');
    await killProc(up.proc);
    // no call is made: the session's GET stream breaks and cannot reconnect
    const down = await until('the state after the server stopped', async () => {
      const s = await (await fetch(`${srv.base}/api/capabilities/status`, {
        headers: { Authorization: `Bearer ${srv.token}` } })).json();
      const x = s.mcpServers.find((m) => m.name === 'rev');
      return x.healthy ? null : x;
    });
    assert.notEqual(down.state, 'healthy');
    assert.ok(down.lastError, JSON.stringify(down));
  } catch (e) {
    throw explain(e, up.diag, () => `waggle serve: ${srv.log()}`);
  } finally {
    await stopServer(srv);
    await killProc(up.proc);
    removeDir(dir);
  }
});
