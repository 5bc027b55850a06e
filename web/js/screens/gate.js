// Gate playground (spec 7): a bash command, or a tool and JSON arguments,
// decided at all three levels with the rule and reason of each. Each row is
// one POST /api/gate/check with an autonomy override valid for a minute.
import { post, errorView } from '../api.js';
import { h, replace, section, field } from '../dom.js';

const LEVELS = ['normal', 'trusted', 'yolo'];

export default function render(main) {
  const mode = h('select', {}, h('option', { value: 'bash' }, 'a bash command'),
                 h('option', { value: 'tool' }, 'a tool and JSON arguments'));
  const command = h('input', { value: 'rm -rf ~', spellcheck: 'false', autocomplete: 'off' });
  const tool = h('input', { value: 'connector_github_create_issue', spellcheck: 'false' });
  const args = h('textarea', { rows: 3, spellcheck: 'false' }, '{"owner":"o","repo":"r","title":"t"}');
  const toolFields = h('div', { hidden: true }, field('Tool', tool), field('Arguments (JSON object)', args));
  const cmdField = field('Command', command);
  mode.addEventListener('change', () => {
    toolFields.hidden = mode.value !== 'tool';
    cmdField.hidden = mode.value === 'tool';
  });
  const table = h('table', { class: 'decisions', 'aria-label': 'Decisions' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Level'), h('th', { scope: 'col' }, 'Decision'),
      h('th', { scope: 'col' }, 'Rule'), h('th', { scope: 'col' }, 'Reason'))), h('tbody'));
  const out = h('div', { 'aria-live': 'polite' });
  const form = h('form', { 'aria-label': 'Gate playground' }, field('Check', mode), cmdField, toolFields,
    h('button', { type: 'submit', class: 'button' }, 'Decide'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    let call;
    if (mode.value === 'bash') call = { tool: 'bash', args: { command: command.value } };
    else {
      try { call = { tool: tool.value, args: JSON.parse(args.value || '{}') }; }
      catch { replace(out, h('p', { class: 'error' }, 'The arguments are not valid JSON.')); return; }
    }
    try {
      const rows = await Promise.all(LEVELS.map((level) => post('/api/gate/check',
        { ...call, autonomy: { level, expiresAt: Date.now() + 60000 } })));
      replace(table.tBodies[0], rows.map(({ body: d }, i) => h('tr', { 'data-level': LEVELS[i] },
        h('th', { scope: 'row' }, LEVELS[i]),
        h('td', {}, h('span', { class: `verdict ${d.needsConfirmation ? 'ask' : 'pass'}` },
          d.needsConfirmation ? 'asks a person' : d.autoApproved ? 'auto-approved' : 'runs'),
          d.critical ? h('span', { class: 'badge critical' }, 'never auto-passes') : null),
        h('td', {}, h('code', {}, d.rule)), h('td', {}, d.reason))));
      replace(out, table);
    } catch (err) { replace(out, errorView(err)); }
  });
  replace(main, h('h1', {}, 'Gate playground'),
    section('Does this call need a human\'s click?', form, out));
}
