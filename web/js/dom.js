// dom.js - building the page without HTML strings. Every piece of text from
// the server becomes a text node (textContent), never markup: a tool
// argument or a connector name that holds "<img onerror=...>" shows as those
// characters. No file of web/ assigns markup to an element (a contract test
// checks for the DOM sinks by name).

// h('button', {class: 'x', onclick: fn, 'aria-label': 'y'}, 'text', child...)
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function replace(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

// A bounded, readable rendering of a JSON value: at most max characters,
// then an ellipsis and how much was cut. Still text, never markup.
export function preview(value, max = 600) {
  let s;
  try { s = typeof value === 'string' ? value : JSON.stringify(value, null, 2); }
  catch { s = String(value); }
  if (s === undefined) s = '';
  if (s.length > max) s = s.slice(0, max) + ` … (${s.length - max} more characters)`;
  return s;
}

export function section(title, ...children) {
  return h('section', { class: 'card', 'aria-label': title }, h('h2', {}, title), ...children);
}

export function field(label, input, hint) {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), input,
           hint ? h('p', { class: 'hint' }, hint) : null);
}

let toastTimer = 0;
export function toast(message, kind = 'info') {
  const t = document.getElementById('toast');
  if (!t) return;
  t.className = `toast show ${kind}`;
  t.textContent = message;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = 'toast'; }, 5000);
}

export function ago(ms) {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
