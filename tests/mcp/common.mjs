// common.mjs - what the SDK client tests share: a fresh data dir, the waggle
// binary, clients over stdio (the SDK spawns `waggle mcp`) and over
// Streamable HTTP (`waggle serve` on a free loopback port, /mcp).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const WAGGLE = process.env.WAGGLE_CLI;
if (!WAGGLE || !existsSync(WAGGLE)) throw new Error('set WAGGLE_CLI to the built waggle binary');

export const SEND = 'connector_slack-mock_send_slack_message';
export const LIST = 'connector_slack-mock_list_slack_channels';

export function dataDir() {
  return mkdtempSync(join(tmpdir(), 'waggle-mcp-'));
}

export function removeDir(d) {
  rmSync(d, { recursive: true, force: true });
}

// Runs the CLI on dir; returns {status, stdout, stderr}.
export function cli(dir, args, input) {
  const r = spawnSync(WAGGLE, ['--data-dir', dir, ...args], { input: input ?? '', encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// A client; elicit (optional) answers elicitation/create.
export async function stdioClient(dir, { level = 'normal', elicit, extra = [] } = {}) {
  const transport = new StdioClientTransport({
    command: WAGGLE,
    args: ['--data-dir', dir, 'mcp', '--demo', '--level', level, '--poll-ms', '100', ...extra],
    stderr: 'pipe',
  });
  return connect(transport, elicit);
}

async function connect(transport, elicit) {
  const client = new Client({ name: 'waggle-sdk-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  await client.connect(transport);
  return { client, transport };
}

// `waggle serve` on a free port with the demo connectors; resolves to
// {url, token, proc}.
export async function startServer(dir, extra = []) {
  const proc = spawn(WAGGLE, ['--data-dir', dir, 'serve', '--demo', '--listen', '127.0.0.1:0', '--threads', '2', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const port = await new Promise((resolve, reject) => {
    const onData = (b) => {
      text += b.toString();
      const m = text.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) resolve(Number(m[1]));
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (c) => reject(new Error(`waggle serve exited ${c}: ${text}`)));
    setTimeout(() => reject(new Error(`waggle serve did not start: ${text}`)), 20000);
  });
  const token = readFileSync(join(dir, 'api-token'), 'utf8').trim();
  // log(): what the server printed so far (its tail), for failure messages
  return { url: `http://127.0.0.1:${port}/mcp`, base: `http://127.0.0.1:${port}`, token, proc, log: () => text.slice(-8000) };
}

export async function httpClient(server, { elicit } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
  });
  return connect(transport, elicit);
}

export function stopServer(server) {
  return new Promise((resolve) => {
    if (server.proc.exitCode !== null) return resolve();
    server.proc.on('exit', () => resolve());
    server.proc.kill('SIGTERM');
  });
}

export function textOf(result) {
  return result.content.map((c) => c.text ?? '').join('\n');
}

export function auditCount(dir, event) {
  const r = cli(dir, ['audit', '--event', event, '--json', '--limit', '1000']);
  if (r.status !== 0) throw new Error(`audit: ${r.stderr}`);
  return JSON.parse(r.stdout).length;
}
