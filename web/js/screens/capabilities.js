// Capabilities (spec 11): plugins (enable / disable: the routes the API
// has), MCP servers, skills, tools and commands as GET
// /api/capabilities/status reports them.
import { get, post, errorView } from '../api.js';
import { h, replace, section, toast } from '../dom.js';

function list(label, items, row) {
  return items.length ? h('ul', { class: 'plain', 'aria-label': label }, items.map(row))
                      : h('p', { class: 'muted' }, `No ${label.toLowerCase()}.`);
}

export default async function render(main) {
  let st;
  try { st = (await get('/api/capabilities/status')).body; } catch (err) { replace(main, errorView(err)); return; }
  const reload = () => render(main);
  const plugin = (p) => {
    const on = p.state === 'active';
    return h('li', { class: 'row' }, h('span', { class: 'grow' }, h('strong', {}, p.name),
      ` — ${p.tools} tools, ${p.skills} skills`), h('span', { class: `status ${on ? 'connected' : 'disconnected'}` }, p.state),
      h('button', { type: 'button', class: 'button small secondary', 'aria-label': `${on ? 'Disable' : 'Enable'} plugin ${p.name}`,
        onclick: async () => {
          try { await post(`/api/capabilities/plugins/${encodeURIComponent(p.name)}/${on ? 'disable' : 'enable'}`); toast(`${p.name} ${on ? 'disabled' : 'enabled'}`); reload(); }
          catch (err) { toast(err.message, 'error'); }
        } }, on ? 'Disable' : 'Enable'));
  };
  const t = st.tools || {};
  replace(main, h('h1', {}, 'Capabilities'),
    section('Plugins', list('Plugins', st.plugins || [], plugin)),
    section('MCP servers', list('MCP servers', st.mcpServers || [], (m) => h('li', { class: 'row' },
      h('span', { class: 'grow' }, h('strong', {}, m.name), ` — ${m.tools} tools`),
      h('span', { class: `status ${m.healthy ? 'connected' : 'error'}` }, m.healthy ? 'healthy' : m.state)))),
    section('Skills', list('Skills', st.skills || [], (s) => h('li', {}, h('strong', {}, s.name), ` — ${s.length} characters`))),
    section('Tools', h('p', {}, `${t.count} tools: ${t.native} native, ${t.plugin} from plugins, ${t.mcp} from MCP servers.`),
      h('p', { class: 'hint' }, 'Tools come and go with plugins and connectors: disable a plugin, or disconnect a connector, to take its tools away.')),
    section('Commands', list('Commands', st.commands || [], (c) => h('li', {}, h('code', {}, c.usage), ` — ${c.description}`))));
}
