// The live page's chat panel (docs/APP.md, "Chat"): the game's two rooms as the server
// streams them (`chatLine` on the game stream, the history from GET /api/board/game/{id}/chat
// after every gameFull), the room tabs a reader has (a player: the players' room, and the
// spectators' once the game has ended; a spectator: the spectators'), an input with its
// length counter (Enter sends), a mute remembered per game, and a block on an account's
// name. Every line is put in the page as text (textContent), never as HTML. The account's
// chat preference off hides the whole panel. Its strings are `chat*` in app.js's tables.
import { whoami, csrfHeaders } from '/account.js';

const MAX = 140;
const $ = (id) => document.getElementById(id);

function node(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

export function startChat(ctx) {
  const { id, token, t, ask } = ctx;
  // A guest who gave no name is "Anonymous" on the server, said in the page's language.
  const authorName = (l) => (!l.user && l.username === 'Anonymous' ? t('anonymous') : l.username);
  const C = {
    lines: new Map(), // seq -> chatLine
    seat: null, over: false, room: null, me: undefined, blocked: new Set(),
    muted: localStorage.getItem('xiangqi.chat.mute.' + id) === '1',
    error: '', sending: false,
  };
  const panel = $('live-chat');
  const list = $('chat-lines');
  const input = $('chat-input');
  const count = $('chat-count');
  const tabs = $('chat-tabs');
  const errorEl = $('chat-error');
  const muteBtn = $('chat-mute');

  whoami().then((me) => {
    C.me = me;
    if (me) C.blocked = new Set((me.blocking || []).map((n) => n.toLowerCase()));
    render();
  });

  function rooms() {
    if (!C.seat) return ['spectator'];
    return C.over ? ['player', 'spectator'] : ['player'];
  }
  function canWrite(room) {
    if (room === 'player') return !!C.seat;
    if (C.seat && !C.over) return false;
    return !!C.me;
  }

  async function reload() {
    try {
      const res = await fetch(`/api/board/game/${encodeURIComponent(id)}/chat`, {
        headers: token ? { Authorization: 'Bearer ' + token } : {}, cache: 'no-store',
      });
      if (!res.ok) return;
      for (const l of await res.json()) C.lines.set(l.seq, l);
      render();
    } catch { /* the stream brings them again on its next gameFull */ }
  }

  async function send() {
    const text = input.value.trim();
    if (!text || C.sending) return;
    C.sending = true;
    try {
      const res = await fetch(`/api/board/game/${encodeURIComponent(id)}/chat`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(token ? { Authorization: 'Bearer ' + token } : {}),
          ...(await csrfHeaders()),
        },
        body: JSON.stringify({ room: C.room, text }),
      });
      if (res.ok) {
        input.value = '';
        C.error = '';
      } else {
        const data = await res.json().catch(() => ({}));
        C.error = res.status === 429
          ? t('chatTooFast', { n: res.headers.get('retry-after') || '10' })
          : ctx.errText({ message: data.error || res.statusText });
      }
    } catch (e) {
      C.error = ctx.errText(e);
    }
    C.sending = false;
    render();
  }

  async function block(name) {
    if (!(await ask(t('chatBlockAsk', { name }), t('chatBlock')))) return;
    try {
      const res = await fetch(`/api/rel/block/${encodeURIComponent(name)}`, {
        method: 'POST', headers: await csrfHeaders(),
      });
      if (!res.ok) {
        const data = await res.json().catch(() => ({}));
        throw new Error(data.error || res.statusText);
      }
      C.blocked.add(name.toLowerCase());
      render();
    } catch (e) { ctx.toast(ctx.errText(e)); }
  }

  input.addEventListener('input', renderCount);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); }
  });
  $('chat-form').addEventListener('submit', (e) => { e.preventDefault(); send(); });
  muteBtn.addEventListener('click', () => {
    C.muted = !C.muted;
    try {
      if (C.muted) localStorage.setItem('xiangqi.chat.mute.' + id, '1');
      else localStorage.removeItem('xiangqi.chat.mute.' + id);
    } catch { /* storage off: for this page only */ }
    render();
  });

  function renderCount() {
    const n = [...input.value.trim()].length;
    count.textContent = `${n}/${MAX}`;
    count.classList.toggle('over', n > MAX);
  }

  function render() {
    const off = C.me && C.me.chat === false;
    panel.classList.toggle('hidden', !!off);
    if (off) return;
    const rs = rooms();
    if (!rs.includes(C.room)) C.room = rs[0];
    tabs.textContent = '';
    tabs.classList.toggle('hidden', rs.length < 2);
    for (const r of rs) {
      const b = node('button', 'chat-tab', r === 'player' ? t('chatPlayers') : t('chatSpectators'));
      b.type = 'button';
      b.setAttribute('role', 'tab');
      b.setAttribute('aria-selected', r === C.room ? 'true' : 'false');
      b.dataset.testid = 'chat-tab-' + r;
      b.addEventListener('click', () => { C.room = r; C.error = ''; render(); });
      tabs.append(b);
    }
    $('chat-title').textContent = rs.length > 1 ? t('chat')
      : C.room === 'player' ? t('chatPlayers') : t('chatSpectators');
    muteBtn.textContent = C.muted ? t('chatUnmute') : t('chatMute');
    muteBtn.setAttribute('aria-pressed', C.muted ? 'true' : 'false');
    $('chat-body').classList.toggle('hidden', C.muted);
    list.textContent = '';
    const shown = [...C.lines.values()]
      .filter((l) => l.room === C.room && !(l.user && C.blocked.has(l.user.toLowerCase())))
      .sort((a, b) => a.seq - b.seq);
    if (!shown.length) list.append(node('li', 'empty', t('chatEmpty')));
    for (const l of shown) {
      const li = node('li');
      li.dataset.testid = 'chat-line';
      const mine = C.me && l.user && l.user.toLowerCase() === C.me.name.toLowerCase();
      let who;
      if (l.user && C.me && !mine) {
        who = node('button', 'chat-user', authorName(l));
        who.type = 'button';
        who.title = t('chatBlockAsk', { name: l.user });
        who.dataset.testid = 'chat-author';
        who.addEventListener('click', () => block(l.user));
      } else {
        who = node('span', 'chat-user', authorName(l));
      }
      if (l.seat) who.classList.add('seat-' + l.seat);
      li.append(who, node('span', 'chat-text', l.text));
      list.append(li);
    }
    list.scrollTop = list.scrollHeight;
    const writable = canWrite(C.room);
    input.disabled = !writable;
    input.placeholder = writable ? t('chatPlaceholder') : C.room === 'spectator' && !C.me ? t('chatLogIn') : '';
    $('chat-send').disabled = !writable;
    errorEl.textContent = C.error;
    errorEl.classList.toggle('hidden', !C.error);
    renderCount();
  }

  render();
  return {
    // A line of the game stream; true when it was chat.
    onLine(m) {
      if (m.type === 'gameFull') { reload(); return false; }
      if (m.type !== 'chatLine') return false;
      C.lines.set(m.seq, m);
      render();
      return true;
    },
    // Who reads (the seat, or null) and whether the game has ended.
    setState(seat, over) {
      if (C.seat === seat && C.over === over) return;
      const wasOver = C.over;
      C.seat = seat; C.over = over;
      if (over && !wasOver) reload(); // the spectators' room opens to the players
      render();
    },
    render,
  };
}
