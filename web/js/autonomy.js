// autonomy.js - the person's autonomy choice (spec 7.5): a level and an
// expiry, kept in this browser (localStorage) and sent with every gate check
// and tool call the dashboard makes. The server decides what applies: only
// while expiresAt is in the future and within its cap.
const KEY = 'waggle.autonomy';
const listeners = new Set();

export function current() {
  try {
    const a = JSON.parse(localStorage.getItem(KEY) || 'null');
    if (a && (a.level === 'trusted' || a.level === 'yolo') && a.expiresAt > Date.now()) return a;
  } catch { /* a bad value is no override */ }
  return { level: 'normal', expiresAt: null };
}

export function set(level, minutes) {
  if (level === 'normal') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, JSON.stringify({ level, expiresAt: Date.now() + minutes * 60000 }));
  listeners.forEach((fn) => fn(current()));
}

export function onChange(fn) { listeners.add(fn); }

// What to send as "autonomy" in a request body (undefined at Normal).
export function forRequest() {
  const a = current();
  return a.level === 'normal' ? undefined : { level: a.level, expiresAt: a.expiresAt };
}

window.addEventListener('storage', (e) => {
  if (e.key === KEY) listeners.forEach((fn) => fn(current()));
});
