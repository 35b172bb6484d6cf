// The move list of a stored game, shown whole: the record's tags in a header above it, the
// main line in rows of two moves, the record's comments at their moves (editable), and the
// variations as a tree: after each main-line move, one row holding the variations that
// replace it, folded to a single line when the game has many (nested variations fold inside
// their parent). Moved out of app.js; app.js calls `renderMoveList` and `renderTags` and
// lends its state and actions through `setupMoveList`.
import { parseFen } from '/board.js';
import { shownMove } from '/notation.js';

// More variations than this in a game: they start folded (one row per main-line move).
const FOLD_OVER = 6;
const NAG = { 1: '!', 2: '?', 3: '!!', 4: '??', 5: '!?', 6: '?!' };

let C = null; // { t, settings, state, goTo, promoteLine, api, setGame, toast }
// Fold state by game and path of the first move of a variation (or main-line ply group):
// true folded, false open; absent: the default for the game.
const folds = new Map();
let editing = null; // the path whose comment is being edited

export function setupMoveList(ctx) { C = ctx; }

const $ = (id) => document.getElementById(id);
function span(cls, text) {
  const s = document.createElement('span');
  if (cls) s.className = cls;
  if (text != null) s.textContent = text;
  return s;
}

// The move tree of a game: nodes { uci, move, path, depth, children, line, main }.
// children[0] of a main-line node is the main line's next move.
export function moveTree(g) {
  const root = { path: '', depth: 0, children: [], main: true };
  let node = root;
  g.moves.forEach((m, i) => {
    const n = { uci: m.uci, move: m, path: node.path ? node.path + ' ' + m.uci : m.uci, depth: i + 1, children: [], main: true, parent: node };
    node.children.push(n);
    node = n;
  });
  let count = 0;
  for (const line of g.lines || []) {
    let cur = root;
    line.uci.forEach((u, k) => {
      let next = cur.children.find((c) => c.uci === u);
      if (!next) {
        const m = k >= line.ply ? line.moves[k - line.ply] : g.moves[k];
        next = { uci: u, move: m, path: cur.path ? cur.path + ' ' + u : u, depth: k + 1, children: [], main: false, line, parent: cur };
        if (cur.children.length > 0) count += 1;
        cur.children.push(next);
      }
      cur = next;
    });
  }
  root.variations = count || (g.lines || []).length;
  return root;
}

function numbering(g) {
  const startBlack = parseFen(g.start_fen).turn === 'black';
  const startNo = +(g.start_fen.split(' ')[5] || 1);
  // For a move `depth` plies from the start: its number and whether it is Black's.
  return (depth) => {
    const idx = depth - 1 + (startBlack ? 1 : 0);
    return { no: startNo + Math.floor(idx / 2), black: idx % 2 === 1 };
  };
}

function moveText(m) { return m ? shownMove(m, C.settings.notation, C.settings.lang) : '?'; }
function nagText(note) { return note && note.nags && note.nags.length ? note.nags.map((n) => NAG[n] || '$' + n).join('') : ''; }
function noteOf(g, path) { return (g.notes || {})[path]; }
function isFolded(g, key) {
  const k = g.id + ':' + key;
  if (folds.has(k)) return folds.get(k);
  return moveTree.lastCount > FOLD_OVER;
}
function setFold(g, key, v) { folds.set(g.id + ':' + key, v); foldVersion += 1; }
let foldVersion = 0;
// What the list was last built from: when only the move shown changes, the list is kept and
// only its current move marked (a record with hundreds of variations has tens of thousands of
// elements in it).
let built = null;
function builtKey(g) {
  return [g, g.moves.length, g.lines, g.notes, C.settings.notation, C.settings.lang, foldVersion];
}
function sameKey(a, b) { return !!a && !!b && a.length === b.length && a.every((x, i) => x === b[i]); }

// A comment as the list shows it (clicking it opens it for editing).
function commentEl(g, path, note, tag) {
  const c = document.createElement(tag);
  c.className = tag === 'li' ? 'comment' : 'vcomment';
  c.dataset.path = path;
  c.textContent = note.comment;
  c.title = C.t('editComment');
  c.addEventListener('click', (e) => { e.stopPropagation(); openEditor(path); });
  return c;
}

// The moves of a variation starting at `node` (a chain through children[0]), with the
// comments at their moves and the variations inside it (each folded on its own).
function variationEl(g, node, num, depthFold) {
  const box = span('vline');
  box.dataset.path = node.path;
  box.append('(');
  let n = node, first = true, needNo = true;
  while (n) {
    const { no, black } = num(n.depth);
    if (first || !black || needNo) box.append(span('vnum', no + (black ? '…' : '.')));
    const s = span('vmv', moveText(n.move) + nagText(noteOf(g, n.path)));
    s.dataset.path = n.path;
    const target = n;
    s.addEventListener('click', () => clickNode(g, target));
    onContext(s, n.path);
    box.append(s);
    needNo = false;
    const note = noteOf(g, n.path);
    if (note && note.comment) { box.append(commentEl(g, n.path, note, 'span')); needNo = true; }
    // Alternatives to the next move of this variation, nested.
    const next = n.children[0];
    if (next && n.children.length > 1) {
      for (const alt of n.children.slice(1)) box.append(subEl(g, alt, num, depthFold + 1));
      needNo = true;
    }
    first = false;
    n = next;
  }
  box.append(')');
  return box;
}

// A nested variation with its own fold button.
function subEl(g, node, num, depth) {
  const wrap = span('sub');
  const folded = isFolded(g, node.path);
  wrap.classList.toggle('folded', folded);
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'fold';
  b.textContent = folded ? '▸' : '▾';
  b.setAttribute('aria-expanded', String(!folded));
  b.addEventListener('click', (e) => { e.stopPropagation(); setFold(g, node.path, !folded); renderMoveList(); });
  wrap.append(b, variationEl(g, node, num, depth));
  return wrap;
}

// The row after main-line move `ply` holding the variations that replace it.
function varRow(g, parent, alts, num) {
  const li = document.createElement('li');
  li.className = 'var';
  const key = 'm' + parent.depth;
  const folded = isFolded(g, key);
  li.classList.toggle('folded', folded);
  li.dataset.ply = parent.depth + 1;
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'fold';
  b.textContent = folded ? '▸' : '▾';
  b.title = C.t('variationsN', { n: alts.length });
  b.setAttribute('aria-expanded', String(!folded));
  b.setAttribute('aria-label', C.t('variationsN', { n: alts.length }));
  b.addEventListener('click', (e) => { e.stopPropagation(); setFold(g, key, !folded); renderMoveList(); });
  li.append(b);
  const body = span('vbody');
  for (const alt of alts) body.append(variationEl(g, alt, num, 1));
  li.append(body);
  return li;
}

// A right click (or a long press) on a move opens its comment for editing, on the main line
// or inside a variation (without making the variation the main line).
function onContext(el, path) {
  el.title = C.t('commentHint');
  el.addEventListener('contextmenu', (e) => { e.preventDefault(); openEditor(path); });
}

function clickNode(g, node) {
  if (node.main) { C.goTo(node.depth); return; }
  C.promoteLine(node.line, node.depth);
}

export function renderMoveList() {
  const list = $('movelist');
  const S = C.state();
  const g = S.game;
  const key = g ? builtKey(g) : null;
  if (g && sameKey(key, built)) {
    const old = list.querySelector('.mv.current');
    const now = S.view > 0 ? list.querySelector(`.mv[data-ply="${S.view}"]`) : null;
    if (old !== now) {
      if (old) old.classList.remove('current');
      if (now) now.classList.add('current');
    }
    scrollToCurrent(list, S);
    renderCommentBox();
    return;
  }
  built = key;
  list.textContent = '';
  renderTools(g);
  if (!g || (g.moves.length === 0 && !(g.lines || []).length && !noteOf(g, ''))) {
    const li = document.createElement('li');
    li.append(span('empty', C.t('noMoves')));
    li.style.display = 'block';
    list.append(li);
    renderCommentBox();
    return;
  }
  const tree = moveTree(g);
  moveTree.lastCount = tree.variations;
  const num = numbering(g);
  const start = noteOf(g, '');
  if (start && start.comment) list.append(commentEl(g, '', start, 'li'));
  let li = null;
  let node = tree;
  for (let i = 0; i <= g.moves.length; i++) {
    const next = node.children.find((c) => c.main);
    const alts = node.children.filter((c) => !c.main);
    if (next) {
      const { no, black } = num(next.depth);
      if (!black || li === null) {
        li = document.createElement('li');
        li.append(span('num', no + '.'));
        if (black) li.append(span('gap', '…'));
        list.append(li);
      }
      const s = span('mv' + (S.view === next.depth ? ' current' : ''), moveText(next.move) + nagText(noteOf(g, next.path)));
      s.dataset.ply = next.depth;
      s.dataset.path = next.path;
      s.addEventListener('click', () => C.goTo(next.depth));
      onContext(s, next.path);
      li.append(s);
      // PGN's order: the move, its comment, then the variations that replace it; the row is
      // closed after them (the next move starts a row of its own).
      const note = noteOf(g, next.path);
      const comment = note && note.comment;
      if (comment || alts.length) {
        if (!black && next.children.some((c) => c.main)) li.append(span('gap', '…'));
        if (comment) list.append(commentEl(g, next.path, note, 'li'));
        if (alts.length) list.append(varRow(g, node, alts, num));
        li = null;
      }
    } else if (alts.length) {
      list.append(varRow(g, node, alts, num));
    }
    if (!next) break;
    node = next;
  }
  scrollToCurrent(list, S);
  renderCommentBox();
}

// Scrolls the list only (never the page) to the current move.
function scrollToCurrent(list, S) {
  const cur = list.querySelector('.mv.current');
  if (cur) {
    const lr = list.getBoundingClientRect(), cr = cur.getBoundingClientRect();
    if (cr.top < lr.top || cr.bottom > lr.bottom) list.scrollTop += cr.top - lr.top - lr.height / 3;
  } else if (S.view === 0) list.scrollTop = 0;
  else list.scrollTop = list.scrollHeight;
}

// "Fold all / Unfold all", shown when the game has variations.
function renderTools(g) {
  const tools = $('var-tools');
  if (!tools) return;
  const n = g ? (g.lines || []).length : 0;
  tools.classList.toggle('hidden', n === 0);
  if (!n) return;
  $('var-count').textContent = C.t('variationsN', { n: moveTree(g).variations });
  $('var-fold').textContent = C.t('foldAll');
  $('var-unfold').textContent = C.t('unfoldAll');
}

function foldAll(v) {
  const g = C.state().game;
  if (!g) return;
  const tree = moveTree(g);
  const walk = (n) => {
    if (n.main && n.children.some((c) => !c.main)) setFold(g, 'm' + n.depth, v);
    n.children.forEach((c, i) => { if (!c.main && (i > 0 || !n.main)) setFold(g, c.path, v); walk(c); });
  };
  walk(tree);
  renderMoveList();
}

// ---------------------------------------------------------------------------------------
// The comment of the move shown (or of a clicked comment): read in full, edited, removed.

function currentPath() {
  const S = C.state();
  const g = S.game;
  if (!g) return null;
  return g.moves.slice(0, S.view).map((m) => m.uci).join(' ');
}

function pathLabel(g, path) {
  if (!path) return C.t('commentStart');
  const tree = moveTree(g);
  let n = tree;
  for (const u of path.split(' ')) { n = n && n.children.find((c) => c.uci === u); }
  if (!n) return C.t('comment');
  const { no, black } = numbering(g)(n.depth);
  return C.t('commentOn', { m: `${no}${black ? '…' : '.'} ${moveText(n.move)}` });
}

function openEditor(path) {
  editing = path;
  renderCommentBox();
  const ta = $('comment-text');
  if (ta) ta.focus();
}

export function renderCommentBox() {
  const box = $('comment-box');
  if (!box) return;
  const S = C.state();
  const g = S.game;
  box.textContent = '';
  if (!g || g.id == null || S.editor) { box.classList.add('hidden'); editing = null; return; }
  const path = editing ?? currentPath();
  const note = noteOf(g, path);
  box.classList.remove('hidden');
  const head = document.createElement('div');
  head.className = 'comment-head';
  head.append(span('label', pathLabel(g, path)));
  box.append(head);
  if (editing != null) {
    const ta = document.createElement('textarea');
    ta.id = 'comment-text';
    ta.rows = 3;
    ta.maxLength = 20000;
    ta.value = note ? note.comment : '';
    box.append(ta);
    const row = document.createElement('div');
    row.className = 'comment-buttons';
    const save = document.createElement('button');
    save.id = 'comment-save'; save.className = 'primary'; save.type = 'button'; save.textContent = C.t('save');
    save.addEventListener('click', () => saveComment(path, ta.value));
    const cancel = document.createElement('button');
    cancel.type = 'button'; cancel.textContent = C.t('cancel');
    cancel.addEventListener('click', () => { editing = null; renderCommentBox(); });
    row.append(save, cancel);
    if (note && note.comment) {
      const del = document.createElement('button');
      del.type = 'button'; del.textContent = C.t('removeComment');
      del.addEventListener('click', () => saveComment(path, ''));
      row.append(del);
    }
    box.append(row);
    ta.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); saveComment(path, ta.value); }
      if (e.key === 'Escape') { e.preventDefault(); editing = null; renderCommentBox(); }
    });
    return;
  }
  if (note && note.comment) {
    const p = document.createElement('p');
    p.className = 'comment-full';
    p.id = 'comment-current';
    p.textContent = note.comment;
    box.append(p);
  }
  const edit = document.createElement('button');
  edit.type = 'button'; edit.id = 'comment-edit'; edit.className = 'link';
  edit.textContent = note && note.comment ? C.t('editComment') : C.t('addComment');
  edit.addEventListener('click', () => openEditor(path));
  head.append(edit);
}

async function saveComment(path, text) {
  const g = C.state().game;
  try {
    const body = { path: path ? path.split(' ') : [], comment: text };
    const r = await C.api('POST', `/api/games/${g.id}/note`, body);
    editing = null;
    C.setGame(r, true);
  } catch (e) { C.toast(C.errText ? C.errText(e) : e.message); }
}

// ---------------------------------------------------------------------------------------
// The record's tags, above the move list.

const MAIN_TAGS = ['Event', 'Title', 'Round', 'Date', 'Site', 'Opening', 'Variation', 'ECCO', 'Result', 'Author', 'Annotator'];

export function renderTags() {
  const box = $('record-tags');
  if (!box) return;
  const g = C.state().game;
  box.textContent = '';
  const tags = (g && g.tags) || {};
  const names = Object.keys(tags).filter((k) => String(tags[k]).trim() && tags[k] !== '?');
  const shown = names.filter((k) => MAIN_TAGS.includes(k) || k === 'Red' || k === 'Black');
  if (!g || !shown.length || (g.mode === 'computer' && !tags.Event)) { box.classList.add('hidden'); return; }
  box.classList.remove('hidden');
  const t = C.t;
  const line = (cls) => { const d = document.createElement('div'); d.className = cls; box.append(d); return d; };
  const title = [tags.Event || tags.Title, tags.Round && `${t('tagRound')} ${tags.Round}`].filter(Boolean).join(' · ');
  if (title) line('tag-title').textContent = title;
  const where = [tags.Date, tags.Site].filter(Boolean).join(' · ');
  if (where) line('tag-meta').textContent = where;
  if (tags.Red || tags.Black) {
    const p = line('tag-players');
    p.append(span('dot red'), ' ', tags.Red || '?', ' – ', span('dot black'), ' ', tags.Black || '?');
    if (tags.Result && tags.Result !== '*') p.append(' ', span('tag-result', tags.Result));
  } else if (tags.Result && tags.Result !== '*') {
    line('tag-meta').textContent = `${t('tagResult')}: ${tags.Result}`;
  }
  const opening = [tags.ECCO, tags.Opening, tags.Variation].filter(Boolean).join(' ');
  if (opening) line('tag-opening').textContent = opening;
  const by = [tags.Author && `${t('tagAuthor')}: ${tags.Author}`, tags.Annotator && `${t('tagAnnotator')}: ${tags.Annotator}`];
  if (by.some(Boolean)) line('tag-meta').textContent = by.filter(Boolean).join(' · ');
  if (!box.children.length) { box.classList.add('hidden'); return; }
  // Every tag, as the record has it.
  const det = document.createElement('details');
  det.className = 'tag-all';
  const sum = document.createElement('summary');
  sum.textContent = t('moreTags', { n: names.length });
  det.append(sum);
  const dl = document.createElement('dl');
  for (const k of names) {
    const dt = document.createElement('dt'); dt.textContent = k;
    const dd = document.createElement('dd'); dd.textContent = tags[k]; dd.dataset.tag = k;
    dl.append(dt, dd);
  }
  det.append(dl);
  box.append(det);
}

export function wireMoveList() {
  $('var-fold').addEventListener('click', () => foldAll(true));
  $('var-unfold').addEventListener('click', () => foldAll(false));
}

// Called when the shown move changes: an open editor of another move's comment closes.
export function viewChanged() { editing = null; }
