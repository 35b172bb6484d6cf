// Xiangqi browser app. Plain JavaScript (native ES modules), no build step. The server does
// all rules work: this file shows the board (drawn by board.js), sends moves to the JSON API
// and shows what it answers. A live game's page (/live/{id}) is online.js's, the lobby dialog
// lobby.js's; this file starts them and lends them its texts and settings.
import {
  SVGNS, CELL, MARGIN, el, sqName, parseFen, boardToFen, xyOf, drawGrid as drawGridOf,
  pieceGroup as pieceOf, fenAfter, boardPng, download, markLast, markCheck,
} from '/board.js';
import { messageText } from '/messages.js';
import { shownMove } from '/notation.js';
import { loadLang, t as tr, has, translatePage, langButton, rulingText as rulingOf } from '/i18n.js';
import { startLive, TIME_CONTROLS, clockFields, tcText } from '/online.js';
import { setupLobby } from '/lobby.js';
import { setupMyGames } from '/mygames.js';
import { soundSwitch } from '/sound.js';
import { setupReview } from '/review.js';
import {
  setupMoveList, wireMoveList, renderMoveList, renderTags, viewChanged,
} from '/movelist.js';
import { settings, saveSettings, setupSettingsDialog } from '/settings.js';
import { moveShown, droppedMove } from '/motion.js';
import { whoami, csrfHeaders, adoptAccountLang, rememberLang } from '/account.js';
import { keyboardBoard, announce } from '/keyboard.js';
import { setupExplorer, openingAt, openingName } from '/explorer.js';
import { setupTablebase } from '/tablebase.js';

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------
// Text: every string is a message of the catalogue (i18n.js, /locales/*.ftl); the chosen
// language's is loaded before anything is drawn.

await loadLang(settings.lang);

soundSwitch(() => settings.sound);
// The live game's page, when this is one (/live/{id}): it draws the board itself.
let LIVE = null;
// The lobby dialog (lobby.js): the live page's "New opponent" makes a seek there.
let LOBBY = null;
// The board by keyboard (keyboard.js), on both pages.
let KB = null;
// The opening explorer's panel (explorer.js), on the main page.
let EXPLORER = null;
// The endgame tablebase's panel (tablebase.js), in analysis and review.
let TABLEBASE = null;
// Game review (review.js), on the main page.
let REVIEW = null;
const t = tr;
function reasonText(r) { return has('reason-' + r) ? t('reason-' + r) : r; }
// A server's message (or an error's) shortened, made safe to show and in the UI's language.
function errText(e) { return messageText(e && e.message !== undefined ? e.message : e); }
// "Red wins — Checkmate"; a draw says its reason once ("Draw by agreement").
function outcomeText(winner, reason) {
  if (winner === 'red' || winner === 'red-wins') return t('redWins') + ' — ' + reasonText(reason);
  if (winner === 'black' || winner === 'black-wins') return t('blackWins') + ' — ' + reasonText(reason);
  return has('drawReason-' + reason) ? t('drawReason-' + reason) : t('drawn') + ' — ' + reasonText(reason);
}
function applyLanguage() {
  document.documentElement.lang = settings.lang;
  document.querySelectorAll('option[data-tc]').forEach((o) => {
    const tc = TIME_CONTROLS.find((c) => c.v === o.dataset.tc);
    o.textContent = tcText(tc.limit ?? null, tc.increment, t, tc.days);
  });
  translatePage(document);
  langButton($('btn-lang'), settings);
  document.title = t('title');
}

// ---------------------------------------------------------------------------------------
// Talking to the server

async function api(method, path, body, raw) {
  // A change made while logged in carries the session's CSRF token.
  const opt = { method, headers: method === 'GET' ? {} : await csrfHeaders() };
  if (body !== undefined) {
    if (raw) { opt.body = body; } else { opt.body = JSON.stringify(body); opt.headers['Content-Type'] = 'application/json'; }
  }
  const res = await fetch(path, opt);
  const type = res.headers.get('content-type') || '';
  const data = type.includes('json') ? await res.json() : await res.text();
  if (!res.ok) {
    const err = new Error((data && data.error) || res.statusText);
    err.status = res.status; err.data = data;
    throw err;
  }
  return data;
}

// An in-page question (no native confirm()): resolves true for `yes`, false for `no`, Escape
// or a click outside.
function ask(text, yes, no) {
  const dlg = $('dlg-confirm');
  if (dlg.open) return Promise.resolve(false); // one question at a time (a double click)
  $('confirm-text').textContent = text;
  $('confirm-yes').textContent = yes || t('ok');
  $('confirm-no').textContent = no || t('cancel');
  dlg.returnValue = '';
  return new Promise((resolve) => {
    dlg.addEventListener('close', () => resolve(dlg.returnValue === 'yes'), { once: true });
    dlg.showModal();
    $('confirm-no').focus();
  });
}

function toast(msg, ms = 3500) {
  const el = $('toast');
  el.textContent = msg;
  el.classList.remove('hidden');
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.classList.add('hidden'), ms);
}

// ---------------------------------------------------------------------------------------
// State

const S = {
  game: null,        // the game as the server sent it
  view: 0,           // the ply shown
  flipped: false,
  selected: null,    // selected square name
  busy: false,       // waiting for the computer
  editor: null,      // { board: Map sq->char, turn, pick }
  analysis: { on: false, ws: null, id: 0, lines: [], running: false },
  shownOver: null,
  preview: null,     // an engine line's position shown: { fen, last, label }
  missing: null,     // the id of a game asked for that does not exist
};

function fenAt(ply) { return ply === 0 ? S.game.start_fen : S.game.moves[ply - 1].fen; }
function atEnd() { return S.game && S.view === S.game.moves.length; }
// Whether the position shown may be played from on an analysis board: any position before
// the end (a new move there starts a variation), or the end if the game is not over.
function analysable() {
  const g = S.game;
  return !!g && g.mode === 'analysis' && !S.busy && (!g.outcome || !atEnd());
}
function humanTurn() {
  const g = S.game;
  if (!g || g.outcome || S.busy) return false;
  if (g.mode === 'computer') return g.turn === g.human;
  return true;
}

// ---------------------------------------------------------------------------------------
// Drawing the board (board.js draws; these give it the flip and the piece style)

function xy(sq) { return xyOf(sq, S.flipped); }
function drawGrid(svg) { drawGridOf(svg, S.flipped, settings.notation, settings.coords); }
function pieceGroup(ch, x, y, parent) { return pieceOf(ch, x, y, parent, settings.pieces); }

function render() {
  if (LIVE) { LIVE.render(); return; }
  const svg = $('board');
  svg.textContent = '';
  drawGrid(svg);
  const editing = !!S.editor;
  let board, lastMove = null, check = false, turn = 'red';
  if (editing) {
    board = S.editor.board;
  } else if (S.game && S.preview) {
    // A position of an engine line (clicked in the analysis panel).
    board = parseFen(S.preview.fen).board;
    lastMove = { uci: S.preview.last };
  } else if (S.game) {
    const p = parseFen(fenAt(S.view));
    board = p.board; turn = p.turn;
    if (S.view > 0) lastMove = S.game.moves[S.view - 1];
    check = S.view === S.game.moves.length ? S.game.check : (S.view > 0 && lastMove.check);
  } else {
    board = new Map();
  }
  const hl = el('g', {}, svg);
  if (lastMove) {
    for (const sq of [lastMove.uci.slice(0, 2), lastMove.uci.slice(2, 4)]) {
      const [x, y] = xy(sq);
      markLast(hl, x, y);
    }
  }
  if (check) {
    const k = turn === 'red' ? 'K' : 'k';
    for (const [sq, ch] of board) if (ch === k) {
      const [x, y] = xy(sq);
      markCheck(hl, x, y);
    }
  }
  const pieces = el('g', { id: 'pieces' }, svg);
  for (const [sq, ch] of board) {
    const [x, y] = xy(sq);
    const g = pieceGroup(ch, x, y, pieces);
    g.dataset.at = sq;
  }
  if (S.selected && !editing) {
    const [x, y] = xy(S.selected);
    el('circle', { cx: x, cy: y, r: 29, class: 'hl-sel' }, hl);
    if (settings.hints) {
      for (const m of legalFrom(S.selected)) {
        const to = m.slice(2, 4);
        const [tx, ty] = xy(to);
        if (board.has(to)) el('circle', { cx: tx, cy: ty, r: 27, class: 'hint-cap' }, svg);
        else el('circle', { cx: tx, cy: ty, r: 8, class: 'hint' }, svg);
      }
    }
  }
  if (S.analysis.on && !editing && !S.preview) drawArrows(svg);
  if (!editing && S.game && !S.preview) {
    moveShown(
      { game: S.game.id ?? 'unsaved', view: S.view, fen: fenAt(S.view), fenBefore: S.view > 0 ? fenAt(S.view - 1) : null, move: lastMove },
      (sq) => pieces.querySelector(`[data-at="${sq}"]`), xy,
    );
  }
  if (REVIEW && !editing && S.game) REVIEW.drawArrow(svg);
  // the hit layer, on top: one transparent square per point
  const hit = el('g', { id: 'hit' }, svg);
  for (let f = 0; f < 9; f++) for (let r = 0; r < 10; r++) {
    const sq = sqName(f, r);
    const [x, y] = xy(sq);
    el('rect', { x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, class: 'hit', 'data-sq': sq }, hit);
  }
  if (KB) KB.draw(xy);
  announceLast();
  renderBars();
}

// A move just played (by either side, at the end of the game) is said to screen readers.
function announceLast() {
  const g = S.game;
  if (!g || S.editor || S.preview) { S.announced = null; return; }
  const key = `${g.id}:${g.moves.length}`;
  const was = S.announced;
  S.announced = key;
  if (!was || was.split(':')[0] !== String(g.id) || +was.split(':')[1] + 1 !== g.moves.length || S.view !== g.moves.length) return;
  announce(moveSaid(g.moves[g.moves.length - 1], parseFen(g.fen).turn === 'red' ? 'black' : 'red'));
}
// "Red: C2.5" (and "Check!"), in the page's language and notation.
function moveSaid(m, side) {
  const name = shownMove(m, settings.notation, settings.lang);
  return t('said-move', { side: t(side), move: name }) + (m.check ? ' · ' + t('check') : '');
}

function drawArrows(svg) {
  const lines = S.analysis.lines;
  const g = el('g', {}, svg);
  lines.slice().reverse().forEach((line) => {
    if (!line || !line.pv || !line.pv.length) return;
    const m = line.pv[0];
    const [x1, y1] = xy(m.slice(0, 2)), [x2, y2] = xy(m.slice(2, 4));
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const ex = x2 - ((x2 - x1) / len) * 14, ey = y2 - ((y2 - y1) / len) * 14;
    el('line', { x1, y1, x2: ex, y2: ey, class: 'arrow' + (line.multipv > 1 ? ' second' : ''), 'marker-end': 'url(#ah)' }, g);
  });
}

function legalFrom(sq) {
  if (!S.game || !atEnd() || !humanTurn()) return [];
  return S.game.legal.filter((m) => m.startsWith(sq));
}

function renderBars() {
  const g = S.game;
  const top = $('bar-top'), bottom = $('bar-bottom');
  const bottomSide = S.flipped ? 'black' : 'red', topSide = S.flipped ? 'red' : 'black';
  const label = (side) => {
    if (!g || S.editor) return t(side);
    const tags = g.tags || {};
    let who = side === 'red' ? tags.Red : tags.Black;
    if (g.mode === 'computer') who = g.human === side ? t('you') : `${t('computer')} (${t('levelN', { n: g.level })})`;
    return who ? `${t(side)} · ${who}` : t(side);
  };
  for (const [bar, side] of [[top, topSide], [bottom, bottomSide]]) {
    // The side to move in the position shown (an earlier one of a finished game too).
    const shown = S.preview ? S.preview.fen : g ? fenAt(S.view) : null;
    const turn = g && (!g.outcome || !atEnd() || S.preview) && parseFen(shown).turn === side;
    bar.innerHTML = '';
    const who = document.createElement('span');
    who.className = 'who';
    who.innerHTML = `<span class="dot ${side}"></span>`;
    who.append(label(side));
    bar.append(who);
    if (turn && !S.editor) {
      const b = document.createElement('span');
      b.className = 'turn';
      b.textContent = S.busy && g.mode === 'computer' && g.human !== side ? t('thinking') : (side === 'red' ? t('redToMove') : t('blackToMove'));
      bar.append(b);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Side panel

// The numbering of a game's moves as the move list shows it: the number of its first move
// and whether Black plays it.
function numbering(g) {
  return { startBlack: parseFen(g.start_fen).turn === 'black', startNo: +(g.start_fen.split(' ')[5] || 1) };
}
// The ply `ply` (from 1) as the move list numbers it: "3. C2.5" (Red) or "3… H8+7" (Black).
function moveLabel(g, ply) {
  const { startBlack, startNo } = numbering(g);
  const idx = ply - 1 + (startBlack ? 1 : 0);
  const m = g.moves[ply - 1];
  return `${startNo + Math.floor(idx / 2)}${idx % 2 ? '…' : '.'} ${shownMove(m, settings.notation, settings.lang)}`;
}
// How many numbered moves (rows of the move list) `plies` plies from `startBlack` make.
function moveCount(plies, startBlack) { return Math.ceil((plies + (startBlack ? 1 : 0)) / 2); }
function movesText(n) { return t('movesN', { n }); }

// The buttons that act on a game: disabled while none is open.
const GAME_CONTROLS = ['btn-takeback', 'btn-draw', 'btn-resign', 'btn-analyse', 'btn-share', 'nav-first', 'nav-prev', 'nav-next', 'nav-last', 'move-input', 'move-play'];

function renderStatus() {
  const st = $('status');
  const g = S.game;
  st.textContent = '';
  if (!g) {
    for (const id of GAME_CONTROLS) $(id).disabled = true;
    const head = document.createElement('span');
    if (S.linkError) {
      head.className = 'error'; head.id = 'link-error';
      head.textContent = `${t('badLink')}: ${S.linkError}`;
    } else {
      head.id = 'no-game-text';
      head.textContent = S.missing != null ? t('noSuchGame', { id: S.missing }) : t('noGame');
    }
    st.append(head);
    // What to do instead: start a game or open one.
    const p = document.createElement('span');
    p.className = 'sub no-game'; p.id = 'no-game';
    const hint = document.createElement('span'); hint.textContent = t('startOrOpen');
    const bNew = document.createElement('button'); bNew.id = 'no-game-new'; bNew.className = 'primary'; bNew.textContent = t('new');
    bNew.addEventListener('click', () => $('btn-new').click());
    const bOpen = document.createElement('button'); bOpen.id = 'no-game-open'; bOpen.textContent = t('games');
    bOpen.addEventListener('click', showGames);
    p.append(hint, ' ', bNew, ' ', bOpen);
    st.append(p);
    return;
  }
  for (const id of GAME_CONTROLS) $(id).disabled = false;
  // The status follows the position on the board, not the game's end, while browsing.
  const end = atEnd();
  const shownTurn = parseFen(fenAt(S.view)).turn;
  const shownCheck = end ? g.check : S.view > 0 && g.moves[S.view - 1].check;
  let main, sub = '';
  if (g.outcome && end) {
    main = outcomeText(g.outcome.winner, g.outcome.reason);
  } else if (S.busy && end) {
    main = t('thinking');
  } else {
    main = shownTurn === 'red' ? t('redToMove') : t('blackToMove');
    if (g.mode === 'computer' && end && g.turn === g.human) main = t('yourMove');
    if (shownCheck) main += ' · ' + t('check');
  }
  const last = g.moves.length ? moveLabel(g, g.moves.length) : t('startPosition');
  if (S.preview) sub = t('previewLine', { move: S.preview.label });
  else if (!end) sub = S.view === 0 ? t('viewingStart', { last }) : t('viewingMove', { move: moveLabel(g, S.view), last });
  else if (g.id == null) sub = t('unsaved');
  else sub = `#${g.id} · ${g.mode === 'computer' ? t('modeComputer') + ', ' + t('levelN', { n: g.level }) : g.mode === 'two-player' ? t('modeTwo') : t('modeAnalysis')}`;
  const m1 = document.createElement('span');
  m1.id = 'status-main';
  m1.textContent = main;
  st.append(m1);
  const s2 = document.createElement('span');
  s2.className = 'sub' + (end && !S.preview ? '' : ' viewing');
  s2.id = 'status-sub';
  s2.textContent = sub;
  if (S.preview) {
    const back = document.createElement('button');
    back.id = 'preview-back'; back.textContent = t('previewBack');
    back.addEventListener('click', endPreview);
    s2.append(' ', back);
    if (g.mode === 'analysis') {
      // An analysis board can take the line in: its moves are played from the position shown.
      const play = document.createElement('button');
      play.id = 'preview-play'; play.textContent = t('previewPlay');
      play.addEventListener('click', () => playLine(S.preview.moves));
      s2.append(' ', play);
    }
  }
  st.append(s2);
  // The opening of the position shown (the last named one up to it).
  const op = openingAt(g.moves, S.view);
  if (op) {
    const o = document.createElement('span');
    o.className = 'sub opening'; o.id = 'status-opening'; o.dataset.testid = 'opening';
    o.textContent = t('opening', { name: openingName(op, settings.lang) });
    st.append(o);
  }
  const over = !!g.outcome;
  // An analysis board has no game to resign or draw.
  const board = g.mode === 'analysis';
  $('btn-draw').classList.toggle('hidden', board);
  $('btn-resign').classList.toggle('hidden', board);
  $('btn-takeback').disabled = S.busy || g.moves.length === 0;
  $('btn-resign').disabled = over || S.busy || g.id == null;
  $('btn-draw').disabled = over || S.busy || g.id == null;
  // No engine help while playing the computer.
  const playingComputer = g.mode === 'computer' && !over;
  $('btn-analyse').disabled = playingComputer;
  $('btn-analyse').title = playingComputer ? t('analysisOffComputer') : '';
  $('nav-first').disabled = $('nav-prev').disabled = S.view === 0;
  $('nav-next').disabled = $('nav-last').disabled = atEnd();
  $('move-input').disabled = $('move-play').disabled = (over && !analysable()) || S.busy;
}

// The move list, the record's tags and comments: movelist.js.
function renderMoves() {
  renderTags();
  renderMoveList();
}

function renderAll() {
  if (LIVE) { LIVE.render(); return; }
  render();
  renderStatus();
  renderMoves();
  renderAnalysis();
  if (REVIEW) REVIEW.render();
  if (EXPLORER) EXPLORER.render();
  if (TABLEBASE) TABLEBASE.render();
}

function goTo(ply) {
  if (!S.game) return;
  S.view = Math.max(0, Math.min(S.game.moves.length, ply));
  S.selected = null;
  S.preview = null;
  viewChanged();
  renderAll();
  if (S.analysis.on) startAnalysis();
}

// ---------------------------------------------------------------------------------------
// Games

function setGame(g, keepView) {
  const sameGame = S.game && S.game.id === g.id;
  if (!sameGame && g.mode === 'computer') S.flipped = g.human === 'black';
  S.game = g;
  S.linkError = null;
  S.missing = null;
  S.preview = null;
  if (!keepView || !sameGame) S.view = g.moves.length;
  S.selected = null;
  // Playing the computer: the engine's analysis is off (it would show the human the moves).
  if (g.mode === 'computer' && !g.outcome && S.analysis.on) { stopAnalysis(); S.analysis.on = false; }
  if (REVIEW) REVIEW.gameChanged(g);
  if (g.id != null) {
    // A saved game: the address names it (a shared position keeps its ?fen= until saved).
    const url = new URL(location.href);
    url.search = '?game=' + g.id;
    history.replaceState(null, '', url);
    localStorage.setItem('xiangqi.last', g.id);
  }
  renderAll();
  if (S.analysis.on) startAnalysis();
  maybeGameOver();
}

// The plain-language account of the ruling in the UI's language (the server writes both).
function rulingText(o) { return rulingOf(o); }

// Which ending the over dialog last told (a game, its length and its reason).
function overKey(g) { return g.outcome ? g.id + ':' + g.moves.length + ':' + g.outcome.reason : null; }

function maybeGameOver() {
  const g = S.game;
  if (!g || !g.outcome) return;
  const key = overKey(g);
  if (S.shownOver === key) return;
  S.shownOver = key;
  const o = g.outcome;
  // A draw's reason already says "draw" ("Draw by agreement"): the title, said once.
  $('over-title').textContent = o.winner === 'red' ? t('redWins') : o.winner === 'black' ? t('blackWins') : outcomeText(null, o.reason);
  $('over-reason').textContent = o.winner ? reasonText(o.reason) : '';
  $('over-text').textContent = rulingText(o);
  $('dlg-over').showModal();
}

async function openGame(id) {
  if (LIVE) { location.href = '/?game=' + encodeURIComponent(id); return; }
  try {
    const g = await api('GET', `/api/games/${id}`);
    S.shownOver = overKey(g);
    setGame(g);
    computerIfDue();
  } catch (e) {
    if (e.status === 404 || e.status === 400) {
      // No such game: nothing on the board, a prompt to start or open one.
      if (!S.game || String(S.game.id) === String(id)) {
        S.game = null; S.missing = String(id).slice(0, 24); S.view = 0; S.preview = null;
        if (String(localStorage.getItem('xiangqi.last')) === String(id)) localStorage.removeItem('xiangqi.last');
        renderAll();
      } else toast(errText(e));
    } else toast(errText(e));
  }
}

async function newGame(body) {
  if (LIVE) {
    try { location.href = '/?game=' + (await api('POST', '/api/games', body)).id; } catch (e) { toast(errText(e)); }
    return;
  }
  try {
    const g = await api('POST', '/api/games', body);
    setGame(g);
    computerIfDue();
  } catch (e) { toast(errText(e)); }
}

async function playMove(text) {
  const g = S.game;
  if (!g) return;
  if (g.id == null) {
    // A shared position is saved (as an analysis game) with its first move.
    try {
      setGame(await api('POST', '/api/games', { mode: 'analysis', fen: g.start_fen, moves: [text] }));
    } catch (e) { toast(errText(e)); S.selected = null; render(); }
    return;
  }
  try {
    if (g.mode === 'analysis' && atEnd()) {
      // A stored line that goes on with this move: follow it (it becomes the main line).
      const line = (g.lines || []).find((l) => l.ply === S.view && l.moves[0].uci === text);
      if (line) { await promoteLine(line, S.view + 1); return; }
    }
    if (!atEnd()) {
      if (g.mode === 'analysis') {
        // Analysis: play from the position shown; the old continuation is kept by the server
        // as an alternative line. The main-line move or a line's move just goes there.
        const at = S.view;
        if (g.moves[at].uci === text) { goTo(at + 1); return; }
        const line = (g.lines || []).find((l) => l.ply === at && l.moves[0].uci === text);
        if (line) { await promoteLine(line, at + 1); return; }
        setGame(await api('POST', `/api/games/${g.id}/moves`, { move: text, ply: g.moves.length, at }));
        return;
      } else { goTo(g.moves.length); return; }
    }
    const r = await api('POST', `/api/games/${g.id}/moves`, { move: text, ply: S.game.moves.length });
    applyMoveResult(r);
    computerIfDue();
  } catch (e) {
    toast(errText(e));
    if (e.status === 409) openGame(g.id);
    S.selected = null;
    render();
  }
}

// Makes an alternative line the main line (the old main line is kept as a line) and shows
// the position after `view` moves of it.
async function promoteLine(line, view) {
  const g = S.game;
  try {
    setGame(await api('POST', `/api/games/${g.id}/promote`, { line: line.uci, ply: g.moves.length }));
    goTo(view);
  } catch (e) {
    toast(errText(e));
    if (e.status === 409) openGame(g.id);
  }
}

function applyMoveResult(r) {
  const g = S.game;
  if (!g || r.id !== g.id) return;
  g.moves.push(r.move);
  for (const k of ['fen', 'turn', 'check', 'legal', 'outcome']) g[k] = r[k];
  S.view = g.moves.length;
  S.selected = null;
  S.preview = null;
  renderAll();
  if (S.analysis.on) startAnalysis();
  maybeGameOver();
}

async function computerIfDue() {
  const g = S.game;
  if (!g || g.mode !== 'computer' || g.outcome || g.turn === g.human || S.busy) return;
  S.busy = true;
  renderAll();
  try {
    const r = await api('POST', `/api/games/${g.id}/computer-move`, { ply: g.moves.length });
    S.busy = false;
    applyMoveResult(r);
  } catch (e) {
    S.busy = false;
    toast(errText(e));
    renderAll();
  }
}

async function takeback() {
  const g = S.game;
  if (!g || S.busy || !g.moves.length) return;
  let n = 1;
  if (g.mode === 'computer' && !g.outcome && g.turn === g.human && g.moves.length >= 2) n = 2;
  if (g.mode === 'computer' && g.outcome) n = g.turn === g.human ? 1 : 2;
  n = Math.min(n, g.moves.length);
  try {
    const r = await api('POST', `/api/games/${g.id}/takeback`, { plies: n, ply: g.moves.length });
    S.shownOver = null;
    setGame(r);
    computerIfDue();
  } catch (e) { toast(errText(e)); }
}

async function resign() {
  const g = S.game;
  if (!g || g.outcome) return;
  if (!(await ask(t('confirmResign'), t('resign')))) return;
  const side = g.mode === 'computer' ? g.human : g.turn;
  try { setGame(await api('POST', `/api/games/${g.id}/resign`, { side })); } catch (e) { toast(errText(e)); }
}

async function offerDraw() {
  const g = S.game;
  if (!g || g.outcome) return;
  const side = g.mode === 'computer' ? g.human : g.turn;
  if (g.mode !== 'computer') {
    const other = side === 'red' ? 'black' : 'red';
    if (!(await ask(t('confirmDraw', { side: t(side), other: t(other) }), t('accept'), t('decline')))) return;
  }
  try {
    const r = await api('POST', `/api/games/${g.id}/draw`, { side });
    if (r.accepted) { toast(t('drawAccepted')); setGame(r.game); } else {
      toast(r.code === 'opening' ? t('drawOpening') : r.code === 'better' ? t('drawBetter') : t('drawDeclined') + errText(r.why));
    }
  } catch (e) { toast(errText(e)); }
}

// ---------------------------------------------------------------------------------------
// Board input: click-click and drag

function sqAt(evt) {
  const svg = $('board');
  const pt = svg.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  let f = Math.round((p.x - MARGIN) / CELL), rr = Math.round((p.y - MARGIN) / CELL);
  if (f < 0 || f > 8 || rr < 0 || rr > 9) return null;
  if (S.flipped) f = 8 - f; else rr = 9 - rr;
  return sqName(f, rr);
}

const drag = { sq: null, g: null, x0: 0, y0: 0, moved: false, pointer: null };

function ownPiece(sq) {
  if (!S.game || !atEnd() && S.game.mode !== 'analysis') return false;
  const p = parseFen(fenAt(S.view)).board.get(sq);
  if (!p) return false;
  const side = p === p.toUpperCase() ? 'red' : 'black';
  return side === parseFen(fenAt(S.view)).turn;
}

function tryMove(from, to) {
  const uci = from + to;
  if (!atEnd() && S.game.mode === 'analysis') {
    // legal moves of an earlier position are checked by the server
    playMove(uci);
    return true;
  }
  if (S.game.legal.includes(uci) && humanTurn()) { playMove(uci); return true; }
  return false;
}

function onPointerDown(evt) {
  if (evt.button !== undefined && evt.button !== 0) return;
  const sq = sqAt(evt);
  if (!sq) return;
  pickSquare(sq, evt);
}

// A click on point `sq` (by the pointer `evt`, or by the keyboard: no `evt`, no drag).
function pickSquare(sq, evt) {
  if (S.editor) { editorClick(sq); return; }
  if (!S.game) return;
  if (S.preview) { endPreview(); return; }
  if (!atEnd() && S.game.mode !== 'analysis' && !S.game.outcome && parseFen(fenAt(S.view)).board.has(sq)) {
    // Looking back through a game that goes on: moves are played at its end only; say so.
    toast(t('lookingBack'), 5000);
    $('nav-last').classList.remove('pulse');
    void $('nav-last').offsetWidth;
    $('nav-last').classList.add('pulse');
    return;
  }
  if (S.selected && S.selected !== sq && !ownPiece(sq)) {
    const from = S.selected;
    S.selected = null;
    if (!tryMove(from, sq)) render();
    return;
  }
  if (ownPiece(sq) && (humanTurn() || analysable())) {
    if (!atEnd() && S.game.mode !== 'analysis') return;
    S.selected = sq;
    render();
    const g = $('board').querySelector(`#pieces [data-at="${sq}"]`);
    if (g && evt) {
      drag.sq = sq; drag.g = g; drag.moved = false; drag.pointer = evt.pointerId;
      const [x, y] = xy(sq); drag.x0 = x; drag.y0 = y;
      drag.start = [evt.clientX, evt.clientY];
      g.parentNode.appendChild(g);
    }
  } else if (S.selected) {
    S.selected = null;
    render();
  }
}

function onPointerMove(evt) {
  if (!drag.g || evt.pointerId !== drag.pointer) return;
  const dx = evt.clientX - drag.start[0], dy = evt.clientY - drag.start[1];
  if (!drag.moved && Math.hypot(dx, dy) < 6) return;
  drag.moved = true;
  const svg = $('board');
  const pt = svg.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  drag.g.setAttribute('transform', `translate(${p.x},${p.y}) scale(1.08)`);
  drag.g.classList.add('dragging');
}

function onPointerUp(evt) {
  if (!drag.g || evt.pointerId !== drag.pointer) return;
  const from = drag.sq, moved = drag.moved;
  drag.g = null; drag.sq = null;
  if (!moved) return; // a click: the piece stays selected
  const to = sqAt(evt);
  S.selected = null;
  if (to) droppedMove(from + to);
  if (!to || to === from || !tryMove(from, to)) render();
}

// ---------------------------------------------------------------------------------------
// Analysis over the WebSocket

function ensureSocket() {
  const a = S.analysis;
  if (a.ws && a.ws.readyState <= 1) return a.ws;
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  a.ws = new WebSocket(`${proto}//${location.host}/api/analysis`);
  a.ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    if (m.type === 'error') { toast(errText(m.error)); return; }
    if (m.id !== a.id) return;
    if (m.type === 'info') {
      a.lines[m.multipv - 1] = m;
      a.lines.length = Math.min(a.lines.length, +$('multipv').value);
      a.last = m;
      renderAnalysis();
      render();
    } else if (m.type === 'bestmove') {
      a.running = false;
      renderAnalysis();
    }
  };
  a.ws.onclose = () => { a.running = false; renderAnalysis(); };
  return a.ws;
}

function startAnalysis() {
  const a = S.analysis;
  if (!S.game) return;
  const ws = ensureSocket();
  a.id += 1;
  a.lines = [];
  a.running = true;
  // The position analysed: its lines are numbered and previewed from it.
  a.fen = fenAt(S.view);
  S.preview = null;
  const msg = {
    type: 'go', id: a.id, fen: S.game.start_fen,
    moves: S.game.moves.slice(0, S.view).map((m) => m.uci),
    multipv: +$('multipv').value, movetime_ms: 60000,
  };
  const send = () => ws.send(JSON.stringify(msg));
  if (ws.readyState === 1) send(); else ws.addEventListener('open', send, { once: true });
  renderAnalysis();
}

// Shows the position after `moves` of an engine line from the analysed position (the game is
// not changed); a click on the board, Escape or "Back to the game" ends it.
function previewLine(moves, label) {
  const a = S.analysis;
  if (!S.game || !a.fen) return;
  let fen = a.fen;
  for (const m of moves) fen = fenAfter(fen, m);
  S.preview = { fen, last: moves[moves.length - 1], label, moves };
  S.selected = null;
  render();
  renderStatus();
}
// Plays an engine line's moves on an analysis board from the position shown (a new branch
// keeps the old continuation as a variation, as a move played there does).
async function playLine(moves) {
  S.preview = null;
  for (const uci of moves) {
    const before = S.game && S.game.id != null ? S.view : -1;
    await playMove(uci);
    if (!S.game || (before >= 0 && S.view !== before + 1)) break;
  }
  renderAll();
}
function endPreview() {
  if (!S.preview) return false;
  S.preview = null;
  render();
  renderStatus();
  return true;
}

function stopAnalysis() {
  const a = S.analysis;
  if (a.ws && a.ws.readyState === 1) a.ws.send(JSON.stringify({ type: 'stop' }));
  a.running = false;
  renderAnalysis();
}

function scoreText(score, turn) {
  // shown from Red's point of view
  const s = turn === 'black' ? -1 : 1;
  if (score.mate !== undefined) return (score.mate * s > 0 ? '#' : '#-') + Math.abs(score.mate);
  const v = (score.cp * s) / 100;
  return (v > 0 ? '+' : '') + v.toFixed(2);
}

function renderAnalysis() {
  const a = S.analysis;
  // Not in the editor: its position is not the one analysed.
  const on = a.on && !S.editor;
  $('analysis').classList.toggle('hidden', !on);
  $('evalbar').classList.toggle('hidden', !on);
  $('btn-analyse').classList.toggle('primary', a.on);
  if (!on) return;
  $('an-toggle').textContent = a.running ? t('stop') : t('start');
  const best = a.lines[0];
  const info = $('an-info');
  info.textContent = best ? `${t('depth')} ${best.depth} · ${(best.nodes / 1000).toFixed(0)}k nodes · ${(best.nps / 1000).toFixed(0)}k nps${a.running ? ' · ' + t('analysing') : ''}` : (a.running ? t('analysing') : t('engineOff'));
  const ol = $('an-lines');
  ol.textContent = '';
  for (const line of a.lines) {
    if (!line) continue;
    const li = document.createElement('li');
    const sc = document.createElement('span');
    sc.className = 'score';
    sc.textContent = scoreText(line.score, line.turn);
    const pv = document.createElement('span');
    pv.className = 'pv';
    const moves = line.pv.map((m, i) => shownMove({ iccs: m.slice(0, 2).toUpperCase() + '-' + m.slice(2).toUpperCase(), wxf: line.pv_wxf && line.pv_wxf[i], chinese: line.pv_chinese && line.pv_chinese[i] }, settings.notation, settings.lang));
    // Numbered as the move list numbers moves; a click shows the line's position then.
    const f = (a.fen || '').split(' ');
    let no = +(f[5] || 1), black = f[1] === 'b';
    const pvMoves = line.pv.slice(0, 10);
    pvMoves.forEach((uci, j) => {
      if (j === 0 || !black) {
        const n = document.createElement('span');
        n.className = 'pvnum';
        n.textContent = black ? `${no}…` : `${no}.`;
        pv.append(n);
      }
      const label = `${black ? no + '…' : no + '.'} ${moves[j] || uci}`;
      const mv = document.createElement('span');
      mv.className = 'pvmv';
      mv.dataset.j = j;
      mv.dataset.uci = uci;
      mv.textContent = moves[j] || uci;
      mv.addEventListener('click', () => previewLine(pvMoves.slice(0, j + 1), label));
      pv.append(mv, ' ');
      if (black) no += 1;
      black = !black;
    });
    li.append(sc, pv);
    ol.append(li);
  }
  // evaluation bar: Red's share
  let frac = 0.5, label = '0.00';
  if (best) {
    const s = best.turn === 'black' ? -1 : 1;
    if (best.score.mate !== undefined) frac = best.score.mate * s > 0 ? 1 : 0;
    else frac = 1 / (1 + Math.exp(-(best.score.cp * s) / 300));
    label = scoreText(best.score, best.turn);
  }
  $('evalfill').style.height = (frac * 100).toFixed(1) + '%';
  $('evalbar').classList.toggle('flipped', S.flipped);
  $('evaltext').textContent = label;
}

// ---------------------------------------------------------------------------------------
// Position editor

const PALETTE = ['K', 'A', 'B', 'N', 'R', 'C', 'P', 'k', 'a', 'b', 'n', 'r', 'c', 'p', ''];

function openEditor(fen) {
  if (LIVE) { location.href = '/'; return; }
  stopAnalysisIfOn();
  const p = parseFen(fen || (S.game ? fenAt(S.view) : 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1'));
  S.editor = { board: p.board, turn: p.turn, pick: 'P' };
  $('ed-turn').value = p.turn === 'black' ? 'b' : 'w';
  $('ed-side').value = p.turn;
  $('ed-level').value = $('new-level').value; $('ed-level-out').textContent = $('ed-level').value;
  S.preview = null;
  $('editor-tools').classList.remove('hidden');
  document.querySelector('.side').classList.add('hidden');
  buildPalette();
  editorChanged();
}
function closeEditor() {
  S.editor = null;
  $('editor-tools').classList.add('hidden');
  document.querySelector('.side').classList.remove('hidden');
  renderAll();
}
function stopAnalysisIfOn() { if (S.analysis.on) stopAnalysis(); }
function buildPalette() {
  const pal = $('palette');
  pal.textContent = '';
  for (const ch of PALETTE) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.piece = ch;
    b.title = ch ? ch : t('eraser');
    const svg = document.createElementNS(SVGNS, 'svg');
    svg.setAttribute('viewBox', '-30 -30 60 60');
    if (ch) pieceGroup(ch, 0, 0, svg);
    else el('text', { x: 0, y: 10, 'text-anchor': 'middle', 'font-size': 28 }, svg).textContent = '✕';
    b.append(svg);
    b.classList.toggle('sel', S.editor.pick === ch);
    b.addEventListener('click', () => { S.editor.pick = ch; buildPalette(); });
    pal.append(b);
  }
}
function editorClick(sq) {
  const e = S.editor;
  const cur = e.board.get(sq);
  if (cur && (e.pick === '' || cur === e.pick)) e.board.delete(sq);
  else if (e.pick) e.board.set(sq, e.pick);
  else e.board.delete(sq);
  editorChanged();
}
let edTimer = null;
function editorChanged() {
  const fen = boardToFen(S.editor.board, $('ed-turn').value === 'b' ? 'black' : 'red');
  $('ed-fen').value = fen;
  render();
  clearTimeout(edTimer);
  edTimer = setTimeout(() => validateEditor(fen), 150);
}
async function validateEditor(fen) {
  const msg = $('ed-msg');
  // Only the answer about the FEN the field still holds is shown (an earlier check may
  // answer after a FEN was typed).
  const current = () => $('ed-fen').value.trim() === fen.trim();
  try {
    await api('GET', '/api/position?fen=' + encodeURIComponent(fen));
    if (current()) { msg.textContent = t('fenOk'); msg.className = 'msg ok'; }
    return true;
  } catch (e) {
    if (current()) { msg.textContent = errText(e); msg.className = 'msg'; }
    return false;
  }
}
// A FEN typed (or pasted) in the editor: read by the server, exactly as a game would be. The
// text stays as typed; the board shows the server's reading, or stays as it was with the
// server's error when the FEN is refused.
async function editorFenTyped() {
  clearTimeout(edTimer);
  const v = $('ed-fen').value.trim();
  const n = (editorFenTyped.n = (editorFenTyped.n || 0) + 1);
  const msg = $('ed-msg');
  try {
    const p = await api('GET', '/api/position?fen=' + encodeURIComponent(v));
    if (n !== editorFenTyped.n || !S.editor) return;
    const read = parseFen(p.fen);
    S.editor.board = read.board;
    $('ed-turn').value = read.turn === 'black' ? 'b' : 'w';
    msg.textContent = t('fenOk'); msg.className = 'msg ok';
  } catch (e) {
    if (n !== editorFenTyped.n || !S.editor) return;
    msg.textContent = errText(e); msg.className = 'msg';
  }
  render();
}
async function editorStart(mode) {
  const fen = $('ed-fen').value.trim();
  if (!(await validateEditor(fen))) return;
  const body = { mode, fen };
  if (mode === 'computer') { body.human = $('ed-side').value; body.level = +$('ed-level').value; }
  closeEditor();
  await newGame(body);
  if (mode === 'analysis') { S.analysis.on = true; startAnalysis(); }
}

// ---------------------------------------------------------------------------------------
// Dialogs

async function showGames() {
  const tbody = $('games-table').querySelector('tbody');
  tbody.textContent = '';
  $('dlg-games').showModal();
  let data;
  try { data = await api('GET', '/api/games?limit=200'); } catch (e) { toast(errText(e)); return; }
  if (!data.games.length) {
    tbody.innerHTML = `<tr><td>${t('noGames')}</td></tr>`;
    return;
  }
  for (const g of data.games) {
    const tr = document.createElement('tr');
    tr.dataset.id = g.id;
    const mode = g.mode === 'computer' ? `${t('modeComputer')} (${t('levelN', { n: g.level })})` : g.mode === 'two-player' ? t('modeTwo') : t('modeAnalysis');
    const names = g.red || g.black ? `${g.red || '?'} – ${g.black || '?'}` : `#${g.id} ${mode}`;
    const result = g.result ? outcomeText(g.result, g.reason) : t('ongoing');
    const when = new Date(g.updated).toLocaleString(settings.lang);
    const td1 = document.createElement('td');
    const title = document.createElement('div'); title.className = 'title'; title.textContent = names;
    // The players' names and the event are the record's, in no language of the page.
    if (g.red || g.black) title.translate = false;
    const meta = document.createElement('div'); meta.className = 'meta';
    // Moves counted as the move list numbers them (Red's and Black's move make one).
    const moves = moveCount(g.plies, parseFen(g.start_fen || '').turn === 'black');
    if (g.event) {
      const ev = document.createElement('span'); ev.translate = false; ev.textContent = g.event;
      meta.append(ev, ' · ');
    }
    meta.append(`${movesText(moves)} · ${result} · ${when}`);
    td1.append(title, meta);
    const td2 = document.createElement('td'); td2.className = 'acts';
    const open = document.createElement('button'); open.textContent = t('open'); open.className = 'open';
    open.addEventListener('click', () => { $('dlg-games').close(); openGame(g.id); });
    const del = document.createElement('button'); del.textContent = t('del'); del.className = 'del';
    del.addEventListener('click', async () => {
      if (!(await ask(t('confirmDelete'), t('del')))) return;
      try {
        await api('DELETE', `/api/games/${g.id}`);
        tr.remove();
        if (S.game && S.game.id === g.id) { S.game = null; history.replaceState(null, '', '/'); renderAll(); }
      } catch (e) { toast(errText(e)); }
    });
    td2.append(open, ' ', del);
    tr.append(td1, td2);
    tbody.append(tr);
  }
}

async function doImport() {
  const file = $('imp-file').files[0];
  const text = $('imp-text').value;
  const msg = $('imp-msg');
  let body;
  // What the user gave last wins: text pasted after choosing a file is imported, not the file.
  if (text.trim() && (S.importFrom === 'text' || !file)) body = text;
  else if (file) body = await file.arrayBuffer();
  else { msg.textContent = t('chooseFile'); return; }
  try {
    const r = await api('POST', '/api/import', body, true);
    $('dlg-import').close();
    clearImport();
    let note = t('imported', { n: r.games.length });
    if (r.errors.length) note += ' ' + r.errors.map((e) => `#${e.game}: ${errText(e.error)}`).join('; ');
    // What was left out (a variation from an illegal move on, the moves after the rules
    // ended the game), as `xiangqi convert` says it.
    if (r.warnings && r.warnings.length) note += ' ' + t('importWarnings', { n: r.warnings.length }) + ' ' + r.warnings.map(errText).join('; ');
    toast(note, r.warnings && r.warnings.length ? 12000 : 6000);
    await openGame(r.games[0].id);
  } catch (e) {
    msg.textContent = errText(e) + (e.data && e.data.errors ? ' ' + e.data.errors.map((x) => `#${x.game}: ${errText(x.error)}`).join('; ') : '');
  }
}
// The import dialog empty again: no file chosen, no text.
function clearImport() {
  $('imp-file').value = ''; $('imp-text').value = ''; $('imp-msg').textContent = '';
  S.importFrom = null;
}

// "Play a friend": an open challenge; this page goes to the creator's seat, which shows the
// other seat's link (kept for this tab in sessionStorage) and the spectators' link.
async function playFriend() {
  const name = $('friend-name').value.trim();
  settings.name = name; saveSettings();
  const body = { ...clockFields($('friend-tc').value), color: $('friend-side').value };
  if (name) body.name = name;
  const opponent = $('friend-opponent').value.trim();
  if (opponent) body.opponent = opponent;
  if ($('friend-rated').checked) body.rated = true;
  try {
    const c = await api('POST', '/api/challenge/open', body);
    const mine = c.color === 'red' ? c.urlRed : c.urlBlack;
    const theirs = c.color === 'red' ? c.urlBlack : c.urlRed;
    sessionStorage.setItem('xiangqi.invite.' + c.id, JSON.stringify({ invite: location.origin + theirs, watch: location.origin + c.url }));
    location.href = mine;
  } catch (e) { toast(errText(e)); }
}

async function showShare() {
  const g = S.game;
  if (!g) return;
  const fen = fenAt(S.view);
  $('share-fen').value = fen;
  $('share-url').value = `${location.origin}/?fen=${encodeURIComponent(fen)}`;
  $('share-pgn-text').value = '';
  if (g.id == null) {
    // Not saved: the PGN is just the position.
    $('share-pgn').removeAttribute('href');
    $('share-pgn-text').value = `[Event "xiangqi"]\n[Result "*"]\n[FEN "${g.start_fen}"]\n\n*\n`;
    $('dlg-share').showModal();
    return;
  }
  const pgnUrl = `/api/games/${g.id}/pgn?notation=${settings.notation === 'vi' ? 'wxf' : settings.notation}`;
  $('share-pgn').href = pgnUrl + '&download=1';
  $('dlg-share').showModal();
  try { $('share-pgn-text').value = await api('GET', pgnUrl); } catch (e) { toast(errText(e)); }
}

function copy(text) {
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => toast(t('copied')), () => toast(text));
  } else {
    const ta = document.createElement('textarea');
    ta.value = text; document.body.append(ta); ta.select();
    try { document.execCommand('copy'); toast(t('copied')); } catch { toast(text); }
    ta.remove();
  }
}

// ---------------------------------------------------------------------------------------
// Wiring

function wire() {
  const svg = $('board');
  svg.addEventListener('pointerdown', onPointerDown);
  KB = keyboardBoard(svg, {
    flipped: () => (LIVE ? LIVE.flippedNow() : S.flipped),
    fen: () => (LIVE ? LIVE.fenShown() : S.editor ? null : S.game ? fenAt(S.view) : null),
    pick: (sq) => (LIVE ? LIVE.pick(sq) : pickSquare(sq, null)),
    t, lang: () => settings.lang, redraw: () => render(),
  });
  window.addEventListener('pointermove', onPointerMove);
  window.addEventListener('pointerup', onPointerUp);
  $('btn-new').addEventListener('click', () => { $('friend-name').value = settings.name || ''; $('dlg-new').showModal(); });
  for (const sel of document.querySelectorAll('.tc-select')) {
    for (const tc of TIME_CONTROLS) {
      const o = document.createElement('option');
      o.value = tc.v;
      o.dataset.tc = tc.v;
      sel.append(o);
    }
    sel.value = '300+3';
  }
  LOBBY = setupLobby({ t, settings, saveSettings, toast, errText });
  const myGames = setupMyGames({ t });
  $('btn-lobby').addEventListener('click', () => myGames.refresh());
  $('btn-games').addEventListener('click', showGames);
  $('btn-import').addEventListener('click', () => { clearImport(); $('dlg-import').showModal(); });
  $('imp-file').addEventListener('change', () => { S.importFrom = 'file'; });
  $('imp-text').addEventListener('input', () => { S.importFrom = 'text'; });
  $('btn-editor').addEventListener('click', () => openEditor());
  setupSettingsDialog(async () => {
    const before = document.documentElement.lang;
    await loadLang(settings.lang); applyLanguage(); renderAll();
    if (settings.lang !== before) rememberLang();
  });
  EXPLORER = setupExplorer({
    t, settings, saveSettings, api,
    fen: () => (S.game && !S.editor && !S.preview ? fenAt(S.view) : null),
    // (A move the game does not allow now, the computer's turn say, is not played.)
    play: (uci) => { if (S.game) tryMove(uci.slice(0, 2), uci.slice(2, 4)); },
  });
  TABLEBASE = setupTablebase({
    t, settings, api,
    // Analysis and review: an analysis game, the engine lines on, or a game that has ended.
    fen: () => (S.game && !S.editor && !S.preview && (S.game.mode === 'analysis' || S.analysis.on || S.game.outcome) ? fenAt(S.view) : null),
    play: (uci) => { if (S.game) tryMove(uci.slice(0, 2), uci.slice(2, 4)); },
  });
  setupMoveList({ t, settings, state: () => S, goTo, promoteLine, api, setGame, toast, errText });
  wireMoveList();
  $('btn-lang').addEventListener('click', async () => {
    settings.lang = settings.lang === 'en' ? settings.otherLang : 'en';
    await loadLang(settings.lang);
    saveSettings(); applyLanguage(); renderAll(); rememberLang();
  });
  document.querySelectorAll('dialog .close').forEach((b) => b.addEventListener('click', () => b.closest('dialog').close()));
  $('new-level').addEventListener('input', () => { $('new-level-out').textContent = $('new-level').value; });
  document.querySelectorAll('#dlg-new input[name=mode]').forEach((r) => r.addEventListener('change', () => {
    const mode = document.querySelector('#dlg-new input[name=mode]:checked').value;
    $('new-computer').classList.toggle('hidden', mode !== 'computer');
    $('new-friend').classList.toggle('hidden', mode !== 'friend');
  }));
  $('dlg-new').addEventListener('close', () => {
    if ($('dlg-new').returnValue !== 'start') return;
    const mode = document.querySelector('#dlg-new input[name=mode]:checked').value;
    if (mode === 'friend') { playFriend(); return; }
    const body = { mode };
    if (mode === 'computer') {
      body.human = document.querySelector('#dlg-new input[name=side]:checked').value;
      body.level = +$('new-level').value;
      S.flipped = body.human === 'black';
    }
    S.shownOver = null;
    newGame(body).then(() => { if (mode === 'analysis') { S.analysis.on = true; startAnalysis(); } });
  });
  $('dlg-over').addEventListener('close', () => { if ($('dlg-over').returnValue === 'new') $('dlg-new').showModal(); });
  $('imp-go').addEventListener('click', doImport);
  $('btn-share').addEventListener('click', showShare);
  $('share-png').addEventListener('click', async () => {
    try { download(await boardPng($('board')), `xiangqi-${S.game && S.game.id != null ? S.game.id : 'position'}-${S.view}.png`); } catch (e) { toast(errText(e)); }
  });
  $('share-gif').addEventListener('click', async () => {
    const g = S.game;
    const positions = g ? [{ fen: g.start_fen }, ...g.moves.map((m) => ({ fen: m.fen, last: m.uci }))] : [{ fen: fenAt(0) }];
    toast(t('gifMaking'));
    try {
      const opts = { flipped: S.flipped, notation: settings.notation, set: settings.pieces, coords: settings.coords };
      const { gameGif } = await import('/gif.js');
      download(await gameGif(positions, opts), `xiangqi-${g && g.id != null ? g.id : 'game'}.gif`);
    } catch (e) { toast(errText(e)); }
  });
  $('share-copy-fen').addEventListener('click', () => copy($('share-fen').value));
  $('share-copy-url').addEventListener('click', () => copy($('share-url').value));
  $('btn-flip').addEventListener('click', () => { S.flipped = !S.flipped; renderAll(); });
  $('nav-first').addEventListener('click', () => goTo(0));
  $('nav-prev').addEventListener('click', () => goTo(S.view - 1));
  $('nav-next').addEventListener('click', () => goTo(S.view + 1));
  $('nav-last').addEventListener('click', () => goTo(S.game ? S.game.moves.length : 0));
  $('btn-takeback').addEventListener('click', takeback);
  $('btn-resign').addEventListener('click', resign);
  $('btn-draw').addEventListener('click', offerDraw);
  $('btn-analyse').addEventListener('click', () => {
    S.analysis.on = !S.analysis.on;
    if (S.analysis.on) startAnalysis(); else stopAnalysis();
    renderAll();
  });
  $('an-toggle').addEventListener('click', () => { if (S.analysis.running) stopAnalysis(); else startAnalysis(); });
  $('multipv').addEventListener('change', () => { if (S.analysis.on) startAnalysis(); });
  $('move-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const v = $('move-input').value.trim();
    if (!v || !S.game) return;
    if (!humanTurn() && !analysable()) return;
    $('move-input').value = '';
    playMove(v);
  });
  // editor
  $('ed-turn').addEventListener('change', () => { S.editor.turn = $('ed-turn').value; editorChanged(); });
  $('ed-start').addEventListener('click', () => { S.editor.board = parseFen('rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w').board; editorChanged(); });
  $('ed-clear').addEventListener('click', () => { S.editor.board = new Map([['e0', 'K'], ['d9', 'k']]); editorChanged(); });
  $('ed-flip').addEventListener('click', () => { S.flipped = !S.flipped; render(); });
  $('ed-fen').addEventListener('change', editorFenTyped);
  $('ed-level').addEventListener('input', () => { $('ed-level-out').textContent = $('ed-level').value; });
  $('ed-analyse').addEventListener('click', () => editorStart('analysis'));
  $('ed-two').addEventListener('click', () => editorStart('two-player'));
  $('ed-computer').addEventListener('click', () => editorStart('computer'));
  $('ed-cancel').addEventListener('click', closeEditor);
  // keyboard
  document.addEventListener('keydown', (e) => {
    if (e.target.closest('input, textarea, select, dialog[open]') || e.ctrlKey || e.metaKey || e.altKey) return;
    if (S.editor) return;
    const k = e.key;
    if (LIVE && ['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(k)) {
      if (k === 'ArrowLeft') LIVE.step(-1);
      else if (k === 'ArrowRight') LIVE.step(1);
      else LIVE.goTo(k === 'Home' ? 0 : null);
    } else if (k === 'ArrowLeft') goTo(S.view - 1);
    else if (k === 'ArrowRight') goTo(S.view + 1);
    else if (k === 'Home') goTo(0);
    else if (k === 'End') goTo(S.game ? S.game.moves.length : 0);
    else if (k === 'f' || k === 'F') { if (LIVE) LIVE.flip(); else { S.flipped = !S.flipped; renderAll(); } }
    else if (k === 'Escape') { if (!endPreview()) { S.selected = null; render(); } }
    else if (k === 'm' || k === '/') { $('move-input').focus(); }
    else return;
    e.preventDefault();
  });
}

// The header's account link: the username when logged in; the rated choices need one.
async function showAccount() {
  const me = await whoami();
  // The account's language, chosen on another browser, is this page's too; an account with
  // none yet keeps this page's.
  if (adoptAccountLang(me)) { await loadLang(settings.lang); applyLanguage(); renderAll(); }
  else if (me && !me.lang) rememberLang();
  $('nav-account').textContent = me ? me.name : t('login');
  for (const id of ['friend-rated', 'lobby-rated']) {
    $(id).disabled = !me;
    $(id).closest('label').title = me ? '' : t('ratedNeedsAccount');
  }
  for (const id of ['friend-name', 'lobby-name']) if (me) { $(id).value = me.name; $(id).disabled = true; }
}

async function start() {
  wire();
  applyLanguage();
  showAccount();
  if (location.pathname.startsWith('/live/')) {
    LIVE = startLive({
      t, settings, saveSettings, toast, api, copy, errText, ask, newOpponent: (o) => LOBBY.seekLike(o), kb: KB, announce,
    });
    return;
  }
  REVIEW = setupReview({
    api, t, toast, errText, game: () => S.game, view: () => S.view, goTo, notation: () => settings.notation,
    xy, rerender: () => renderAll(),
  });
  renderAll();
  const q = new URLSearchParams(location.search);
  if (q.get('fen')) {
    // A shared position opens as an analysis board that is saved only when a move is
    // played on it (so opening or reloading the link stores nothing).
    try {
      const p = await api('GET', '/api/position?fen=' + encodeURIComponent(q.get('fen')));
      setGame({
        id: null, mode: 'analysis', human: null, level: 0, start_fen: p.fen, tags: {}, moves: [],
        fen: p.fen, turn: p.turn, check: p.check, legal: p.legal, outcome: p.outcome,
      });
    } catch (e) {
      // Said once, in the status (no toast repeating it).
      S.linkError = errText(e);
      renderAll();
    }
    return;
  }
  if (q.get('game')) {
    await openGame(q.get('game'));
    // `&review=1` (the live page's Review of an ended online game): start it at once.
    if (q.get('review') && S.game) { await REVIEW.startIfNone(); }
    return;
  }
  const last = localStorage.getItem('xiangqi.last');
  if (last) {
    // The last game comes back as it was left: an ending told then is not told again.
    try {
      const g = await api('GET', `/api/games/${last}`);
      S.shownOver = overKey(g);
      setGame(g);
      computerIfDue();
      return;
    } catch { /* gone */ }
  }
  $('dlg-new').showModal();
}

start();
// The page is drawn in its language (what the load event told before the catalogue was
// fetched first): the end-to-end tests wait for this after a navigation.
document.documentElement.dataset.ready = '1';
