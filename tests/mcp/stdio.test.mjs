// stdio.test.mjs - `waggle mcp` over stdio, driven by the official MCP
// TypeScript SDK client (@modelcontextprotocol/sdk): initialize, tools/list,
// tools/call through the gate, elicitation accept and decline, the isError
// answer with the approval id, progress, list_changed after a connect from
// another process, a malformed frame, and a client that disappears mid-call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { WAGGLE, SEND, LIST, dataDir, removeDir, cli, stdioClient, textOf, auditCount } from './common.mjs';

const approve = async () => ({ action: 'accept', content: { approve: true } });
const decline = async () => ({ action: 'decline' });

test('initialize and tools/list', async () => {
  const dir = dataDir();
  const { client } = await stdioClient(dir);
  try {
    assert.equal(client.getServerVersion().name, 'waggle');
    assert.equal(client.getServerCapabilities().tools.listChanged, true);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['gate_check', 'find_connector', 'list_connector_categories',
      'acquire_capability', 'install_capability', SEND, LIST])
      assert.ok(names.includes(n), `${n} listed`);
    for (const t of tools) assert.equal(t.inputSchema.type, 'object');
    assert.equal(await client.ping().then(() => 'pong'), 'pong');
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('a read runs silently; gate_check explains', async () => {
  const dir = dataDir();
  const { client } = await stdioClient(dir);
  try {
    const r = await client.callTool({ name: LIST, arguments: {} });
    assert.equal(r.isError, false, textOf(r));
    const cats = await client.callTool({ name: 'list_connector_categories', arguments: {} });
    assert.match(textOf(cats), /"categoryCount":14/);
    const g = await client.callTool({ name: 'gate_check',
      arguments: { tool: 'bash', args: { command: 'sudo ls' } } });
    assert.equal(g.structuredContent.needsConfirmation, true);
    assert.equal(g.structuredContent.rule, 'critical.privilege');
    assert.equal(auditCount(dir, 'approval_requested'), 0);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('without elicitation a write is isError with the approval id, and waggle approve answers it', async () => {
  const dir = dataDir();
  const { client } = await stdioClient(dir);
  try {
    const r = await client.callTool({ name: SEND, arguments: { channel: '#general', message: 'hi' } });
    assert.equal(r.isError, true);
    const id = r.structuredContent.approvalId;
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.ok(textOf(r).includes(`waggle approve ${id}`), textOf(r));
    assert.ok(textOf(r).includes(`POST /api/approval/${id}`));
    assert.match(cli(dir, ['approvals']).stdout, new RegExp(id));
    const a = cli(dir, ['approve', id, '--deny']);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(auditCount(dir, 'approval_denied'), 1);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('elicitation accept runs the call, with progress', async () => {
  const dir = dataDir();
  let asked = null;
  const { client } = await stdioClient(dir, { elicit: async (req) => { asked = req.params; return approve(); } });
  try {
    const progress = [];
    const r = await client.callTool({ name: SEND, arguments: { channel: '#general', message: 'hi' } },
      undefined, { onprogress: (p) => progress.push(p) });
    assert.equal(r.isError, false, textOf(r));
    assert.match(asked.message, new RegExp(SEND));
    assert.equal(asked.requestedSchema.properties.approve.type, 'boolean');
    assert.ok(progress.length >= 1, 'progress notifications');
    assert.equal(auditCount(dir, 'approval_granted'), 1);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('elicitation decline refuses the call', async () => {
  const dir = dataDir();
  const { client } = await stdioClient(dir, { elicit: decline });
  try {
    const r = await client.callTool({ name: SEND, arguments: { channel: '#general', message: 'hi' } });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.status, 'denied');
    assert.equal(auditCount(dir, 'approval_denied'), 1);
    assert.equal(auditCount(dir, 'approval_granted'), 0);
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('a connector connected by another process sends list_changed', async () => {
  const dir = dataDir();
  const { client } = await stdioClient(dir);
  try {
    await client.listTools();
    const changed = new Promise((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve(true)));
    const c = cli(dir, ['connectors', 'connect', 'github'], 'ghp_sdk_test_token\n');
    assert.equal(c.status, 0, c.stderr);
    assert.equal(await changed, true);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name.startsWith('connector_github_')));
  } finally {
    await client.close();
    removeDir(dir);
  }
});

// Raw frames, past the SDK (which never sends a malformed one).
function rawSession(dir) {
  const proc = spawn(WAGGLE, ['--data-dir', dir, 'mcp', '--demo'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let buf = '';
  const waiters = [];
  proc.stdout.on('data', (b) => {
    buf += b.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      waiters.shift()?.(JSON.parse(line));
    }
  });
  const next = () => new Promise((resolve) => waiters.push(resolve));
  return { proc, next, send: (s) => proc.stdin.write(s) };
}

test('malformed frames get JSON-RPC errors and the session goes on', async () => {
  const dir = dataDir();
  const s = rawSession(dir);
  try {
    s.send('this is not json\n');
    let m = await s.next();
    assert.equal(m.error.code, -32700);
    assert.equal(m.id, null);
    s.send('[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n');
    assert.equal((await s.next()).error.code, -32600);
    s.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"x"}\r\n');
    m = await s.next();
    assert.equal(m.error.code, -32602);
    assert.equal(m.id, 2);
    s.send('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    m = await s.next();
    assert.deepEqual(m, { jsonrpc: '2.0', id: 3, result: {} });
    // a line over the 4 MiB frame limit is skipped, answered, and the session goes on
    s.send('{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":"' + 'a'.repeat(5 * 1024 * 1024) + '"}}\n');
    assert.equal((await s.next()).error.code, -32600);
    s.send('{"jsonrpc":"2.0","id":5,"method":"ping"}\n');
    assert.equal((await s.next()).id, 5);
  } finally {
    s.proc.kill();
    removeDir(dir);
  }
});

test('a client that disappears mid-call: waggle exits, nothing runs, the approval waits', async () => {
  const dir = dataDir();
  const child = spawn(process.execPath, [fileURLToPath(new URL('./vanish.mjs', import.meta.url)), dir],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, WAGGLE_CLI: WAGGLE } });
  let out = '';
  const pid = await new Promise((resolve, reject) => {
    child.stdout.on('data', (b) => {
      out += b.toString();
      const m = out.match(/asked pid=(\d+)/);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', () => reject(new Error(`vanish.mjs ended early: ${out}`)));
  });
  child.kill('SIGKILL');            // the client is gone while waggle waits for the person
  const alive = (p) => { try { process.kill(p, 0); return true; } catch { return false; } };
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(pid), false, 'waggle mcp exited after its client vanished');
  assert.equal(auditCount(dir, 'approval_granted'), 0);
  const list = cli(dir, ['approvals', '--json']);
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, new RegExp(SEND));
  removeDir(dir);
});
