// Acquire (spec 3): type a need, see the proposal: candidates with their
// trust assessment as risk badges, and the recommendation.
import { post, errorView } from '../api.js';
import { h, replace, section, field } from '../dom.js';

function riskBadge(t) {
  const risk = (t && t.riskLevel) || 'unknown';
  return h('span', { class: `badge risk-${risk}`, 'aria-label': `risk ${risk}` }, `risk: ${risk}`);
}

export default function render(main) {
  const need = h('input', { value: 'assess the risks of my project', spellcheck: 'false' });
  const out = h('div', { 'aria-live': 'polite' });
  const form = h('form', { 'aria-label': 'Propose a capability' }, field('What do you need?', need),
    h('button', { type: 'submit', class: 'button' }, 'Propose'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const { body } = await post('/api/capabilities/acquire', { need: need.value });
      const rec = body.recommendation;
      replace(out,
        body.alreadyHandled ? h('p', { class: 'ok' }, 'Already handled by what is installed.') : null,
        rec ? h('div', { class: 'card recommend' }, h('h3', {}, 'Recommended: ', rec.name), riskBadge(rec.trust),
          h('p', {}, rec.matchReason || ''),
          h('p', { class: 'hint' }, `Install with ${rec.installAction || 'install_capability'} name "${rec.name}" source "${rec.source}".`)) : null,
        h('ul', { class: 'cards', 'aria-label': 'Candidates' }, (body.candidates || []).map((c) => h('li', {},
          h('div', { class: 'row' }, h('h3', { class: 'grow' }, c.name), h('span', { class: 'tag' }, c.type),
            h('span', { class: 'tag' }, c.source), riskBadge(c.trust),
            c.trust && c.trust.approvalClass ? h('span', { class: `badge ${c.trust.approvalClass}` }, c.trust.approvalClass) : null),
          h('p', {}, c.description || ''),
          c.trust ? h('p', { class: 'muted' }, c.trust.explanation || '') : null))));
    } catch (err) { replace(out, errorView(err)); }
  });
  replace(main, h('h1', {}, 'Acquire'), section('Find a capability for a need', form, out));
}
