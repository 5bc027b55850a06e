// Approvals, live: the calls waiting for a person (GET /api/approvals, then
// approval_required events from GET /api/events as they happen), each with
// its tool, bounded arguments, the gate's rule and reason, approve / deny
// and the time left; below, the ⚡ steps auto-approved at Trusted or YOLO
// (spec 7.5) and a form to run a tool call at the current autonomy.
import { get, post, errorView } from '../api.js';
import * as autonomy from '../autonomy.js';
import { h, replace, section, field, preview, toast, ago } from '../dom.js';
import * as events from '../events.js';

// The stored preview is {argsDigest, argsBytes, args} (masked, bounded):
// the arguments are what a person judges.
const shownArgs = (input) => (input && typeof input === 'object' && 'args' in input ? input.args : input);
const when = (x) => (typeof x === 'number' ? x : Date.parse(x));

function normalise(a) {
  return { id: a.approvalId, tool: a.tool || a.toolName, input: a.input, cls: a.approvalClass,
           rule: a.rule, reason: a.explanation || a.reason, critical: !!a.critical,
           expiresAt: when(a.expiresAt) };
}

export default async function render(main) {
  const pending = new Map();
  const list = h('ul', { class: 'cards', 'aria-label': 'Waiting for approval' });
  const empty = h('p', { class: 'muted' }, 'Nothing waits for approval.');
  const auto = h('ul', { class: 'steps', 'aria-label': 'Auto-approved steps' });
  const feed = h('ol', { class: 'steps', 'aria-label': 'Recent steps' });

  const countdowns = [];
  function item(a) {
    const left = h('span', { class: 'countdown', 'aria-label': 'time left' });
    countdowns.push({ el: left, at: a.expiresAt });
    const out = h('div', { class: 'form-result', 'aria-live': 'polite' });
    const answer = async (approved) => {
      try {
        await post(`/api/approval/${encodeURIComponent(a.id)}`, { approved });
        toast(`${a.tool} ${approved ? 'approved' : 'denied'}`);
        pending.delete(a.id);
        draw();
      } catch (err) { replace(out, errorView(err)); }
    };
    return h('li', { class: `approval ${a.critical ? 'critical' : ''}`, 'data-approval': a.id },
      h('div', { class: 'row' },
        h('h3', { class: 'grow' }, h('code', {}, a.tool)),
        h('span', { class: `badge ${a.cls || ''}` }, a.cls || 'standard'), left),
      h('pre', { class: 'args', 'aria-label': 'arguments' }, preview(shownArgs(a.input), 800)),
      a.input && a.input.argsDigest ? h('p', { class: 'hint' },
        `${a.input.argsBytes} bytes, ${String(a.input.argsDigest).slice(0, 23)}…`) : null,
      h('p', {}, h('span', { class: 'rule' }, a.rule || ''), a.reason ? ` — ${a.reason}` : ''),
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'button', onclick: () => answer(true),
                      'aria-label': `Approve ${a.tool}` }, 'Approve'),
        h('button', { type: 'button', class: 'button danger', onclick: () => answer(false),
                      'aria-label': `Deny ${a.tool}` }, 'Deny')),
      out);
  }
  function draw() {
    countdowns.length = 0;
    const items = [...pending.values()].sort((x, y) => x.expiresAt - y.expiresAt);
    replace(list, items.map(item));
    empty.hidden = items.length > 0;
    tick();
  }
  function tick() {
    for (const c of countdowns) {
      const ms = c.at - Date.now();
      c.el.textContent = ms > 0 ? `expires in ${ago(ms)}` : 'expired';
    }
  }
  async function reload() {
    try {
      const { body } = await get('/api/approvals');
      pending.clear();
      for (const a of body.approvals) if (a.state === 'pending') pending.set(a.approvalId, normalise(a));
      draw();
    } catch { /* the next event or reconnect tries again */ }
  }
  function step(ev) {
    const d = ev.data || {};
    if (ev.name === 'reconnected') { reload(); return; }
    if (ev.name === 'approval_required') {
      const a = normalise(d);
      if (a.id) { pending.set(a.id, a); draw(); }
      return;
    }
    if (ev.name === 'step' && d.approvalId && /approved|denied/.test(d.content || '') && !/^⚡/.test(d.content)) {
      pending.delete(d.approvalId);
      draw();
    }
    const text = ev.name === 'step' ? d.content
      : ev.name === 'result' ? `result of ${d.tool}` : ev.name === 'error' ? `${d.tool}: ${d.message || d.error}` : '';
    if (!text) return;
    const li = h('li', { class: ev.name }, h('time', {}, new Date(ev.at).toLocaleTimeString()), ' ', text);
    feed.prepend(li);
    while (feed.childNodes.length > 50) feed.lastChild.remove();
    if (ev.name === 'step' && /^⚡/.test(d.content || '')) {
      auto.prepend(h('li', { class: 'auto' }, h('time', {}, new Date(ev.at).toLocaleTimeString()), ' ', d.content));
    }
  }

  try {
    const { body } = await get('/api/approvals');
    for (const a of body.approvals) if (a.state === 'pending') pending.set(a.approvalId, normalise(a));
  } catch (err) {
    replace(main, errorView(err));
    return;
  }
  for (const ev of events.recent) step(ev);
  const unsubscribe = events.subscribe(step);
  const timer = setInterval(tick, 1000);

  const tool = h('input', { value: 'connector_github_create_issue', spellcheck: 'false' });
  const args = h('textarea', { rows: 4, spellcheck: 'false' },
    '{"owner":"octocat","repo":"Hello-World","title":"Found a bug"}');
  const runOut = h('div', { class: 'form-result', 'aria-live': 'polite' });
  const level = h('span', { class: 'muted' });
  const showLevel = () => { const a = autonomy.current(); level.textContent = `at ${a.level}`; };
  showLevel();
  autonomy.onChange(showLevel);
  const check = h('button', { type: 'button', class: 'button secondary' }, 'Ask the gate');
  const run = h('form', { 'aria-label': 'Run a tool call' },
    field('Tool', tool), field('Arguments (JSON object)', args),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button' }, 'Run'), check, level), runOut);
  const parsedArgs = () => {
    try { return JSON.parse(args.value || '{}'); } catch { replace(runOut, h('p', { class: 'error' }, 'The arguments are not valid JSON.')); return null; }
  };
  // The gate alone (POST /api/gate/check): what an agent asks before it acts;
  // an auto-approval shows as a ⚡ step.
  check.addEventListener('click', async () => {
    const parsed = parsedArgs();
    if (!parsed) return;
    try {
      const { body: d } = await post('/api/gate/check', { tool: tool.value, args: parsed, autonomy: autonomy.forRequest() });
      replace(runOut, h('p', { class: d.needsConfirmation ? 'error' : 'ok' },
        d.needsConfirmation ? 'The gate asks a person' : d.autoApproved ? 'Auto-approved' : 'Runs without a click',
        ` — ${d.rule}: ${d.reason}`));
    } catch (err) { replace(runOut, errorView(err)); }
  });
  run.addEventListener('submit', async (e) => {
    e.preventDefault();
    const parsed = parsedArgs();
    if (!parsed) return;
    try {
      const { status, body } = await post('/api/tools/execute',
        { tool: tool.value, args: parsed, autonomy: autonomy.forRequest(), sessionId: 'dashboard' });
      replace(runOut, h('p', { class: status === 202 ? 'muted' : 'ok' },
        status === 202 ? `Waiting for approval (${body.approvalId}).`
                       : `Ran: ${body.result && body.result.success === false ? 'failed' : 'ok'}`),
        h('pre', { class: 'args' }, preview(body.result !== undefined ? body.result : body, 600)));
    } catch (err) { replace(runOut, errorView(err)); }
  });

  replace(main, h('h1', {}, 'Approvals'),
    section('Waiting for you', empty, list),
    section('⚡ Auto-approved steps', h('p', { class: 'hint' },
      'Calls the gate would have asked about, run without a click because Trusted or YOLO was on.'), auto),
    section('Run a tool call', run),
    section('Live steps', feed));
  draw();
  return () => { unsubscribe(); clearInterval(timer); };
}
