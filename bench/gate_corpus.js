// gate_corpus.js - writes bench/gate_corpus.jsonl: a mixed corpus of tool
// calls for the gate benchmark, built from the test corpora (read-only and
// disguised destructive bash commands, reference 12.1 vectors) and the
// non-bash tools of spec 7, with levels spread over normal/trusted/yolo.
// Deterministic (fixed seed). Usage: node bench/gate_corpus.js [out]
'use strict';
const fs = require('fs');
const path = require('path');
const data = path.join(__dirname, '..', 'tests', 'data', 'gate');
const lines = (f) => fs.readFileSync(path.join(data, f), 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#'));
const readonly = lines('readonly.txt');
const destructive = lines('destructive.jsonl').map((l) => JSON.parse(l).cmd);
const vectors = lines('vectors_12_1.jsonl').map((l) => JSON.parse(l).cmd);
const tools = [
  ['read_file', { path: 'README.md' }], ['write_file', { path: 'a.txt', content: 'x' }],
  ['edit_file', { path: 'a.txt' }], ['git_commit', { message: 'x' }],
  ['git_push', { force: true, branch: 'main' }], ['git_push', { branch: 'feature' }],
  ['install_capability', { name: 'risk-assessment', source: 'starter-pack', _riskLevel: 'medium' }],
  ['install_capability', { name: 'x', source: 'starter-pack' }], ['kvark_action', { action_type: 'comment' }],
  ['connector_github_create_issue', { owner: 'o', repo: 'r', title: 't' }],
  ['connector_email_send_email', { to: 'a@b.c' }], ['connector_github_list_issues', {}],
  ['web_search', { query: 'q' }], ['list_workspace_files', {}], ['spawn_agent', { role: 'coder' }],
];
let seed = 42;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
const levels = ['normal', 'trusted', 'yolo'];
const out = [];
const bash = [...readonly, ...readonly, ...destructive, ...vectors];   // read-only weighs double
for (const cmd of bash) out.push({ tool: 'bash', args: { command: cmd }, level: levels[rnd(3)] });
for (let i = 0; i < 500; i++) {
  const [tool, args] = tools[rnd(tools.length)];
  out.push({ tool, args, level: levels[rnd(3)] });
}
for (let i = out.length - 1; i > 0; i--) { const j = rnd(i + 1); [out[i], out[j]] = [out[j], out[i]]; }
const file = process.argv[2] || path.join(__dirname, 'gate_corpus.jsonl');
fs.writeFileSync(file, out.map((o) => JSON.stringify(o)).join('\n') + '\n');
console.error(`wrote ${out.length} calls (${bash.length} bash) to ${file}`);
