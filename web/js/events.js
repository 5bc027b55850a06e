// events.js - the live step events of GET /api/events (server-sent events,
// docs/engine.md): approval_required, step (the ⚡ auto-approvals among
// them), result, error. One EventSource for the whole page; the browser
// reconnects on its own. The last events are kept so a screen opened later
// still shows them.
const NAMES = ['approval_required', 'step', 'result', 'error'];
const KEEP = 100;
const listeners = new Set();
export const recent = [];
let source = null;

export function start() {
  if (source) return;
  source = new EventSource('/api/events', { withCredentials: true });
  for (const name of NAMES) {
    source.addEventListener(name, (ev) => {
      if (!(ev instanceof MessageEvent)) return;   // 'error' is also the connection's
      let data;
      try { data = JSON.parse(ev.data); } catch { return; }
      const item = { name, data, at: Date.now() };
      recent.push(item);
      if (recent.length > KEEP) recent.shift();
      listeners.forEach((fn) => fn(item));
    });
  }
  // After a reconnect, events sent in between are not replayed: screens
  // that keep state (the approval queue) reload it on 'reconnected'.
  let lost = false;
  const live = document.getElementById('live');
  source.addEventListener('open', () => {
    document.body.classList.remove('offline');
    if (live) live.textContent = 'live';
    if (lost) listeners.forEach((fn) => fn({ name: 'reconnected', data: {}, at: Date.now() }));
    lost = false;
  });
  // The stream has its own event named "error" (a tool's error, a
  // MessageEvent with data); a plain Event named error is the connection's.
  source.addEventListener('error', (ev) => {
    if (ev instanceof MessageEvent) return;
    document.body.classList.add('offline');
    if (live) live.textContent = 'reconnecting…';
    lost = true;
  });
}

export function stop() {
  if (source) source.close();
  source = null;
}

export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
