// http.test.mjs - /mcp under `waggle serve` (MCP Streamable HTTP), driven by
// the official MCP TypeScript SDK client: initialize and the session header,
// tools/list, tools/call through the gate, the isError answer with the
// approval id then POST /api/approval/ID, elicitation accept and decline over
// the call's event stream, list_changed on the GET stream, malformed frames and
// the transport's checks (bearer, Origin, session, protocol header), and a
// client that disappears mid-call (a two-thread server keeps answering).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ToolListChangedNotificationSchema, LoggingMessageNotificationSchema, EmptyResultSchema }
  from '@modelcontextprotocol/sdk/types.js';
import { SEND, LIST, dataDir, removeDir, cli, startServer, stopServer, httpClient, textOf,
  auditCount } from './common.mjs';

let dir, server;
before(async () => {
  dir = dataDir();
  server = await startServer(dir);
});
after(async () => {
  await stopServer(server);
  removeDir(dir);
});

const call = (client, name, args, opts) => client.callTool({ name, arguments: args }, undefined, opts);
const msg = { channel: '#general', message: 'hi' };

test('initialize, tools/list, a silent read, gate_check', async () => {
  const { client, transport } = await httpClient(server);
  try {
    assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
    assert.equal(client.getServerVersion().name, 'waggle');
    const { tools } = await client.listTools();
    for (const n of ['gate_check', 'find_connector', 'list_connector_categories',
      'acquire_capability', 'install_capability', SEND, LIST])
      assert.ok(tools.some((t) => t.name === n), n);
    const r = await call(client, LIST, {});
    assert.equal(r.isError, false, textOf(r));
    const g = await call(client, 'gate_check', { tool: 'bash', args: { command: 'rm -rf /' } });
    assert.equal(g.structuredContent.critical, true);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test('without elicitation: isError with the approval id; POST /api/approval/ID runs it', async () => {
  const { client } = await httpClient(server);
  try {
    const r = await call(client, SEND, msg);
    assert.equal(r.isError, true);
    const id = r.structuredContent.approvalId;
    assert.ok(textOf(r).includes(`POST /api/approval/${id}`));
    const res = await fetch(`${server.base}/api/approval/${id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ approved: true }),
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.approved, true);
    assert.equal(body.result.success, true);
  } finally {
    await client.close();
  }
});

test('elicitation accept runs the call (progress on the same stream)', async () => {
  const before = auditCount(dir, 'approval_granted');
  const { client } = await httpClient(server, {
    elicit: async () => ({ action: 'accept', content: { approve: true } }) });
  try {
    const progress = [];
    const r = await call(client, SEND, msg, { onprogress: (p) => progress.push(p) });
    assert.equal(r.isError, false, textOf(r));
    assert.ok(progress.length >= 1);
    assert.equal(auditCount(dir, 'approval_granted'), before + 1);
  } finally {
    await client.close();
  }
});

test('elicitation decline refuses the call', async () => {
  const before = auditCount(dir, 'approval_denied');
  const { client } = await httpClient(server, { elicit: async () => ({ action: 'decline' }) });
  try {
    const r = await call(client, SEND, msg);
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.status, 'denied');
    assert.equal(auditCount(dir, 'approval_denied'), before + 1);
  } finally {
    await client.close();
  }
});

test('list_changed arrives on the session stream when a connector connects', async () => {
  const { client } = await httpClient(server);
  try {
    await client.listTools();
    const changed = new Promise((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve(true)));
    const c = cli(dir, ['connectors', 'connect', 'github'], 'ghp_http_test_token\n');
    assert.equal(c.status, 0, c.stderr);
    assert.equal(await changed, true);
  } finally {
    cli(dir, ['connectors', 'disconnect', 'github']);
    await client.close();
  }
});

async function post(body, headers = {}) {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

test('logging/setLevel: each gated call is logged with the rule that decided', async () => {
  const { client, transport } = await httpClient(server);
  const seen = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => seen.push(n.params));
  try {
    let r = await call(client, LIST, {});
    assert.equal(r.isError, false, textOf(r));
    assert.equal(seen.length, 0, 'nothing is logged before logging/setLevel');
    await client.setLoggingLevel('info');
    r = await call(client, LIST, {});
    r = await call(client, SEND, msg);
    assert.equal(r.isError, true);
    assert.equal(seen.length, 2, JSON.stringify(seen));
    assert.equal(seen[0].level, 'info');
    assert.equal(seen[0].logger, 'waggle.gate');
    assert.equal(seen[0].data.tool, LIST);
    assert.ok(seen[0].data.rule, 'the deciding rule is named');
    assert.equal(seen[1].level, 'warning');
    assert.equal(seen[1].data.approvalId, r.structuredContent.approvalId);
    await client.setLoggingLevel('error');
    await call(client, SEND, msg);
    assert.equal(seen.length, 2, 'a warning is below error: not sent');
    await assert.rejects(client.request({ method: 'logging/setLevel', params: { level: 'loud' } },
      EmptyResultSchema), /level/);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test('malformed frames and the transport checks', async () => {
  let r = await post('not json');
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, -32700);
  r = await post('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
  assert.equal(r.json.error.code, -32600);
  r = await post('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  assert.equal(r.status, 400, 'no Mcp-Session-Id');
  r = await post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'Mcp-Session-Id': '0'.repeat(32) });
  assert.equal(r.status, 404);
  r = await post('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}');
  assert.equal(r.json.error.code, -32602);
  assert.equal(r.headers.get('mcp-session-id'), null, 'a refused initialize makes no session');
  const init = await post('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}');
  const sid = init.headers.get('mcp-session-id');
  assert.match(sid, /^[0-9a-f]{32}$/);
  r = await post('{"jsonrpc":"2.0","id":2,"method":"ping"}', { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '1900-01-01' });
  assert.equal(r.status, 400);
  r = await post('{"jsonrpc":"2.0","id":2,"method":"ping"}', { 'Mcp-Session-Id': sid, Origin: 'https://evil.example' });
  assert.equal(r.status, 403);
  r = await post('{"jsonrpc":"2.0","id":2,"method":"ping"}', { 'Mcp-Session-Id': sid, Origin: new URL(server.url).origin });
  assert.equal(r.status, 200, 'the service\'s own origin is not a rebinding attack');
  r = await post('{"jsonrpc":"2.0","id":2,"method":"ping"}', { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-06-18' });
  assert.equal(r.status, 200, 'any supported revision is accepted after negotiation');
  r = await post('{"jsonrpc":"2.0","id":2,"method":"ping"}', { 'Mcp-Session-Id': sid, Accept: 'application/json' });
  assert.equal(r.status, 406);
  r = await post('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}}', { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' });
  assert.equal(r.status, 200);
  assert.equal(r.json.error.code, -32602);
  r = await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', { 'Mcp-Session-Id': sid });
  assert.equal(r.status, 202);
  const unauth = await fetch(server.url, { method: 'POST', body: '{}',
    headers: { Accept: 'application/json, text/event-stream' } });
  assert.equal(unauth.status, 401);
  const del = await fetch(server.url, { method: 'DELETE',
    headers: { Authorization: `Bearer ${server.token}`, 'Mcp-Session-Id': sid } });
  assert.equal(del.status, 204);
  r = await post('{"jsonrpc":"2.0","id":3,"method":"ping"}', { 'Mcp-Session-Id': sid });
  assert.equal(r.status, 404, 'an ended session');
});

test('clients that disappear mid-call: the server keeps answering, nothing runs', async () => {
  const granted = auditCount(dir, 'approval_granted');
  const kids = [];
  // more vanished clients than the server has worker threads (2)
  for (let i = 0; i < 4; i++) {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./vanish.mjs', import.meta.url)),
      dir, server.url, server.token], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    let out = '';
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (b) => { out += b.toString(); if (out.includes('asked')) resolve(); });
      child.on('exit', () => reject(new Error(`vanish.mjs ended early: ${out}`)));
    });
    kids.push(child);
  }
  for (const k of kids) k.kill('SIGKILL');
  const { client } = await httpClient(server);
  try {
    const r = await call(client, LIST, {});
    assert.equal(r.isError, false);
  } finally {
    await client.close();
  }
  assert.equal(auditCount(dir, 'approval_granted'), granted);
  const list = cli(dir, ['approvals', '--json']);
  assert.ok((list.stdout.match(new RegExp(SEND, 'g')) ?? []).length >= 4, list.stdout);
});
