// gate_baseline.js - the original's regex confirmation gate, rewritten from
// the fact sheet (reference/original-facts.md §5.1-5.3) as the benchmark's
// baseline. It reproduces the original's decisions, bugs included.
//   node bench/gate_baseline.js --inproc CORPUS   ns per decision, in-process:
//       bash_ns  the three spec functions per bash call, bash1_ns
//       needsConfirmationWithAutonomy alone, all_ns every tool
//   node bench/gate_baseline.js --batch < calls   one JSON decision per line
'use strict';
const fs = require('fs');

const ALWAYS_CONFIRM = new Set(['write_file', 'edit_file', 'generate_docx', 'git_commit', 'git_push',
  'git_pr', 'git_merge', 'install_capability', 'read_other_workspace', 'list_workspace_files',
  'read_other_workspace_file']);
const TRUSTED_AUTOPASS = new Set(['write_file', 'edit_file', 'generate_docx', 'read_other_workspace',
  'read_other_workspace_file']);
const CONNECTOR_HIGH_RISK_ACTIONS = new Set(['send_email', 'send_template']);
const CONNECTOR_WRITE = /_(create|update|delete|send|post|transition|remove|add|set|put)_/;
const CHAIN_OPERATORS = /&&|\|\||;|\|/;
const SAFE_BASH_PATTERNS = [
  /^(date|whoami|hostname|pwd|echo|printenv|env|uname|id|uptime)\b/,
  /^(ls|dir|cat|head|tail|wc|find|which|where|type)\b/,
  /^(git\s+(status|log|diff|branch|remote|show|tag))\b/,
  /^(node|python|python3|npm|npx|pip)\s+--version/,
  /^(curl|wget)\s+.*--head/,
  /^(df|du|free|top|ps|netstat|lsof)\b/,
];
const DESTRUCTIVE_BASH_PATTERNS = [
  /\brm\s+-[rf]/, /\brmdir\b/, /\brd\b/, /\bdel\b/i, /\berase\b/i, /\bformat\b/, /\bmkfs\b/,
  /\bdd\s+if=/, />\s*\//, /\bkill\s+-9/, /\btaskkill\b/,
  /\bgit\s+(push|reset|rebase|cherry-pick|merge)\b/, /\bnpm\s+(publish|unpublish)\b/, /\bchmod\b/,
  /\bchown\b/, /\bsudo\b/, /\breg\s+delete\b/i, /\bpowershell\b/i, /\bpwsh\b/i,
  /\bcurl\s+.*-d\b/, /\bcurl\s+.*--data\b/, /\bwget\s+.*--post\b/, /\bnc\s/, /\bncat\s/, /\bnetcat\s/,
];
const CRITICAL_NEVER_AUTOPASS = [
  /\brm\s+-[rf]+\s*[\/~]\s*(?:$|\s)/, /\brm\s+-[rf]+\s+\$HOME/, /\brm\s+-[rf]+\s+\/\*/, /\bsudo\b/,
  /\bformat\s+[a-z]:\b/i, /\bmkfs\b/, /\breg\s+delete\b/i, /\bdd\s+if=.*of=\/dev/,
  /\bgit\s+push\s+.*--force.*\b(main|master|production)\b/i, /\b:\(\)\{\s*:\|:&\s*\}\s*;:/,
];

function needsConfirmation(tool, args) {
  if (tool.startsWith('connector_')) {
    const action = tool.split('_').slice(2).join('_');
    if (CONNECTOR_HIGH_RISK_ACTIONS.has(action)) return true;
    return CONNECTOR_WRITE.test(tool);
  }
  if (tool !== 'bash') return ALWAYS_CONFIRM.has(tool);
  const command = String((args && args.command) ?? '').trim();
  if (!command) return true;
  if (!CHAIN_OPERATORS.test(command) && SAFE_BASH_PATTERNS.some((p) => p.test(command))) return false;
  if (DESTRUCTIVE_BASH_PATTERNS.some((p) => p.test(command))) return true;
  return true;
}

function getApprovalClass(tool, args) {
  if (tool.startsWith('connector_')) {
    const action = tool.split('_').slice(2).join('_');
    if (CONNECTOR_HIGH_RISK_ACTIONS.has(action)) return 'critical';
    return CONNECTOR_WRITE.test(tool) ? 'elevated' : 'standard';
  }
  if (tool === 'install_capability') {
    const r = args && args._riskLevel;
    return r === 'high' ? 'critical' : r === 'medium' ? 'elevated' : 'standard';
  }
  return 'standard';
}

function isCriticalNeverAutopass(tool, args) {
  if (tool === 'bash') {
    const command = String((args && args.command) ?? '').trim();
    return CRITICAL_NEVER_AUTOPASS.some((p) => p.test(command));
  }
  if (tool === 'install_capability') return !!args && args._riskLevel === 'high';
  if (tool === 'git_push') {
    return !!args && !!args.force && ['main', 'master', 'production'].includes(String(args.branch).toLowerCase());
  }
  return false;
}

function needsConfirmationWithAutonomy(tool, args, level = 'normal') {
  if (!needsConfirmation(tool, args)) return false;
  if (level === 'normal') return true;
  if (isCriticalNeverAutopass(tool, args)) return true;
  if (level === 'yolo') return false;
  if (TRUSTED_AUTOPASS.has(tool)) return false;
  if (tool === 'bash') return false;
  return true;
}

function decide(call) {
  const level = call.level || 'normal';
  const base = needsConfirmation(call.tool, call.args);
  const need = needsConfirmationWithAutonomy(call.tool, call.args, level);
  return {
    tool: call.tool, level, needsConfirmation: need, approvalClass: getApprovalClass(call.tool, call.args),
    critical: isCriticalNeverAutopass(call.tool, call.args), autoApproved: base && !need,
    rule: 'regex', reason: 'original regex gate',
  };
}

function inproc(file) {
  const calls = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const bash = calls.filter((c) => c.tool === 'bash');
  const time = (set, fn) => {
    const reps = [];
    let sink = 0;
    for (let w = 0; w < 3; w++) for (const c of set) sink += fn(c) ? 1 : 0;   // warm-up, JIT
    for (let r = 0; r < 7; r++) {
      const iters = 200;
      const t0 = process.cpuUsage();       // CPU time, as bench/gate.c measures
      for (let i = 0; i < iters; i++) for (const c of set) sink += fn(c) ? 1 : 0;
      const d = process.cpuUsage(t0);
      reps.push(((d.user + d.system) * 1000) / (iters * set.length));
    }
    reps.sort((a, b) => a - b);
    if (sink < 0) console.log(sink);
    time.best = reps[0];
    return reps[3];
  };
  // per bash decision: the three spec functions, as the chat hook calls them
  const bashNs = time(bash, (c) => needsConfirmationWithAutonomy('bash', c.args, c.level) ||
    isCriticalNeverAutopass('bash', c.args) || getApprovalClass('bash', c.args) === 'x');
  // the original's one-answer function alone (what its chat hook asks first)
  const bash1Ns = time(bash, (c) => needsConfirmationWithAutonomy('bash', c.args, c.level));
  const bash1Best = time.best;
  const allNs = time(calls, (c) => decide(c).needsConfirmation);
  console.log(`bash_ns ${bashNs.toFixed(1)}`);
  console.log(`bash1_ns ${bash1Ns.toFixed(1)}`);
  console.log(`bash1_best ${bash1Best.toFixed(1)}`);
  console.log(`all_ns ${allNs.toFixed(1)}`);
  console.log(`bash_calls ${bash.length}`);
  console.log(`all_calls ${calls.length}`);
}

function batch() {
  const text = fs.readFileSync(0, 'utf8');
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let o;
    try { o = JSON.stringify(decide(JSON.parse(line))); } catch (e) { o = JSON.stringify({ error: String(e.message) }); }
    out.push(o);
    if (out.length >= 4096) { fs.writeSync(1, out.join('\n') + '\n'); out.length = 0; }
  }
  if (out.length) fs.writeSync(1, out.join('\n') + '\n');
}

if (process.argv[2] === '--inproc') inproc(process.argv[3]);
else if (process.argv[2] === '--batch') batch();
else { console.error('usage: gate_baseline.js --inproc CORPUS | --batch'); process.exit(2); }
