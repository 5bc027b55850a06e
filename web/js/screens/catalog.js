// Catalog (spec 12): search the MCP server catalog with a category filter;
// each match shows its install command, ready to copy.
import { get, errorView } from '../api.js';
import { h, replace, section, field, toast } from '../dom.js';

export default async function render(main) {
  const q = h('input', { type: 'search', value: 'issues and pull requests', spellcheck: 'false' });
  const cat = h('select', {}, h('option', { value: '' }, 'All categories'));
  const out = h('div', { 'aria-live': 'polite' });
  try {
    const { body } = await get('/api/catalog/categories');
    for (const c of body.categories) cat.appendChild(h('option', { value: c.category }, `${c.category} (${c.count})`));
  } catch (err) { replace(out, errorView(err)); }
  const form = h('form', { role: 'search', 'aria-label': 'Search the catalog' }, field('Search', q), field('Category', cat),
    h('button', { type: 'submit', class: 'button' }, 'Search'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const params = new URLSearchParams({ q: q.value || ' ', limit: '20' });
    if (cat.value) params.set('category', cat.value);
    try {
      const { body } = await get(`/api/catalog/search?${params}`);
      replace(out, h('p', { class: 'muted' }, `${body.matchCount} of ${body.catalogSize} servers match.`),
        body.hint ? h('p', { class: 'hint' }, body.hint) : null,
        h('ul', { class: 'cards', 'aria-label': 'Matches' }, (body.matches || []).map((m) => h('li', {},
          h('div', { class: 'row' }, h('h3', { class: 'grow' }, m.name), h('span', { class: 'tag' }, m.category),
            m.official ? h('span', { class: 'badge' }, 'official') : null),
          h('p', {}, m.description),
          h('div', { class: 'row' }, h('pre', { class: 'cmd grow' }, h('code', {}, m.installCmd || '')),
            h('button', { type: 'button', class: 'button small secondary', 'aria-label': `Copy the install command of ${m.name}`,
              onclick: () => navigator.clipboard.writeText(m.installCmd || '').then(() => toast('Copied'), () => toast('Copy failed', 'error')) }, 'Copy'))))));
    } catch (err) { replace(out, errorView(err)); }
  });
  replace(main, h('h1', {}, 'Catalog'), section('MCP servers', form, out));
}
