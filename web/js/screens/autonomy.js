// Autonomy (spec 7.5): Normal / Trusted / YOLO with a temporary expiry. The
// choice lives in this browser and rides on every call the dashboard makes;
// the server applies it only while it has not expired and within its cap,
// which is shown here (GET /api/dashboard/session).
import * as autonomy from '../autonomy.js';
import { h, replace, section, field, ago, toast } from '../dom.js';

const LEVELS = [
  ['normal', 'Normal', 'Every call the gate flags waits for your click.'],
  ['trusted', 'Trusted', 'Standard calls the gate flags run on their own; elevated and critical ones still ask.'],
  ['yolo', 'YOLO', 'Everything runs on its own except the never-autopass list (rm -rf ~, sudo, …), which always asks.'],
];
const DURATIONS = [10, 30, 60, 120, 240, 480];

export default function render(main, ctx) {
  const capMs = (ctx.info && ctx.info.autonomyCapMs) || 8 * 3600000;
  const max = (ctx.info && ctx.info.maxAutonomy) || 'yolo';
  const order = ['normal', 'trusted', 'yolo'];
  const now = h('p', { class: 'state', 'aria-live': 'polite' });
  const show = () => {
    const a = autonomy.current();
    now.textContent = a.level === 'normal' ? 'Now: Normal.'
      : `Now: ${a.level} until ${new Date(a.expiresAt).toLocaleTimeString()} (${ago(a.expiresAt - Date.now())} left).`;
  };
  const radios = LEVELS.map(([v, label, what]) => {
    const input = h('input', { type: 'radio', name: 'level', value: v, id: `level-${v}`,
                               disabled: order.indexOf(v) > order.indexOf(max) });
    return h('div', { class: 'radio' }, input, h('label', { for: `level-${v}` }, h('strong', {}, label), ` — ${what}`));
  });
  const minutes = h('select', { id: 'autonomy-minutes' },
    DURATIONS.filter((m) => m * 60000 <= capMs).map((m) => h('option', { value: m }, m < 60 ? `${m} minutes` : `${m / 60} h`)));
  const current = autonomy.current();
  for (const r of radios) { const i = r.querySelector('input'); i.checked = i.value === current.level; }
  const form = h('form', { 'aria-label': 'Choose the autonomy level' },
    h('fieldset', {}, h('legend', {}, 'Level'), radios),
    field('For', minutes, `The server caps an override at ${ago(capMs)} ahead` +
      (max !== 'yolo' ? ` and at ${max}` : '') + '; past its expiry every call is Normal again.'),
    h('button', { type: 'submit', class: 'button' }, 'Apply'),
    h('button', { type: 'button', class: 'button secondary', onclick: () => { autonomy.set('normal'); show(); toast('Back to Normal'); } }, 'Back to Normal'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const checked = form.querySelector('input[name=level]:checked');
    const level = checked ? checked.value : 'normal';
    autonomy.set(level, Number(minutes.value));
    show();
    toast(level === 'normal' ? 'Normal' : `${level} for ${minutes.value} minutes`);
  });
  show();
  const timer = setInterval(show, 1000);
  replace(main, h('h1', {}, 'Autonomy'), section('How much may run without your click', now, form));
  return () => clearInterval(timer);
}
