// Game review in the app: starts the server's review of the game shown (POST
// /api/games/{id}/review), follows its progress, can cancel it, and shows the stored result:
// an evaluation graph (SVG; a click goes to that move), marks on the inaccuracies, mistakes and
// blunders in the move list, "next mistake" for each side, the better move as an arrow on the
// board and as a line, and each side's accuracy. Native ES module, no build step; the texts come
// from app.js's table (English and Chinese) through ctx.t.
import { el } from '/board.js';
import { shownMove } from '/notation.js';
import { currentLang } from '/i18n.js';

const GLYPH = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const W = 300, H = 80;

// ctx: { api, t, toast, game(), view(), goTo(ply), notation(), xy(sq), rerender() }
export function setupReview(ctx) {
  const $ = (id) => document.getElementById(id);
  const R = { id: null, line: null, status: null, polling: null };
  const lineOf = (g) => (g ? g.moves.map((m) => m.uci).join(' ') : null);

  function reviewable() {
    const g = ctx.game();
    return !!g && g.id != null && g.moves.length > 0 && (!!g.outcome || g.mode !== 'computer');
  }

  // The review to show: the stored one when it is of the game's main line now.
  function shown() {
    const s = R.status;
    if (!s || !s.review || s.stale) return null;
    return s.review;
  }

  async function load(id) {
    if (R.polling) { clearTimeout(R.polling); R.polling = null; }
    R.id = id; R.line = lineOf(ctx.game()); R.status = null;
    if (id == null) { render(); return; }
    try { R.status = await ctx.api('GET', `/api/games/${id}/review`); } catch { R.status = null; }
    if (R.id !== id) return;
    if (R.status && R.status.state === 'running') poll(id);
    ctx.rerender();
  }

  function poll(id) {
    R.polling = setTimeout(async () => {
      R.polling = null;
      if (R.id !== id) return;
      try { R.status = await ctx.api('GET', `/api/games/${id}/review`); } catch (e) { ctx.toast(ctx.errText ? ctx.errText(e) : e.message); return; }
      if (R.id !== id) return;
      // While it runs only the panel changes (a whole render would disturb a piece being
      // dragged); when it ends, the board and the move list get the marks and the arrow.
      if (R.status.state === 'running') { poll(id); render(); } else ctx.rerender();
    }, 400);
  }

  async function startReview() {
    const g = ctx.game();
    if (!reviewable()) return;
    try {
      R.id = g.id; R.line = lineOf(g);
      R.status = await ctx.api('POST', `/api/games/${g.id}/review`, { depth: +($('rv-depth').value || 10) });
      if (R.status.state === 'running') poll(g.id);
      ctx.rerender();
    } catch (e) { ctx.toast(ctx.errText ? ctx.errText(e) : e.message); }
  }

  async function cancel() {
    const id = R.id;
    if (id == null) return;
    try {
      R.status = await ctx.api('DELETE', `/api/games/${id}/review`);
      if (R.status.state === 'running' && !R.polling) poll(id);
    } catch (e) { ctx.toast(ctx.errText ? ctx.errText(e) : e.message); }
    ctx.rerender();
  }

  function nextMistake(side) {
    const r = shown();
    if (!r) return;
    const view = ctx.view();
    const bad = r.moves.filter((m) => m.mover === side && (m.kind === 'mistake' || m.kind === 'blunder' || m.kind === 'inaccuracy'));
    if (!bad.length) { ctx.toast(ctx.t('rvNoMistakes')); return; }
    // The position before the next bad move after the one shown (wrapping round).
    const next = bad.find((m) => m.ply - 1 > view) || bad[0];
    ctx.goTo(next.ply - 1);
  }

  function kindText(k) { return ctx.t('rv_' + k); }
  function moveName(list, i) {
    const u = list.better[i];
    const names = { iccs: u, wxf: list.better_wxf && list.better_wxf[i], chinese: list.better_chinese && list.better_chinese[i] };
    return ctx.notation() === 'iccs' ? u : shownMove(names, ctx.notation(), currentLang()) || u;
  }

  function sideText(side, s) {
    const acc = s.accuracy == null ? '–' : s.accuracy.toFixed(1) + '%';
    const sep = ctx.t('rvSep');
    const counts = [ctx.t('rvInaccuracies', { n: s.inaccuracies }), ctx.t('rvMistakes', { n: s.mistakes }), ctx.t('rvBlunders', { n: s.blunders })].join(sep);
    return `${ctx.t(side)}: ${ctx.t('rvAccuracy')} ${acc} · ${counts}`;
  }

  function drawGraph(r) {
    const svg = $('rv-graph');
    svg.textContent = '';
    const n = r.moves.length;
    const xOf = (ply) => (n ? (ply / n) * W : 0);
    const yOf = (win) => H - (win / 100) * H;
    el('rect', { x: 0, y: 0, width: W, height: H, class: 'rv-bg' }, svg);
    const pts = [[0, yOf(r.start_red_win)]].concat(r.moves.map((m) => [xOf(m.ply), yOf(m.red_win)]));
    const area = `M0,${H} ` + pts.map(([x, y]) => `L${x.toFixed(1)},${y.toFixed(1)}`).join(' ') + ` L${W},${H} Z`;
    el('path', { d: area, class: 'rv-area' }, svg);
    el('path', { d: 'M' + pts.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' L'), class: 'rv-line' }, svg);
    el('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'rv-mid' }, svg);
    for (const m of r.moves) {
      if (!m.kind) continue;
      el('circle', { cx: xOf(m.ply), cy: yOf(m.red_win), r: m.kind === 'blunder' ? 3.5 : 2.5, class: 'rv-dot rv-' + m.kind, 'data-ply': m.ply }, svg);
    }
    const v = ctx.view();
    el('line', { x1: xOf(v), y1: 0, x2: xOf(v), y2: H, class: 'rv-cursor' }, svg);
  }

  function graphClick(evt) {
    const r = shown();
    if (!r || !r.moves.length) return;
    const svg = $('rv-graph');
    const box = svg.getBoundingClientRect();
    const frac = Math.max(0, Math.min(1, (evt.clientX - box.left) / box.width));
    ctx.goTo(Math.round(frac * r.moves.length));
  }

  // Marks in the move list: every `.mv[data-ply]` of a judged move gets its glyph and class.
  // The list (movelist.js) is rebuilt only when the game changes, so the marks are made
  // afresh each time: the old ones are taken off first (none are left without a review).
  function markMoves(r) {
    const byPly = new Map(r ? r.moves.map((m) => [m.ply, m]) : []);
    for (const s of document.querySelectorAll('#movelist .mv[data-ply]')) {
      s.classList.remove('rv-inaccuracy', 'rv-mistake', 'rv-blunder');
      for (const old of s.querySelectorAll('.rv-glyph')) old.remove();
      const m = byPly.get(+s.dataset.ply);
      if (!m || !m.kind) continue;
      s.classList.add('rv-' + m.kind);
      const g = document.createElement('span');
      g.className = 'rv-glyph';
      g.title = kindText(m.kind) + ' · ' + m.eval_text;
      g.textContent = GLYPH[m.kind];
      s.append(g);
    }
  }

  // The judged move after the position shown, when it was bad: its text and the better line.
  function badNext(r) {
    const m = r.moves[ctx.view()];
    return m && m.kind && m.better.length ? m : null;
  }

  function render() {
    // The panel is shown for a game that can be reviewed (its head: depth and Review), or
    // one with a review stored.
    const box = $('review');
    const g = ctx.game();
    const s = R.status && g && R.id === g.id ? R.status : null;
    const can = reviewable();
    box.classList.toggle('hidden', !can && !(s && s.review));
    const running = !!s && s.state === 'running';
    $('btn-review').disabled = !can || running;
    $('rv-depth').disabled = !can || running;
    if (!s) {
      for (const id of ['rv-progress-row', 'rv-cancel', 'rv-result']) $(id).classList.add('hidden');
      $('rv-state').textContent = '';
      markMoves(null);
      return;
    }
    $('rv-progress-row').classList.toggle('hidden', !running);
    $('rv-cancel').classList.toggle('hidden', !running);
    if (running) {
      $('rv-progress').max = s.total || 1;
      $('rv-progress').value = s.done || 0;
      $('rv-progress-text').textContent = ctx.t('rvProgress', { done: s.done || 0, total: s.total || 0 });
    }
    let state = '';
    if (s.state === 'cancelled') state = ctx.t('rvCancelled');
    else if (s.state === 'failed') state = ctx.t('rvFailed') + (s.error ? ': ' + s.error : '');
    else if (s.stale && !running) state = ctx.t('rvStale');
    $('rv-state').textContent = state;
    const r = shown();
    $('rv-result').classList.toggle('hidden', !r);
    markMoves(r);
    if (!r) return;
    $('rv-red').textContent = sideText('red', r.red);
    $('rv-black').textContent = sideText('black', r.black);
    drawGraph(r);
    const bad = badNext(r);
    const better = $('rv-better');
    better.textContent = '';
    if (bad) {
      const head = document.createElement('div');
      head.className = 'rv-' + bad.kind;
      head.textContent = ctx.t('rvBetter', { kind: kindText(bad.kind), move: moveName(bad, 0) });
      better.append(head);
      const line = document.createElement('div');
      line.className = 'rv-line-text';
      line.dataset.testid = 'better-line';
      line.textContent = bad.better.map((_, i) => moveName(bad, i)).join(' ');
      better.append(line);
    } else {
      const m = r.moves[ctx.view() - 1];
      if (m) better.textContent = ctx.t('rvEval', { e: m.eval_text });
    }
  }

  // The better move as an arrow on the board (drawn by app.js's render, after the pieces).
  function drawArrow(svg) {
    const r = shown();
    if (!r) return;
    const bad = badNext(r);
    if (!bad) return;
    const m = bad.better[0];
    const [x1, y1] = ctx.xy(m.slice(0, 2)), [x2, y2] = ctx.xy(m.slice(2, 4));
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const ex = x2 - ((x2 - x1) / len) * 14, ey = y2 - ((y2 - y1) / len) * 14;
    el('line', { x1, y1, x2: ex, y2: ey, class: 'arrow rv-arrow', 'marker-end': 'url(#ah)', 'data-testid': 'better-arrow' }, svg);
  }

  // movelist.js rebuilds the list on its own too (folding a variation): mark it again then.
  // (Only the list's rows are watched; the marks change spans inside them.)
  new MutationObserver(() => markMoves(shown())).observe($('movelist'), { childList: true });

  $('btn-review').addEventListener('click', startReview);
  $('rv-cancel').addEventListener('click', cancel);
  $('rv-graph').addEventListener('click', graphClick);
  $('rv-next-red').addEventListener('click', () => nextMistake('red'));
  $('rv-next-black').addEventListener('click', () => nextMistake('black'));

  return {
    // Called when the game shown changes (another id).
    // Called when the game shown is set: another game, or the same with another main line
    // (the stored review may be stale now: the server says).
    gameChanged(g) { if (!g || g.id !== R.id || lineOf(g) !== R.line) load(g ? g.id : null); },
    render,
    drawArrow,
    start: startReview,
    // Starts a review unless the game has one of its main line now (or one is running).
    async startIfNone() {
      const g = ctx.game();
      if (!reviewable()) return;
      try {
        const st = await ctx.api('GET', `/api/games/${g.id}/review`);
        if (st.state === 'running' || (st.review && !st.stale)) { await load(g.id); return; }
      } catch { /* start it */ }
      await startReview();
    },
  };
}
