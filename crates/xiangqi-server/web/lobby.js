// The lobby dialog: the open seeks, live from /api/lobby/stream; making a seek (its request
// stays open until someone takes it, then the page goes to the game); joining another's.
import { clockFields, readLines, tcText } from '/online.js';
import { csrfHeaders, ratingText, profileHref } from '/account.js';

const $ = (id) => document.getElementById(id);

export function setupLobby(ctx) {
  const { t, settings, toast } = ctx;
  const S = { list: null, seek: null, seekId: null, seeks: [] };

  function cell(text, cls) {
    const td = document.createElement('td');
    if (cls) td.className = cls;
    if (text != null) td.textContent = text;
    return td;
  }

  function render() {
    const tbody = $('lobby-seeks').querySelector('tbody');
    tbody.textContent = '';
    if (!S.seeks.length) {
      const tr = document.createElement('tr');
      tr.append(cell(t('noSeeks'), 'meta'));
      tbody.append(tr);
    }
    for (const s of S.seeks) {
      const tr = document.createElement('tr');
      tr.dataset.testid = 'seek';
      tr.dataset.id = s.id;
      const name = cell(null, 'title');
      if (s.user) {
        const a = document.createElement('a');
        a.href = profileHref(s.user);
        a.textContent = s.user;
        name.append(a, ' ');
        const r = document.createElement('span');
        r.className = 'rating';
        r.dataset.testid = 'seek-rating';
        r.textContent = ratingText(s.rating, s.provisional);
        if (s.provisional) r.title = t('provisional');
        name.append(r);
      } else name.textContent = s.name;
      const kind = cell(s.rated ? t('rated') : t('casual'));
      kind.dataset.testid = 'seek-kind';
      const tc = cell(tcText(s.limit, s.increment, t, s.days));
      const side = cell(s.color === 'random' ? t('randomSide') : t(s.color));
      const acts = cell(null, 'acts');
      if (s.id === S.seekId) acts.append(t('yourSeek'));
      else {
        const b = document.createElement('button');
        b.textContent = t('join');
        b.dataset.testid = 'seek-join';
        b.addEventListener('click', () => join(s.id));
        acts.append(b);
      }
      tr.append(name, tc, side, kind, acts);
      tbody.append(tr);
    }
    const waiting = !!S.seek;
    $('lobby-create').disabled = waiting;
    $('lobby-cancel').classList.toggle('hidden', !waiting);
    $('lobby-wait').classList.toggle('hidden', !waiting);
  }

  async function follow() {
    const ctrl = new AbortController();
    S.list = ctrl;
    try {
      const res = await fetch('/api/lobby/stream', { signal: ctrl.signal, cache: 'no-store' });
      await readLines(res, (m) => {
        if (m.type === 'seeks') { S.seeks = m.seeks; render(); }
      });
    } catch { /* closed */ }
    // The dialog still open: follow again after a moment.
    if (S.list === ctrl && $('dlg-lobby').open) setTimeout(() => { if (S.list === ctrl) follow(); }, 1000);
  }

  function name() {
    const n = $('lobby-name').value.trim();
    if ($('lobby-name').disabled) return undefined; // an account's seek shows its username
    settings.name = n;
    ctx.saveSettings();
    return n || undefined;
  }

  // A seek: the dialog's choices, or `fields` (a time control and rating) when given.
  async function create(fields) {
    const body = fields && fields.clock !== undefined
      ? { ...(fields.clock ? { clock: fields.clock } : {}), color: 'random', name: name() }
      : { ...clockFields($('lobby-tc').value), color: $('lobby-side').value, name: name() };
    if (fields && fields.clock !== undefined ? fields.rated : $('lobby-rated').checked) body.rated = true;
    const ctrl = new AbortController();
    S.seek = ctrl;
    render();
    try {
      const res = await fetch('/api/board/seek', {
        method: 'POST', headers: { 'Content-Type': 'application/json', ...(await csrfHeaders()) }, body: JSON.stringify(body), signal: ctrl.signal,
      });
      if (!res.ok) {
        const data = await res.json().catch(() => ({}));
        throw new Error(data.error || res.statusText);
      }
      await readLines(res, (m) => {
        if (m.type === 'seek') { S.seekId = m.id; render(); }
        if (m.type === 'gameStart') { S.done = true; location.href = m.url; }
      });
    } catch (e) {
      if (!ctrl.signal.aborted) toast((ctx.errText || ((x) => x.message))(e));
    }
    if (S.seek === ctrl && !S.done) { S.seek = null; S.seekId = null; render(); }
  }

  function cancel() {
    if (S.seek) S.seek.abort();
    S.seek = null; S.seekId = null;
    render();
  }

  async function join(seekId) {
    try {
      const res = await fetch(`/api/board/seek/${encodeURIComponent(seekId)}/accept`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', ...(await csrfHeaders()) }, body: JSON.stringify({ name: name() }),
      });
      const data = await res.json().catch(() => ({}));
      if (!res.ok) throw new Error(data.error || res.statusText);
      location.href = data.url;
    } catch (e) { toast((ctx.errText || ((x) => x.message))(e)); }
  }

  function open() {
    if (!$('lobby-name').disabled) $('lobby-name').value = settings.name || '';
    if (!$('dlg-lobby').open) $('dlg-lobby').showModal();
    render();
    if (!S.list) follow();
  }
  $('btn-lobby').addEventListener('click', open);
  $('dlg-lobby').addEventListener('close', () => {
    if (S.list) S.list.abort();
    S.list = null;
    cancel();
  });
  $('lobby-create').addEventListener('click', () => create());
  $('lobby-cancel').addEventListener('click', cancel);
  return {
    // The lobby opened with a seek like a game's: `{ clock: {limit, increment} | null, rated }`
    // (after a game: "New opponent"), waiting there for whoever takes it.
    seekLike(fields) {
      open();
      if (!S.seek) create(fields);
    },
  };
}
