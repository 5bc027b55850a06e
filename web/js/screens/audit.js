// Audit: the log (GET /api/audit, newest first, inputs masked) with an
// event filter (exact, or a prefix ending in *) and a limit, and "verify
// chain" (GET /api/audit/verify).
import { get, errorView } from '../api.js';
import { h, replace, section, field, preview } from '../dom.js';

export default function render(main) {
  const event = h('input', { placeholder: 'e.g. approval_* or connector.connect', spellcheck: 'false' });
  const limit = h('select', {}, [50, 100, 200, 500].map((n) => h('option', { value: n }, String(n))));
  const tool = h('input', { placeholder: 'tool name contains', spellcheck: 'false' });
  const out = h('div', { 'aria-live': 'polite' });
  const verdict = h('div', { 'aria-live': 'polite', id: 'verify-result' });
  async function load() {
    const params = new URLSearchParams({ limit: limit.value });
    if (event.value) params.set('event', event.value);
    try {
      const { body } = await get(`/api/audit?${params}`);
      const q = tool.value.toLowerCase();
      const rows = body.events.filter((e) => !q || String(e.tool || '').toLowerCase().includes(q));
      replace(out, h('p', { class: 'muted' }, `${rows.length} of ${body.count} rows`),
        h('div', { class: 'scroll' }, h('table', { class: 'audit', 'aria-label': 'Audit log' },
          h('thead', {}, h('tr', {}, ['#', 'When', 'Event', 'Actor', 'Tool', 'Decision', 'Rule', 'Input'].map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, rows.map((e) => h('tr', {}, h('td', {}, String(e.id)), h('td', {}, e.ts), h('td', {}, e.event),
            h('td', {}, e.actor || ''), h('td', {}, e.tool || ''), h('td', {}, e.decision || ''), h('td', {}, e.rule || ''),
            h('td', {}, h('code', {}, preview(e.input, 160)))))))));
    } catch (err) { replace(out, errorView(err)); }
  }
  const form = h('form', { 'aria-label': 'Filter the audit log', class: 'inline' }, field('Event', event), field('Tool', tool), field('Rows', limit),
    h('button', { type: 'submit', class: 'button' }, 'Show'));
  form.addEventListener('submit', (e) => { e.preventDefault(); load(); });
  const verify = h('button', { type: 'button', class: 'button secondary', onclick: async () => {
    replace(verdict, h('span', { class: 'muted' }, 'Verifying…'));
    try {
      const { body } = await get('/api/audit/verify');
      replace(verdict, body.ok ? h('p', { class: 'ok' }, `The chain is intact: ${body.rows} rows verified.`)
        : h('p', { class: 'error', role: 'alert' }, `The chain is broken${body.firstBadId ? ` at row ${body.firstBadId}` : ''}: ${body.reason}`));
    } catch (err) { replace(verdict, errorView(err)); }
  } }, 'Verify chain');
  replace(main, h('h1', {}, 'Audit'), section('Tamper-evident log', form, h('div', { class: 'actions' }, verify), verdict, out));
  load();
}
