// The opening explorer's panel beside the board (GET /api/explorer/{db}): the position
// shown's moves with how often each was played and how those games ended (a bar of Red wins,
// draws and Black wins), most played first, a click playing the move; and its best games.
// "Explorer" opens and closes it (remembered); it follows the position shown.

import { shownMove } from '/notation.js';

const $ = (id) => document.getElementById(id);

export { hanViet, openingName } from '/openings.js';

// The opening of a game's main line at ply `v` (the moves as the API gives them, a move that
// reaches a named position carrying it): the last one given up to there.
export function openingAt(moves, v) {
  for (let i = Math.min(v, moves.length); i > 0; i--) if (moves[i - 1].opening) return moves[i - 1].opening;
  return null;
}

// `ctx`: { t, settings, saveSettings, api, fen() (the position shown, or null), play(uci)
// (plays the move if the game allows it) }.
export function setupExplorer(ctx) {
  const { t, settings } = ctx;
  const E = { seq: 0, shown: null };

  function pct(n, of) { return of ? (100 * n) / of : 0; }
  function cell(text, cls) {
    const td = document.createElement('td');
    if (cls) td.className = cls;
    if (text != null) td.textContent = text;
    return td;
  }

  // The bar of a move's (or the position's) results.
  function bar(r) {
    const total = r.red + r.draws + r.black;
    const b = document.createElement('div');
    b.className = 'ex-bar';
    b.title = `${t('exResults')}: ${r.red} / ${r.draws} / ${r.black}`;
    for (const [k, n] of [['red', r.red], ['draw', r.draws], ['black', r.black]]) {
      const s = document.createElement('span');
      s.className = 'ex-' + k;
      s.style.width = pct(n, total).toFixed(1) + '%';
      const p = Math.round(pct(n, total));
      if (p >= 12) s.textContent = p + '%';
      b.append(s);
    }
    return b;
  }

  function draw(ans, failed) {
    const tbody = $('ex-moves').querySelector('tbody');
    tbody.textContent = '';
    $('ex-games').textContent = '';
    $('ex-note').textContent = failed ? `${t('exFailed')}: ${failed}` : '';
    if (!ans) return;
    if (!ans.moves.length) $('ex-note').textContent = t('exNone');
    for (const m of ans.moves) {
      const tr = document.createElement('tr');
      tr.dataset.testid = 'explorer-move';
      tr.dataset.uci = m.uci;
      tr.tabIndex = 0;
      const games = m.red + m.draws + m.black;
      const name = shownMove({ iccs: m.uci, wxf: m.wxf, chinese: m.chinese }, settings.notation, settings.lang);
      const res = cell(null, 'ex-res');
      res.append(bar(m));
      tr.append(cell(name, 'ex-mv'), cell(String(games), 'ex-n'), res, cell(m.averageRating != null ? String(m.averageRating) : '', 'ex-n'));
      const play = () => ctx.play(m.uci);
      tr.addEventListener('click', play);
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); play(); } });
      tbody.append(tr);
    }
    if (ans.topGames.length) {
      const h = document.createElement('div');
      h.className = 'ex-top-head';
      h.textContent = t('exTop');
      $('ex-games').append(h);
      for (const g of ans.topGames) {
        // A game of this site opens on its page (/live/ID); a masters game is known to the
        // index only by its header and where it came from (the record's file and number).
        const site = /^site (\S+)$/.exec(g.source || '');
        const d = document.createElement(site ? 'a' : 'div');
        d.className = 'ex-game';
        d.dataset.testid = 'explorer-game';
        if (site) { d.href = '/live/' + encodeURIComponent(site[1]); d.dataset.open = 'live'; }
        const rating = (p) => (p.rating ? ` (${p.rating})` : '');
        const result = g.winner === 'red' ? '1-0' : g.winner === 'black' ? '0-1' : '½-½';
        const date = g.date ? String(g.date).replace(/^(\d{4})(\d\d)(\d\d)$/, '$1.$2.$3').replace(/\.00/g, '') : '';
        d.textContent = `${g.red.name}${rating(g.red)} – ${g.black.name}${rating(g.black)} ${result} ${date}`.trim();
        d.title = site ? t('exOpenGame') : g.source || '';
        $('ex-games').append(d);
      }
    }
  }

  async function render() {
    const open = !!settings.explorer;
    $('explorer').classList.toggle('hidden', !open);
    $('btn-explorer').classList.toggle('primary', open);
    $('btn-explorer').setAttribute('aria-pressed', open ? 'true' : 'false');
    if (!open) return;
    const fen = ctx.fen();
    const db = $('ex-db').value;
    const key = db + ' ' + fen;
    if (!fen) { draw(null); return; }
    if (E.shown === key) return;
    E.shown = key;
    const seq = ++E.seq;
    try {
      const ans = await ctx.api('GET', `/api/explorer/${db}?fen=${encodeURIComponent(fen)}&moves=20`);
      if (seq === E.seq) draw(ans);
    } catch (e) {
      if (seq === E.seq) { E.shown = null; draw(null, e.message); }
    }
  }

  $('btn-explorer').addEventListener('click', () => {
    settings.explorer = !settings.explorer;
    ctx.saveSettings();
    render();
  });
  $('ex-db').addEventListener('change', () => { E.shown = null; render(); });
  return { render };
}
