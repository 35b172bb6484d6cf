// The account pages (native ES module, no build step): /account (log in, register, the
// account: password, personal API tokens), /@/{name} (a player's profile: ratings with a
// graph over time, recent games, wins/draws/losses) and /leaderboard (per speed). Every
// text from the server is put in the page as text (textContent), never as HTML.
// The other pages use `whoami` and `csrfHeaders` to act for the logged-in account.
// The chosen theme (settings.js: light or dark) applies here too.
import { settings, saveSettings } from '/settings.js';
import { loadLang, t as tr, translatePage, langButton, normLang } from '/i18n.js';
import { messageText } from '/messages.js';

const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';
export const SPEEDS = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];

// The account page's messages are the catalogue's acct-* (i18n.js).
const t = (key, vars) => tr('acct-' + key, vars);

// ---- shared with the other pages ---------------------------------------------------

let ME = null;
// Whether this browser has logged in (set when the server finds a session: after a log-in or
// register here, or on the account page): the other pages ask who is logged in only then, so
// a guest's page makes no request that is refused (a 401 the console shows).
const SESSION_HINT = 'xiangqi.session';
function hint(on) {
  try { if (on) localStorage.setItem(SESSION_HINT, '1'); else localStorage.removeItem(SESSION_HINT); } catch { /* storage off */ }
}
function hinted() {
  try { return !!localStorage.getItem(SESSION_HINT); } catch { return true; }
}

// The logged-in account ({name, csrf, ratings}) or null. `fresh`: ask the server again (the
// account page always does).
export async function whoami(fresh) {
  if (ME && !fresh) return ME.value;
  if (!fresh && !hinted()) { ME = { value: null }; return null; }
  try {
    const res = await fetch('/api/account', { cache: 'no-store' });
    ME = { value: res.ok ? await res.json() : null };
    hint(!!ME.value);
  } catch { ME = { value: null }; }
  return ME.value;
}
const ADOPTED = new WeakSet();
// The account's language (`lang` of GET /api/account), once it chose one, is the pages':
// logging in on any browser brings it. Answers whether the page's language changed (the
// caller loads it and draws the page again).
export function adoptAccountLang(me) {
  // Once for each answer of the server (a page's first, a log-in's): a language chosen on
  // this page since is not undone by a later drawing.
  if (!me || ADOPTED.has(me)) return false;
  ADOPTED.add(me);
  const l = normLang(me.lang);
  if (!l || l === settings.lang) return false;
  settings.lang = l;
  if (l !== 'en') settings.otherLang = l;
  saveSettings();
  return true;
}
// The page's language kept with the logged-in account (POST /api/account/preferences), for
// its other browsers; nothing for a guest. A failure leaves the choice in this browser only.
export async function rememberLang() {
  const me = await whoami();
  if (!me || me.lang === settings.lang) return;
  const before = me.lang;
  me.lang = settings.lang;
  try {
    const res = await fetch('/api/account/preferences', {
      method: 'POST', cache: 'no-store',
      headers: { ...(await csrfHeaders()), 'Content-Type': 'application/json' },
      body: JSON.stringify({ lang: settings.lang }),
    });
    if (!res.ok) me.lang = before;
  } catch { me.lang = before; /* offline: kept here only */ }
}
// The header a change made with the session cookie needs.
export async function csrfHeaders() {
  const me = await whoami();
  return me && me.csrf ? { 'X-CSRF-Token': me.csrf } : {};
}
// A rating as shown: 1500? when provisional.
export function ratingText(r, provisional) {
  return r == null ? '' : `${r}${provisional ? '?' : ''}`;
}
export function profileHref(name) { return '/@/' + encodeURIComponent(name); }

// ---- this page ---------------------------------------------------------------------

async function call(method, path, body) {
  const headers = { ...(method === 'GET' ? {} : await csrfHeaders()) };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) { const e = new Error(data.error || res.statusText); e.status = res.status; throw e; }
  return data;
}

function node(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'testid') e.dataset.testid = v;
    else if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of kids) if (c != null) e.append(c);
  return e;
}
function msg(text, ok) {
  const m = $('page-msg');
  m.textContent = text || '';
  m.className = 'msg' + (ok ? ' ok' : '');
}
function when(ms) { return new Date(ms).toLocaleString(settings.lang); }
function day(ms) { return new Date(ms).toLocaleDateString(settings.lang); }

function field(label, input) { return node('label', { class: 'field' }, node('span', {}, label), input); }

function credentialsForm(kind) {
  const user = node('input', { name: 'username', autocomplete: 'username', maxlength: '30', required: '', testid: `${kind}-username` });
  const pass = node('input', { name: 'password', type: 'password', autocomplete: kind === 'register' ? 'new-password' : 'current-password', required: '', testid: `${kind}-password` });
  if (kind === 'register') pass.placeholder = t('passwordHint');
  const form = node('form', { class: 'card', testid: `${kind}-form` },
    node('h2', {}, kind === 'register' ? t('newAccount') : t('login')),
    field(t('username'), user), field(t('password'), pass),
    node('button', { class: 'primary', type: 'submit', testid: `${kind}-submit` }, kind === 'register' ? t('register') : t('login')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await call('POST', `/api/account/${kind}`, { username: user.value, password: pass.value });
      await whoami(true);
      msg('');
      await render();
    } catch (err) { msg(messageText(err.message)); }
  });
  return form;
}

async function accountPage(body) {
  const me = await whoami(true);
  if (!me) {
    body.append(node('div', { class: 'cards' }, credentialsForm('login'), credentialsForm('register')));
    return;
  }
  const head = node('div', { class: 'card' },
    node('h2', { testid: 'account-name' }, t('loggedInAs', { name: me.name })),
    node('p', {}, node('a', { href: profileHref(me.name), testid: 'my-profile' }, t('profile'))),
    ratingsTable(me.ratings),
    node('button', { testid: 'logout', onclick: async () => {
      try { await call('POST', '/api/account/logout'); await whoami(true); msg(''); await render(); } catch (e) { msg(messageText(e.message)); }
    } }, t('logout')));
  // The password.
  const cur = node('input', { type: 'password', autocomplete: 'current-password', testid: 'pw-current' });
  const neu = node('input', { type: 'password', autocomplete: 'new-password', testid: 'pw-new' });
  const pw = node('form', { class: 'card' }, node('h2', {}, t('changePassword')),
    field(t('current'), cur), field(t('newPassword'), neu),
    node('button', { type: 'submit', testid: 'pw-submit' }, t('change')));
  pw.addEventListener('submit', async (e) => {
    e.preventDefault();
    try { await call('POST', '/api/account/password', { current: cur.value, new: neu.value }); await whoami(true); cur.value = neu.value = ''; msg(t('changed'), true); } catch (err) { msg(messageText(err.message)); }
  });
  // Tokens.
  const list = node('tbody');
  const shown = node('div', { class: 'hidden', testid: 'new-token' });
  const label = node('input', { maxlength: '60', testid: 'token-label' });
  const tokens = node('form', { class: 'card' }, node('h2', {}, t('tokens')), node('p', { class: 'help' }, t('tokensHelp')),
    node('table', { class: 'games', testid: 'tokens' }, list), shown,
    field(t('label'), label), node('button', { type: 'submit', testid: 'token-create' }, t('createToken')));
  async function loadTokens() {
    const rows = await call('GET', '/api/account/tokens');
    list.textContent = '';
    if (!rows.length) list.append(node('tr', {}, node('td', { class: 'meta' }, t('noTokens'))));
    for (const r of rows) {
      list.append(node('tr', { testid: 'token' }, node('td', { class: 'title' }, r.label), node('td', { class: 'meta' }, `${t('created')} ${when(r.created)}`),
        node('td', { class: 'acts' }, node('button', { testid: 'token-revoke', onclick: async () => {
          try { await call('DELETE', `/api/account/tokens/${r.id}`); await loadTokens(); } catch (e) { msg(messageText(e.message)); }
        } }, t('revoke')))));
    }
  }
  tokens.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const made = await call('POST', '/api/account/tokens', { label: label.value });
      shown.textContent = '';
      shown.append(node('p', { class: 'msg ok' }, t('shownOnce')), node('input', { class: 'fen', readonly: '', value: made.token, testid: 'new-token-value' }));
      shown.classList.remove('hidden');
      label.value = '';
      await loadTokens();
    } catch (err) { msg(messageText(err.message)); }
  });
  // Chat: the preference, and the players this account blocks.
  const chatOn = node('input', { type: 'checkbox', testid: 'pref-chat' });
  chatOn.checked = me.chat !== false;
  chatOn.addEventListener('change', async () => {
    try { await call('POST', '/api/account/preferences', { chat: chatOn.checked }); await whoami(true); msg(t('saved'), true); } catch (e) { chatOn.checked = !chatOn.checked; msg(messageText(e.message, settings.lang)); }
  });
  const blocked = node('tbody');
  function listBlocked(names) {
    blocked.textContent = '';
    if (!names.length) blocked.append(node('tr', {}, node('td', { class: 'meta' }, t('noBlocked'))));
    for (const n of names) {
      blocked.append(node('tr', { testid: 'blocked' }, node('td', { class: 'title' }, n),
        node('td', { class: 'acts' }, node('button', { testid: 'unblock', onclick: async () => {
          try { await call('POST', `/api/rel/unblock/${encodeURIComponent(n)}`); const m = await whoami(true); listBlocked(m ? m.blocking : []); } catch (e) { msg(messageText(e.message, settings.lang)); }
        } }, t('unblock')))));
    }
  }
  listBlocked(me.blocking || []);
  const chat = node('div', { class: 'card' }, node('h2', {}, t('chatPrefs')),
    node('label', { class: 'check' }, chatOn, node('span', {}, t('chatOn'))),
    node('h3', {}, t('blockedPlayers')), node('table', { class: 'games', testid: 'blocked-list' }, blocked));
  body.append(node('div', { class: 'cards' }, head, pw, tokens, chat));
  await loadTokens();
}

function ratingsTable(ratings) {
  const tb = node('tbody');
  tb.append(node('tr', {}, node('th', {}, t('speed')), node('th', {}, t('rating')), node('th', {}, t('games'))));
  for (const r of ratings) {
    const cell = node('td', { testid: `rating-${r.speed}` }, ratingText(r.rating, r.provisional));
    if (r.provisional) cell.title = t('provisional');
    tb.append(node('tr', {}, node('td', {}, t(r.speed)), cell, node('td', {}, String(r.games))));
  }
  return node('table', { class: 'games ratings', testid: 'ratings' }, tb);
}

// A graph of the ratings over time: one line per speed played.
function graph(history) {
  const W = 600, H = 220, P = 44;
  const svg = document.createElementNS(SVGNS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('class', 'rating-graph');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('graph'));
  svg.dataset.testid = 'rating-graph';
  const pts = history.map((h, i) => ({ ...h, i }));
  const rs = pts.map((p) => p.rating);
  const lo = Math.min(1500, ...rs) - 20, hi = Math.max(1500, ...rs) + 20;
  // x is time (from the account's start to the last game); points at one instant spread by order.
  const t0 = Math.min(...pts.map((p) => p.at)), t1 = Math.max(...pts.map((p) => p.at));
  const n = Math.max(pts.length - 1, 1);
  const x = (i) => P + (W - 2 * P) * (t1 > t0 ? (pts[i].at - t0) / (t1 - t0) : i / n);
  const y = (r) => H - P - (H - 2 * P) * ((r - lo) / (hi - lo));
  const el = (tag, attrs, text) => {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text != null) e.textContent = text;
    svg.append(e);
    return e;
  };
  el('rect', { x: 0, y: 0, width: W, height: H, fill: 'var(--panel)' });
  for (const r of [lo + 20, Math.round((lo + hi) / 2), hi - 20]) {
    el('line', { x1: P, x2: W - P, y1: y(r), y2: y(r), stroke: 'var(--border)' });
    el('text', { x: 2, y: y(r) + 4, 'font-size': 13, fill: 'var(--muted)' }, String(Math.round(r)));
  }
  if (t1 > t0) {
    el('text', { x: P, y: H - 8, 'font-size': 13, fill: 'var(--muted)' }, day(t0));
    el('text', { x: W - P, y: H - 8, 'font-size': 13, fill: 'var(--muted)', 'text-anchor': 'end' }, day(t1));
  }
  const colours = { bullet: '#b3261e', blitz: '#2f5d50', rapid: '#1e4fb3', classical: '#7a4f1c', correspondence: '#6b2fa0' };
  for (const sp of SPEEDS) {
    const mine = pts.filter((p) => p.speed === sp);
    if (!mine.length) continue;
    const line = mine.map((p) => `${x(p.i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(' ');
    el('polyline', { points: line, fill: 'none', stroke: colours[sp], 'stroke-width': 2, 'data-speed': sp });
    for (const p of mine) el('circle', { cx: x(p.i), cy: y(p.rating), r: 3, fill: colours[sp] }).append(Object.assign(document.createElementNS(SVGNS, 'title'), { textContent: `${t(sp)} ${p.rating} · ${when(p.at)}` }));
    const last = mine[mine.length - 1];
    el('text', { x: Math.min(x(last.i) + 5, W - P), y: y(last.rating) - 6, 'font-size': 13, fill: colours[sp] }, t(sp));
  }
  return svg;
}

async function profilePage(body, name) {
  let p;
  try { p = await call('GET', '/api/users/' + encodeURIComponent(name)); } catch (e) {
    body.append(node('p', { class: 'msg', testid: 'no-player' }, e.status === 404 ? t('noSuchPlayer') : messageText(e.message)));
    return;
  }
  document.title = `${p.name} · ${t('title')}`;
  const c = p.counts;
  const head = node('div', { class: 'card' }, node('h2', { testid: 'profile-name' }, p.name),
    node('p', { class: 'meta' }, t('memberSince', { date: day(p.created) })),
    node('p', { class: 'counts', testid: 'counts' },
      node('span', { testid: 'wins' }, `${t('wins')} ${c.wins}`), ' · ',
      node('span', { testid: 'draws' }, `${t('draws')} ${c.draws}`), ' · ',
      node('span', { testid: 'losses' }, `${t('losses')} ${c.losses}`)),
    ratingsTable(p.ratings));
  // Each speed's line starts at the starting rating, when the account was made.
  const starts = [...new Set(p.history.map((h) => h.speed))].map((speed) => ({ speed, at: p.created, rating: 1500 }));
  const g = node('div', { class: 'card wide' }, node('h2', {}, t('graph')), p.history.length ? graph([...starts, ...p.history]) : node('p', { class: 'meta' }, t('noHistory')));
  const tb = node('tbody');
  if (!p.recent.length) tb.append(node('tr', {}, node('td', { class: 'meta' }, t('noGames'))));
  for (const r of p.recent) {
    const diff = r.ratingDiff == null ? '' : ` (${r.ratingDiff >= 0 ? '+' : ''}${r.ratingDiff})`;
    tb.append(node('tr', { testid: 'recent-game' },
      node('td', {}, node('a', { href: '/live/' + encodeURIComponent(r.id) }, when(r.created))),
      node('td', {}, `${t(r.color)} · ${t(r.speed)} · ${r.rated ? t('rated') : t('casual')}`),
      node('td', { class: 'title', testid: 'recent-opponent' }, r.opponent),
      node('td', { testid: 'recent-result' }, t(r.result) + diff)));
  }
  const recent = node('div', { class: 'card' }, node('h2', {}, t('recent')), node('table', { class: 'games', testid: 'recent' }, tb));
  body.append(node('div', { class: 'cards' }, head, recent, g));
}

async function leaderboardPage(body) {
  const q = new URLSearchParams(location.search);
  const speed = SPEEDS.includes(q.get('speed')) ? q.get('speed') : 'blitz';
  const tabs = node('nav', { class: 'tabs' });
  for (const s of SPEEDS) {
    tabs.append(node('a', { href: `/leaderboard?speed=${s}`, class: 'button' + (s === speed ? ' primary' : ''), testid: `speed-${s}` }, t(s)));
  }
  const lb = await call('GET', `/api/leaderboard/${speed}`);
  const tb = node('tbody');
  tb.append(node('tr', {}, node('th', {}, t('rank')), node('th', {}, t('player')), node('th', {}, t('rating')), node('th', {}, t('games'))));
  if (!lb.players.length) tb.append(node('tr', {}, node('td', { class: 'meta', colspan: '4' }, t('noPlayers'))));
  for (const p of lb.players) {
    tb.append(node('tr', { testid: 'leader' }, node('td', {}, String(p.rank)),
      node('td', { class: 'title' }, node('a', { href: profileHref(p.name) }, p.name)),
      node('td', {}, ratingText(p.rating, p.provisional)), node('td', {}, String(p.games))));
  }
  body.append(node('div', { class: 'card' }, node('h2', {}, `${t('leaderboard')} · ${t(speed)}`), tabs, node('table', { class: 'games', testid: 'leaderboard' }, tb)));
}

async function render() {
  translatePage(document);
  langButton($('btn-lang'), settings);
  document.title = t('title');
  const me = await whoami();
  if (adoptAccountLang(me)) { await loadLang(settings.lang); return render(); }
  if (me && !me.lang) rememberLang();
  $('nav-account').textContent = me ? me.name : t('login');
  const body = $('page-body');
  body.textContent = '';
  const path = location.pathname;
  try {
    if (path.startsWith('/@/')) await profilePage(body, decodeURIComponent(path.slice(3)));
    else if (path === '/leaderboard') await leaderboardPage(body);
    else await accountPage(body);
  } catch (e) { msg(messageText(e.message)); }
}

if ($('account-page')) {
  $('btn-lang').addEventListener('click', async () => {
    settings.lang = settings.lang === 'en' ? settings.otherLang : 'en';
    await loadLang(settings.lang);
    saveSettings();
    rememberLang();
    render();
  });
  loadLang(settings.lang).then(render).finally(() => { document.documentElement.dataset.ready = '1'; });
}
