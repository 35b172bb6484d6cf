// The page of a live game between people: /live/{id} (a spectator) or /live/{id}#seat=TOKEN
// (a player). It follows the game's ndjson stream (docs/API.md, "Online play"), draws the
// board with board.js, sends the player's moves and answers to the board API with the seat's
// bearer token, and runs both clocks locally between the server's updates.
import {
  CELL, MARGIN, el, sqName, parseFen, xyOf, drawGrid, pieceGroup, fenAfter, boardPng, download, markLast, markCheck,
} from '/board.js';
import { play } from '/sound.js';
import { moveShown, droppedMove } from '/motion.js';
import { moveNames, shownMove } from '/notation.js';
import { rulingText } from '/i18n.js';
import { openingName } from '/explorer.js';
import { startChat } from '/chat.js';

const $ = (id) => document.getElementById(id);
const LOW_MS = 10000;
const STALL_MS = 15000; // no line (not even a keep-alive) for this long: the stream is dead

// The time controls offered when a game or a seek is made: seconds and increment.
export const TIME_CONTROLS = [
  { v: '180+2', limit: 180, increment: 2 },
  { v: '300+3', limit: 300, increment: 3 },
  { v: '600+0', limit: 600, increment: 0 },
  { v: '900+10', limit: 900, increment: 10 },
  { v: 'none' },
  // Correspondence: days per move instead of a clock.
  { v: 'd1', days: 1 },
  { v: 'd3', days: 3 },
  { v: 'd7', days: 7 },
  { v: 'd14', days: 14 },
];
// The request fields of a time control's value ('300+3', or 'none': no clock).
export function clockFields(v) {
  const tc = TIME_CONTROLS.find((c) => c.v === v);
  if (tc && tc.days) return { days: tc.days };
  return tc && tc.limit ? { clock: { limit: tc.limit, increment: tc.increment } } : {};
}
// A time control for people: "5+3", "3 days per move", or "no clock".
export function tcText(limit, increment, t, days) {
  if (days) return t('daysPerMove', { n: days });
  if (limit == null) return t('noClock');
  // Minutes, as lichess writes them (½ for 30 s); seconds under a minute otherwise.
  const m = limit / 60;
  const head = Number.isInteger(m) ? m : limit === 30 ? '½' : limit > 60 ? m.toFixed(1) : limit + 's';
  return `${head}+${increment || 0}`;
}

// Reads an ndjson response line by line until it ends; `onLine` gets each parsed object.
export async function readLines(res, onLine, onAny) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    if (onAny) onAny();
    buf += value;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (line) onLine(JSON.parse(line));
    }
  }
}

// A correspondence deadline's time left: "2 days 5 hours", "3 hours 20 minutes", "45 seconds".
// A player's name as shown: a guest who gave none is "Anonymous" on the server (as on
// lichess), said in the page's language.
export function shownName(p, t) {
  if (!p) return '';
  return !p.user && p.name === 'Anonymous' ? t('anonymous') : p.name;
}

export function leftText(ms, t) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  const parts = d ? [[d, 'days'], [h, 'hours']] : h ? [[h, 'hours'], [m, 'minutes']] : m ? [[m, 'minutes']] : [[s, 'seconds']];
  return parts.map(([n, u]) => t('unit_' + u, { n })).join(' ');
}

// Clock text: 4:59, 1:02:03, and tenths under ten seconds (0:09.5).
export function clockText(ms) {
  ms = Math.max(0, ms);
  if (ms < LOW_MS) return `0:0${Math.floor(ms / 1000)}.${Math.floor((ms % 1000) / 100)}`;
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  const ss = String(sec).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

const OVER = (status) => !['created', 'started'].includes(status);

export function startLive(ctx) {
  const { t, settings, toast } = ctx;
  const errText = ctx.errText || ((e) => e.message);
  const ask = ctx.ask || (async (q) => confirm(q));
  const id = decodeURIComponent(location.pathname.split('/')[2] || '');
  const token = new URLSearchParams(location.hash.slice(1)).get('seat');
  const L = {
    id, token, seat: null, full: null, st: null, moves: [], fens: [], legal: [], check: false,
    legalFor: -1, crowd: { red: false, black: false, watchers: 0 }, gone: null, flipped: false,
    selected: null, times: null, clockAt: 0, lowWarned: false, conn: 'connecting', backoff: 500,
    ctrl: null, lastData: 0, pending: false, error: null,
    opening: null, openingFor: null, // the opening of the position shown, and its moves
    view: null, // the ply shown when looking back (null: the position now)
    // One premove (lichess's rules): made while the opponent thinks, played as soon as their
    // move comes if it is legal then, dropped otherwise; a click anywhere cancels it.
    premove: null, preLegal: null, preLegalFor: -1,
    unseen: false, // the opponent moved while the tab was hidden
  };
  const invite = JSON.parse(sessionStorage.getItem('xiangqi.invite.' + id) || 'null');
  window.addEventListener('hashchange', () => location.reload());

  document.body.classList.add('live');
  $('live-side').classList.remove('hidden');
  document.querySelector('main .side').classList.add('hidden');

  // ---- the stream -------------------------------------------------------------------

  async function connect() {
    const ctrl = new AbortController();
    L.ctrl = ctrl;
    L.lastData = Date.now();
    try {
      const res = await fetch(`/api/board/game/stream/${encodeURIComponent(id)}`, {
        headers: token ? { Authorization: 'Bearer ' + token } : {}, signal: ctrl.signal, cache: 'no-store',
      });
      if (!res.ok) {
        const data = await res.json().catch(() => ({}));
        if (res.status === 404 || res.status === 403 || res.status === 401) {
          L.error = data.error || res.statusText; L.conn = 'closed'; renderAll(); return;
        }
        throw new Error(data.error || res.statusText);
      }
      L.conn = 'open';
      L.backoff = 500;
      renderAll();
      await readLines(res, onLine, () => { L.lastData = Date.now(); });
    } catch (e) {
      if (L.leaving) return;
    }
    if (L.leaving || L.ctrl !== ctrl) return;
    L.conn = 'lost';
    // Who is connected is unknown until the stream is back.
    L.crowd = { red: false, black: false, watchers: 0 };
    renderAll();
    const wait = L.backoff + Math.random() * 250;
    L.backoff = Math.min(L.backoff * 2, 8000);
    setTimeout(connect, wait);
  }
  // A stream that went silent (no keep-alive) is dropped and opened again.
  setInterval(() => {
    if (L.conn === 'open' && Date.now() - L.lastData > STALL_MS && L.ctrl) L.ctrl.abort();
  }, 1000);
  window.addEventListener('pagehide', () => { L.leaving = true; if (L.ctrl) L.ctrl.abort(); });

  const chat = startChat({ id, token, t, ask, toast, errText });
  // The seats this browser holds, for its "your games" list (mygames.js).
  if (token) {
    try {
      const seats = JSON.parse(localStorage.getItem('xiangqi.seats') || '{}');
      seats[id] = { token, color: seats[id] && seats[id].color };
      localStorage.setItem('xiangqi.seats', JSON.stringify(seats));
    } catch { /* storage off: no list */ }
  }

  function onLine(m) {
    if (chat.onLine(m)) return;
    if (m.type === 'gameFull') {
      L.full = m;
      if (m.seat) L.seat = m.seat;
      if (m.seat && token && !OVER(m.state.status)) {
        try {
          const seats = JSON.parse(localStorage.getItem('xiangqi.seats') || '{}');
          seats[id] = { token, color: m.seat };
          localStorage.setItem('xiangqi.seats', JSON.stringify(seats));
        } catch { /* storage off: no list */ }
      }
      applyState(m.state, true);
    } else if (m.type === 'gameState') {
      applyState(m, false);
    } else if (m.type === 'crowd') {
      L.crowd = m;
      renderAll();
    } else if (m.type === 'opponentGone') {
      L.gone = m.gone ? { at: Date.now() + (m.claimWinInSeconds || 0) * 1000 } : null;
      renderAll();
    } else if (m.type === 'rematch') {
      L.leaving = true;
      if (L.ctrl) L.ctrl.abort();
      location.replace(`/live/${encodeURIComponent(m.id)}` + (token ? `#seat=${token}` : ''));
    }
  }

  function startFen() { return L.full ? L.full.initialFen : ''; }
  function turnAt(ply) { return parseFen(L.fens[ply] || startFen()).turn; }
  function turnNow() { return turnAt(L.moves.length); }

  // The moves, clocks and offers of a state line; `whole`: the first line (no sounds).
  function applyState(st, whole) {
    const moves = st.moves ? st.moves.split(' ') : [];
    const before = L.moves;
    const extends_ = before.length <= moves.length && before.every((m, i) => m === moves[i]);
    if (!extends_ || !L.fens.length) { L.fens = [startFen()]; L.moves = []; L.premove = null; }
    const added = [];
    for (let i = L.moves.length; i < moves.length; i++) {
      const capture = parseFen(L.fens[i]).board.has(moves[i].slice(2, 4));
      L.fens.push(fenAfter(L.fens[i], moves[i]));
      added.push(capture);
    }
    L.moves = moves;
    if (added.length || !extends_) L.view = null; // a new move (or a takeback): show it
    L.st = st;
    L.times = st.rtime == null ? null : { red: st.rtime, black: st.btime };
    L.clockAt = performance.now();
    if (L.times && L.seat && L.times[L.seat] >= LOW_MS) L.lowWarned = false;
    if (added.length || L.moves.length !== L.legalFor) {
      L.selected = null;
      // A sound for a move just made (not for the first line, a move shown already, or a takeback).
      const last = extends_ && added.length && !whole && !L.optimistic ? added[added.length - 1] : null;
      positionInfo(last);
      if (last !== null && L.seat && turnNow() === L.seat && !OVER(st.status)) notifyTurn();
      // Every move played is said to screen readers (one's own when it is sent).
      if (last !== null && ctx.announce) ctx.announce(movesSaid(L.moves.length));
    }
    if (OVER(st.status)) L.premove = null;
    L.optimistic = false;
    // A rated game that ends: its players' new ratings.
    if (!whole && OVER(st.status) && L.full && L.full.rated && !L.rerated) {
      L.rerated = true;
      refreshFull();
    }
    renderAll();
  }

  async function refreshFull() {
    for (let i = 0; i < 10; i++) {
      try {
        const res = await fetch(`/api/board/game/${encodeURIComponent(id)}`, { cache: 'no-store' });
        const f = await res.json();
        if (res.ok && (f.red.ratingDiff != null || f.black.ratingDiff != null)) {
          L.full = { ...f, seat: L.seat };
          renderAll();
          return;
        }
      } catch { /* try again */ }
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  // The legal moves and check of the position now (from /api/position); plays the move's
  // sound when `capture` is not null.
  async function positionInfo(capture) {
    const n = L.moves.length;
    const fen = L.fens[n];
    L.legal = []; L.check = false; L.legalFor = -1;
    try {
      const p = await ctx.api('GET', '/api/position?fen=' + encodeURIComponent(fen));
      if (L.moves.length !== n) return;
      L.legal = p.legal; L.check = p.check; L.legalFor = n;
      if (capture !== null) play(p.check ? 'check' : capture ? 'capture' : 'move');
      if (playPremove()) return;
      renderAll();
    } catch (e) { if (capture !== null) play(capture ? 'capture' : 'move'); }
  }

  // ---- actions ----------------------------------------------------------------------

  // A seat's action (`move/h2e2`, `resign`, `draw/yes`, ...) with the seat's token.
  async function act(path) {
    try {
      const res = await fetch(`/api/board/game/${encodeURIComponent(id)}/${path}`, {
        method: 'POST', headers: { Authorization: 'Bearer ' + token },
      });
      if (!res.ok) {
        const data = await res.json().catch(() => ({}));
        throw new Error(data.error || res.statusText);
      }
      return true;
    } catch (e) {
      toast(errText(e));
      return false;
    }
  }

  function shownPly() { return L.view == null ? L.moves.length : Math.min(L.view, L.moves.length); }
  // Shows the position after `ply` moves (null or the last: the position now).
  function goTo(ply) {
    if (ply != null) ply = Math.max(0, Math.min(L.moves.length, ply));
    L.view = ply == null || ply === L.moves.length ? null : ply;
    L.selected = null;
    renderAll();
  }

  function myTurn() {
    return !!L.seat && !!L.st && !OVER(L.st.status) && turnNow() === L.seat && !L.pending;
  }

  // "Red: C2.5" for ply `ply` (from 1), in the page's language and notation.
  function movesSaid(ply) {
    const names = moveNames(L.fens[ply - 1], L.moves[ply - 1]);
    return t('said-move', { side: t(turnAt(ply - 1)), move: shownMove(names, settings.notation, settings.lang) });
  }

  async function sendMove(uci) {
    if (!myTurn() || !L.legal.includes(uci)) return false;
    // Shown at once; the server's line confirms it (or the game is read again).
    const capture = parseFen(L.fens[L.moves.length]).board.has(uci.slice(2, 4));
    const fen = fenAfter(L.fens[L.moves.length], uci);
    L.moves = [...L.moves, uci];
    L.fens = [...L.fens.slice(0, L.moves.length), fen];
    L.optimistic = true;
    L.pending = true;
    L.selected = null;
    L.legal = [];
    L.legalFor = -1;
    renderAll();
    if (ctx.announce) ctx.announce(movesSaid(L.moves.length));
    // The sound says check too: the position after the move tells (no wait for the server).
    ctx.api('GET', '/api/position?fen=' + encodeURIComponent(fen)).then(
      (p) => play(p.check ? 'check' : capture ? 'capture' : 'move'),
      () => play(capture ? 'capture' : 'move'));
    const ok = await act('move/' + uci);
    L.pending = false;
    if (!ok) {
      try {
        const g = await ctx.api('GET', `/api/board/game/${encodeURIComponent(id)}`);
        L.full = Object.assign(g, { seat: L.seat });
        applyState(g.state, true);
      } catch { /* the stream brings the state */ }
    } else {
      positionInfo(null);
    }
    renderAll();
    return true;
  }

  // ---- premoves ----------------------------------------------------------------------

  // Whether a premove may be made now: a player's, while the opponent is to move.
  function canPremove() {
    return !!L.seat && !!L.st && !OVER(L.st.status) && L.view == null && turnNow() !== L.seat;
  }

  // The moves the player's pieces could make if it were their turn in the position now (the
  // position with the side to move changed): the premove's destinations. `null` when the
  // server refuses that position (the opponent in check, say): any destination is allowed
  // then, and the move is checked when it is due.
  async function loadPreLegal() {
    const n = L.moves.length;
    if (L.preLegalFor === n) return;
    L.preLegalFor = n;
    L.preLegal = null;
    const parts = (L.fens[n] || startFen()).split(' ');
    parts[1] = L.seat === 'black' ? 'b' : 'w';
    try {
      const p = await ctx.api('GET', '/api/position?fen=' + encodeURIComponent(parts.join(' ')));
      if (L.preLegalFor === n) { L.preLegal = p.legal; render(); }
    } catch { /* any destination */ }
  }

  function setPremove(from, to) {
    L.selected = null;
    if (L.preLegalFor === L.moves.length && L.preLegal && !L.preLegal.includes(from + to)) { render(); return; }
    L.premove = { from, to };
    render();
  }

  function cancelPremove() {
    if (!L.premove) return false;
    L.premove = null;
    L.selected = null;
    render();
    return true;
  }

  // The premove, once the opponent's move has come and the legal moves are known: played if
  // it is one of them, dropped otherwise. True when it was played.
  function playPremove() {
    if (!L.premove || !myTurn() || L.legalFor !== L.moves.length) return false;
    const m = L.premove.from + L.premove.to;
    L.premove = null;
    if (!L.legal.includes(m)) return false;
    sendMove(m);
    return true;
  }

  // The opponent moved while this tab is hidden: the tab's title says so until it is seen,
  // and a notification, when the player allowed them (Settings).
  function notifyTurn() {
    if (!document.hidden) return;
    L.unseen = true;
    if (settings.notify && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
      try {
        const names = L.full ? `${shownName(L.full.red, t)} – ${shownName(L.full.black, t)}` : t('title');
        const n = new Notification(t('yourMove'), {
          body: `${liveLabel(L.moves.length)} · ${names}`, tag: 'xiangqi-live-' + id, silent: true,
        });
        n.onclick = () => { window.focus(); n.close(); };
      } catch { /* not allowed here */ }
    }
  }
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && L.unseen) { L.unseen = false; renderSide(); }
  });

  // ---- board input ------------------------------------------------------------------

  const svg = $('board');
  function flipped() { return (L.seat === 'black') !== L.flipped; }
  function xy(sq) { return xyOf(sq, flipped()); }
  function sqAt(evt) {
    const pt = svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    let f = Math.round((p.x - MARGIN) / CELL), rr = Math.round((p.y - MARGIN) / CELL);
    if (f < 0 || f > 8 || rr < 0 || rr > 9) return null;
    if (flipped()) f = 8 - f; else rr = 9 - rr;
    return sqName(f, rr);
  }
  function ownPiece(sq) {
    const ch = parseFen(L.fens[L.moves.length] || startFen()).board.get(sq);
    return !!ch && (ch === ch.toUpperCase() ? 'red' : 'black') === L.seat;
  }
  const drag = { sq: null, g: null, moved: false, start: null, pointer: null };
  svg.addEventListener('pointerdown', (evt) => {
    if (evt.button !== undefined && evt.button !== 0) return;
    const sq = sqAt(evt);
    if (sq) pick(sq, evt);
  });
  // A click on point `sq` (by the pointer `evt`, or by the keyboard: no `evt`, no drag).
  function pick(sq, evt) {
    if (!sq || !L.seat) return;
    // Looking back: a click on the board comes back to the position now.
    if (L.view != null) { goTo(null); return; }
    // A click cancels the premove (on one's own piece it also picks that piece).
    if (cancelPremove() && !ownPiece(sq)) return;
    if (L.selected && L.selected !== sq && !ownPiece(sq)) {
      const from = L.selected;
      L.selected = null;
      if (myTurn()) sendMove(from + sq).then((sent) => { if (!sent) render(); });
      else if (canPremove()) setPremove(from, sq);
      else render();
      return;
    }
    if (ownPiece(sq) && (myTurn() || canPremove())) {
      L.selected = sq;
      if (!myTurn()) loadPreLegal();
      render();
      const g = svg.querySelector(`#pieces [data-at="${sq}"]`);
      if (g && evt) {
        Object.assign(drag, { sq, g, moved: false, start: [evt.clientX, evt.clientY], pointer: evt.pointerId });
        g.parentNode.appendChild(g);
      }
    } else if (L.selected) {
      L.selected = null;
      render();
    }
  }
  // A right click cancels the premove too.
  svg.addEventListener('contextmenu', (evt) => { if (cancelPremove()) evt.preventDefault(); });
  window.addEventListener('pointermove', (evt) => {
    if (!drag.g || evt.pointerId !== drag.pointer) return;
    if (!drag.moved && Math.hypot(evt.clientX - drag.start[0], evt.clientY - drag.start[1]) < 6) return;
    drag.moved = true;
    const pt = svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    drag.g.setAttribute('transform', `translate(${p.x},${p.y}) scale(1.08)`);
    drag.g.classList.add('dragging');
  });
  window.addEventListener('pointerup', (evt) => {
    if (!drag.g || evt.pointerId !== drag.pointer) return;
    const from = drag.sq, moved = drag.moved;
    drag.g = null; drag.sq = null;
    if (!moved) return;
    const to = sqAt(evt);
    L.selected = null;
    if (!to || to === from) { render(); return; }
    if (!myTurn()) {
      if (canPremove() && !ownPiece(to)) setPremove(from, to); else render();
      return;
    }
    droppedMove(from + to);
    sendMove(from + to).then((sent) => { if (!sent) render(); });
  });

  // ---- drawing ----------------------------------------------------------------------

  function render() {
    svg.textContent = '';
    const fl = flipped();
    drawGrid(svg, fl, settings.notation, settings.coords);
    const n = shownPly();
    const fen = L.fens[n] || startFen();
    if (!fen) return;
    const { board, turn } = parseFen(fen);
    const hl = el('g', {}, svg);
    if (n > 0) {
      for (const sq of [L.moves[n - 1].slice(0, 2), L.moves[n - 1].slice(2, 4)]) {
        const [x, y] = xy(sq);
        markLast(hl, x, y);
      }
    }
    if (L.check && L.legalFor === n && n === L.moves.length) {
      const k = turn === 'red' ? 'K' : 'k';
      for (const [sq, ch] of board) if (ch === k) {
        const [x, y] = xy(sq);
        markCheck(hl, x, y);
      }
    }
    if (L.premove && n === L.moves.length) {
      for (const sq of [L.premove.from, L.premove.to]) {
        const [x, y] = xy(sq);
        el('rect', { x: x - 29, y: y - 29, width: 58, height: 58, rx: 8, class: 'hl-premove', 'data-premove': sq }, hl);
      }
    }
    const pieces = el('g', { id: 'pieces' }, svg);
    const set = settings.pieces;
    for (const [sq, ch] of board) {
      const [x, y] = xy(sq);
      pieceGroup(ch, x, y, pieces, set).dataset.at = sq;
    }
    // The piece of a move just shown slides there (this page plays the sounds itself).
    moveShown(
      { game: 'live:' + id, view: n, fen, fenBefore: n > 0 ? L.fens[n - 1] : null, move: n > 0 ? { uci: L.moves[n - 1] } : null },
      (sq) => pieces.querySelector(`[data-at="${sq}"]`), xy, { sound: false },
    );
    if (L.selected) {
      const [x, y] = xy(L.selected);
      el('circle', { cx: x, cy: y, r: 29, class: 'hl-sel' }, hl);
      const dests = myTurn() ? L.legal : L.preLegalFor === L.moves.length && L.preLegal ? L.preLegal : [];
      if (settings.hints) {
        for (const m of dests.filter((m) => m.startsWith(L.selected))) {
          const to = m.slice(2, 4);
          const [tx, ty] = xy(to);
          if (board.has(to)) el('circle', { cx: tx, cy: ty, r: 27, class: 'hint-cap' }, svg);
          else el('circle', { cx: tx, cy: ty, r: 8, class: 'hint' }, svg);
        }
      }
    }
    const hit = el('g', { id: 'hit' }, svg);
    for (let f = 0; f < 9; f++) for (let r = 0; r < 10; r++) {
      const sq = sqName(f, r);
      const [x, y] = xy(sq);
      el('rect', { x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, class: 'hit', 'data-sq': sq }, hit);
    }
    if (ctx.kb) ctx.kb.draw(xy);
  }

  function node(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  // Time left of `side` now: the server's value, less the time since it came while that
  // side's clock runs.
  function running() {
    const st = L.st;
    return !!(L.times && st && st.status === 'started' && L.moves.length >= 2) ? turnNow() : null;
  }
  function timeLeft(side) {
    if (!L.times) return null;
    let ms = L.times[side];
    if (running() === side) ms -= performance.now() - L.clockAt;
    return Math.max(0, ms);
  }

  function renderBars() {
    const top = $('bar-top'), bottom = $('bar-bottom');
    const bottomSide = flipped() ? 'black' : 'red';
    for (const [bar, side] of [[bottom, bottomSide], [top, bottomSide === 'red' ? 'black' : 'red']]) {
      bar.textContent = '';
      const who = node('span', 'who');
      const dot = node('span', 'dot ' + side);
      const p = L.full ? L.full[side] : null;
      const name = node('span', 'name');
      name.dataset.testid = 'name-' + side;
      // A bot account's title goes before its name, as lichess shows it.
      if (p && p.title === 'BOT') {
        const b = node('span', 'title', t('bot-title'));
        b.dataset.testid = 'title-' + side;
        name.append(b, ' ');
      }
      if (p && p.user) {
        const a = document.createElement('a');
        a.href = '/@/' + encodeURIComponent(p.user);
        a.textContent = p.name;
        name.append(a);
      } else name.textContent = p ? shownName(p, t) : t(side);
      // The rating and its change go beside the name (which a long name cuts short).
      const extra = [];
      if (p && p.rating != null) {
        const r = node('span', 'rating', `${p.rating}${p.provisional ? '?' : ''}`);
        r.dataset.testid = 'rating-' + side;
        if (p.provisional) r.title = t('provisional');
        extra.push(r);
      }
      if (p && p.ratingDiff != null) {
        const d = node('span', 'diff ' + (p.ratingDiff >= 0 ? 'up' : 'down'), (p.ratingDiff >= 0 ? '+' : '') + p.ratingDiff);
        d.dataset.testid = 'rating-diff-' + side;
        extra.push(d);
      }
      const on = !!L.crowd[side];
      const conn = node('span', 'conn ' + (on ? 'on' : 'off'));
      conn.dataset.testid = 'conn-' + side;
      conn.title = on ? t('connected') : t('disconnected');
      conn.textContent = on ? t('connected') : t('disconnected');
      who.append(dot, name, ...extra);
      if (L.seat === side) who.append(node('span', 'you', '(' + t('you') + ')'));
      who.append(conn);
      bar.append(who);
      if (L.times) {
        const c = node('span', 'clock');
        c.dataset.testid = 'clock-' + side;
        c.dataset.side = side;
        bar.append(c);
      } else if (L.st && !OVER(L.st.status) && turnNow() === side) {
        bar.append(node('span', 'turn', side === 'red' ? t('redToMove') : t('blackToMove')));
        if (L.st.deadline) {
          const c = node('span', 'deadline');
          c.dataset.testid = 'deadline-' + side;
          bar.append(c);
        }
      }
      if (L.full && L.full.daysPerTurn && side === 'black') {
        bar.append(node('span', 'meta', t('daysPerMove', { n: L.full.daysPerTurn })));
      }
    }
    tickClocks();
  }

  function tickClocks() {
    for (const c of document.querySelectorAll('.player-bar .deadline')) {
      const text = t('timeLeft', { t: leftText(L.st.deadline - Date.now(), t) });
      if (c.textContent !== text) c.textContent = text;
    }
    const run = running();
    for (const c of document.querySelectorAll('.player-bar .clock')) {
      const side = c.dataset.side;
      const ms = timeLeft(side);
      const text = clockText(ms);
      if (c.textContent !== text) c.textContent = text;
      c.classList.toggle('running', run === side);
      c.classList.toggle('low', ms < LOW_MS);
    }
    if (run && run === L.seat && !L.lowWarned && timeLeft(run) < LOW_MS) {
      L.lowWarned = true;
      play('lowTime');
    }
  }
  setInterval(tickClocks, 100);

  function resultHead(st) {
    if (st.status === 'aborted') return t('aborted');
    return st.winner === 'red' ? t('redWins') : st.winner === 'black' ? t('blackWins') : t('drawn');
  }

  // The ply `ply` (from 1) as the move list numbers it: "1. C2.5", "2… H8+7".
  function liveLabel(ply) {
    const startBlack = parseFen(startFen() || 'x w').turn === 'black';
    const idx = ply - 1 + (startBlack ? 1 : 0);
    const names = moveNames(L.fens[ply - 1], L.moves[ply - 1]);
    return `${Math.floor(idx / 2) + 1}${idx % 2 ? '…' : '.'} ${shownMove(names, settings.notation, settings.lang)}`;
  }

  function renderSide() {
    const st = L.st;
    const over = st && OVER(st.status);
    const player = !!L.seat;
    const opp = L.seat === 'red' ? 'black' : 'red';
    // status
    const status = $('live-status');
    status.textContent = '';
    if (L.error) status.append(node('span', 'error', errText({ message: L.error })));
    else if (!st) status.append(t('connecting'));
    else if (over) status.append(resultHead(st));
    else {
      let s = turnNow() === 'red' ? t('redToMove') : t('blackToMove');
      if (player && turnNow() === L.seat) s = t('yourMove');
      if (L.check) s += ' · ' + t('check');
      status.append(s);
    }
    const sub = node('span', 'sub');
    sub.dataset.testid = 'connection';
    sub.textContent = L.conn === 'open' ? (player ? t('youPlayAs', { side: t(L.seat || 'red') }) : t('spectating'))
      : L.conn === 'lost' ? t('reconnecting') : L.conn === 'closed' ? '' : t('connecting');
    if (L.full && L.full.clock) sub.textContent += ' · ' + tcText(L.full.clock.initial / 1000, L.full.clock.increment / 1000, t);
    if (L.full && L.full.daysPerTurn) sub.textContent += ' · ' + tcText(null, 0, t, L.full.daysPerTurn);
    let kind = null;
    if (L.full) {
      kind = node('span', 'sub', L.full.rated ? t('rated') : t('casual'));
      kind.dataset.testid = 'game-kind';
    }
    status.append(sub);
    if (kind) status.append(kind);
    if (L.view != null) {
      // Numbered as the move list numbers moves ("2… H8+7"), as the main page says it.
      const last = L.moves.length ? liveLabel(L.moves.length) : t('startPosition');
      const v = node('span', 'sub viewing', L.view === 0 ? t('viewingStart', { last }) : t('viewingMove', { move: liveLabel(L.view), last }));
      v.dataset.testid = 'viewing';
      status.append(v);
    }
    // The opening of the position shown: asked of the explorer's API for the moves up to it
    // (the first 40 at most: no named position is deeper), once per line.
    const upTo = L.moves.slice(0, Math.min(shownPly(), 40)).join(',');
    if (L.openingFor !== upTo && startFen()) {
      L.openingFor = upTo;
      ctx.api('GET', `/api/explorer/masters?fen=${encodeURIComponent(startFen())}&play=${upTo}&moves=0&topGames=0`)
        .then((a) => { if (L.openingFor === upTo) { L.opening = a.opening; renderSide(); } })
        .catch(() => { if (L.openingFor === upTo) L.opening = null; }); // (not asked again for this line)
    }
    if (L.opening && L.openingFor === upTo) {
      const o = node('span', 'sub opening', t('opening', { name: openingName(L.opening, settings.lang) }));
      o.dataset.testid = 'opening';
      status.append(o);
    }
    // the tab's title: whose move, or the result, and the players
    const names = L.full ? `${shownName(L.full.red, t)} – ${shownName(L.full.black, t)}` : t('title');
    const head = !st ? t('connecting') : over ? resultHead(st)
      : player && turnNow() === L.seat ? t('yourMove') : turnNow() === 'red' ? t('redToMove') : t('blackToMove');
    document.title = `${L.unseen ? '● ' : ''}${head} · ${names}`;
    // watchers
    $('live-watchers').textContent = t('watching', { n: L.crowd.watchers || 0 });
    $('live-watchers').dataset.count = L.crowd.watchers || 0;
    // invite links (the creator's page, until the opponent has come)
    const showInvite = invite && st && !over && L.moves.length === 0 && !L.crowd[opp];
    $('invite').classList.toggle('hidden', !showInvite);
    if (invite) { $('invite-link').value = invite.invite; $('watch-link').value = invite.watch; }
    // result
    const res = $('live-result');
    res.classList.toggle('hidden', !over);
    res.textContent = '';
    if (over) {
      res.append(node('strong', null, resultHead(st)));
      const text = rulingText(st);
      if (text) res.append(node('span', 'account', text));
    }
    // the opponent's offer, as a prompt; one's own, as a note
    const prompt = $('live-prompt');
    let ask = null;
    if (player && st) {
      if (st.drawOffer === opp && !over) ask = ['draw', t('oppOffersDraw')];
      else if (st.takebackOffer === opp && !over) ask = ['takeback', t('oppAsksTakeback')];
      else if (st.rematchOffer === opp && over) ask = ['rematch', t('oppWantsRematch')];
    }
    prompt.classList.toggle('hidden', !ask);
    if (ask) { prompt.dataset.kind = ask[0]; $('live-prompt-text').textContent = ask[1]; }
    const note = $('live-note');
    let mine = null;
    if (player && st) {
      if (st.drawOffer === L.seat && !over) mine = ['draw', t('youOfferedDraw')];
      else if (st.takebackOffer === L.seat && !over) mine = ['takeback', t('youAskedTakeback')];
      else if (st.rematchOffer === L.seat && over) mine = ['rematch', t('youAskedRematch')];
    }
    note.classList.toggle('hidden', !mine);
    if (mine) { note.dataset.kind = mine[0]; $('live-note-text').textContent = mine[1]; }
    // the opponent gone: claims
    const gone = $('live-gone');
    // (Before each side's first move the server aborts a game whose player stays away.)
    const goneNow = player && st && !over && L.gone && L.moves.length >= 2;
    gone.classList.toggle('hidden', !goneNow);
    const canClaim = goneNow && Date.now() >= L.gone.at;
    if (goneNow) {
      $('live-gone-text').textContent = canClaim ? t('oppGoneClaim')
        : t('oppGoneWait', { n: Math.ceil((L.gone.at - Date.now()) / 1000) });
    }
    $('live-claim-win').classList.toggle('hidden', !canClaim);
    $('live-claim-draw').classList.toggle('hidden', !canClaim);
    // buttons
    $('live-actions').classList.toggle('hidden', !player);
    const mineMoves = L.moves.filter((_, i) => turnAt(i) === L.seat).length;
    $('live-resign').classList.toggle('hidden', !st || over || L.moves.length < 2);
    $('live-abort').classList.toggle('hidden', !st || over || L.moves.length >= 2);
    $('live-draw').classList.toggle('hidden', !st || over);
    $('live-draw').disabled = !!(st && st.drawOffer);
    $('live-takeback').classList.toggle('hidden', !st || over);
    $('live-takeback').disabled = !!(st && st.takebackOffer) || mineMoves === 0;
    $('live-rematch').classList.toggle('hidden', !over);
    $('live-new-opponent').classList.toggle('hidden', !over || !ctx.newOpponent);
    $('live-back').classList.toggle('hidden', L.view == null);
    $('live-review').classList.toggle('hidden', !over || !L.moves.length);
    $('live-rematch').disabled = !!(st && st.rematchOffer === L.seat);
    $('live-sound').textContent = settings.sound ? t('soundOn') : t('soundOff');
    $('live-sound').setAttribute('aria-pressed', settings.sound ? 'true' : 'false');
    // moves
    const list = $('live-moves');
    list.textContent = '';
    if (!L.moves.length) {
      const li = node('li');
      li.style.display = 'block';
      li.append(node('span', 'empty', t('noMoves')));
      list.append(li);
    }
    const startBlack = parseFen(startFen() || 'x w').turn === 'black';
    let li = null;
    L.moves.forEach((m, i) => {
      const idx = i + (startBlack ? 1 : 0);
      if (idx % 2 === 0 || li === null) {
        li = node('li');
        li.append(node('span', 'num', (Math.floor(idx / 2) + 1) + '.'));
        if (idx % 2 === 1) li.append(node('span'));
        list.append(li);
      }
      const names = moveNames(L.fens[i], m);
      const s = node('span', 'mv' + (i === shownPly() - 1 ? ' current' : ''), shownMove(names, settings.notation, settings.lang));
      s.addEventListener('click', () => goTo(i + 1));
      s.dataset.ply = i + 1;
      s.dataset.uci = m;
      li.append(s);
    });
    const cur = list.querySelector('.current');
    if (L.view != null && cur) cur.scrollIntoView({ block: 'nearest' }); else list.scrollTop = list.scrollHeight;
  }

  function renderAll() {
    render();
    renderBars();
    renderSide();
    chat.setState(L.seat, !!(L.st && OVER(L.st.status)));
  }
  setInterval(() => { if (L.gone) renderSide(); }, 1000);

  // The game as PGN, its moves in `notation` (iccs, wxf or chinese: as the move list names
  // them), with its players, date, result and start position.
  // `ended`: with the result (the review's import leaves it open: '*').
  function livePgn(notation, ended = true) {
    const fen = startFen();
    const black = parseFen(fen).turn === 'black';
    const no = +(fen.split(' ')[5] || 1);
    const name = (side) => (L.full && L.full[side] && shownName(L.full[side], t)) || '?';
    const esc = (v) => String(v).replace(/[\\"]/g, '');
    const st = L.st;
    const result = !ended || !st || !OVER(st.status) || st.status === 'aborted' ? '*'
      : st.winner === 'red' ? '1-0' : st.winner === 'black' ? '0-1' : '1/2-1/2';
    const date = new Date().toISOString().slice(0, 10).replace(/-/g, '.');
    const format = { iccs: 'ICCS', wxf: 'WXF', chinese: 'Chinese' }[notation] || 'ICCS';
    let text = `[Event "Online game ${esc(L.id)}"]\n[Site "${esc(location.origin)}/live/${esc(L.id)}"]\n[Date "${date}"]\n`
      + `[Red "${esc(name('red'))}"]\n[Black "${esc(name('black'))}"]\n[Result "${result}"]\n[FEN "${fen}"]\n[Format "${format}"]\n\n`;
    L.moves.forEach((m, i) => {
      const idx = i + (black ? 1 : 0);
      if (idx % 2 === 0) text += `${no + idx / 2}. `;
      else if (i === 0) text += `${no}... `;
      const names = moveNames(L.fens[i], m);
      text += (notation === 'iccs' ? m : names[notation] || m) + ' ';
    });
    return text + result + '\n';
  }

  // ---- wiring -----------------------------------------------------------------------

  $('live-resign').addEventListener('click', async () => { if (await ask(t('confirmResign'), t('resign'))) act('resign'); });
  $('live-abort').addEventListener('click', async () => { if (await ask(t('confirmAbort'), t('abort'))) act('abort'); });
  // A new opponent: a seek in the lobby with this game's time control (and rating).
  $('live-new-opponent').addEventListener('click', () => {
    const c = L.full && L.full.clock;
    ctx.newOpponent({ clock: c ? { limit: c.initial / 1000, increment: c.increment / 1000 } : null, rated: !!(L.full && L.full.rated) });
  });
  $('live-copy-link').addEventListener('click', () => ctx.copy(`${location.origin}/live/${encodeURIComponent(id)}`));
  $('live-copy-fen').addEventListener('click', () => ctx.copy(L.fens[shownPly()] || startFen()));
  $('live-download-pgn').addEventListener('click', () => {
    download(new Blob([livePgn(settings.notation)], { type: 'application/x-chess-pgn' }), `xiangqi-live-${id}.pgn`);
  });
  $('live-download-png').addEventListener('click', async () => {
    try { download(await boardPng(svg), `xiangqi-live-${id}-${shownPly()}.png`); } catch (e) { toast(errText(e)); }
  });
  $('live-download-gif').addEventListener('click', async () => {
    const positions = L.fens.map((fen, i) => ({ fen, last: i > 0 ? L.moves[i - 1] : null }));
    try {
      const opts = { flipped: flipped(), notation: settings.notation, set: settings.pieces, coords: settings.coords };
      const { gameGif } = await import('/gif.js');
      download(await gameGif(positions.length ? positions : [{ fen: startFen() }], opts), `xiangqi-live-${id}.gif`);
    } catch (e) { toast(errText(e)); }
  });
  $('live-draw').addEventListener('click', () => act('draw/yes'));
  $('live-takeback').addEventListener('click', () => act('takeback/yes'));
  $('live-rematch').addEventListener('click', () => act('rematch/yes'));
  // Review of an ended game: it is imported as an analysis game (its moves from its start) and
  // opened on the main page, where the review starts (review.js).
  $('live-review').addEventListener('click', async () => {
    // Imported once: a second click opens the same game (while it is still stored).
    const key = 'xiangqi.reviewed.' + L.id + '.' + L.moves.length;
    const known = localStorage.getItem(key);
    if (known) {
      try { await ctx.api('GET', '/api/games/' + known); location.href = '/?game=' + known + '&review=1'; return; } catch { /* deleted */ }
    }
    const text = livePgn('iccs', false);
    try {
      const r = await ctx.api('POST', '/api/import', text, true);
      localStorage.setItem(key, r.games[0].id);
      location.href = '/?game=' + r.games[0].id + '&review=1';
    } catch (e) { toast(e.message); }
  });
  $('live-claim-win').addEventListener('click', () => act('claim-victory'));
  $('live-claim-draw').addEventListener('click', () => act('claim-draw'));
  $('prompt-yes').addEventListener('click', () => act($('live-prompt').dataset.kind + '/yes'));
  $('prompt-no').addEventListener('click', () => act($('live-prompt').dataset.kind + '/no'));
  $('note-cancel').addEventListener('click', () => act($('live-note').dataset.kind + '/no'));
  $('live-flip').addEventListener('click', () => { L.flipped = !L.flipped; renderAll(); });
  $('live-back').addEventListener('click', () => goTo(null));
  $('live-sound').addEventListener('click', () => {
    settings.sound = !settings.sound;
    ctx.saveSettings();
    renderSide();
  });
  $('invite-copy').addEventListener('click', () => ctx.copy($('invite-link').value));
  $('watch-copy').addEventListener('click', () => ctx.copy($('watch-link').value));

  renderAll();
  connect();
  return {
    render: renderAll,
    pick: (sq) => pick(sq, null),
    flippedNow: flipped,
    fenShown: () => L.fens[shownPly()] || startFen(),
    flip() { L.flipped = !L.flipped; renderAll(); },
    goTo,
    step(d) { goTo(shownPly() + d); },
  };
}
