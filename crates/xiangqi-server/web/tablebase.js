// The endgame tablebase's panel beside the board (GET /api/tablebase, from `xiangqi serve
// --tb DIR`): in analysis and review (an analysis game, the engine lines on, or a game that
// has ended), when the position shown has a table, its exact result (who wins, mate in how
// many moves, the DTM in plies) and every legal move's, best first, a click playing the
// move. Hidden where no table holds the material (or the server has none); positions with
// more pieces than any table could hold are not asked about.

import { shownMove } from '/notation.js';

const $ = (id) => document.getElementById(id);

// No table holds more pieces than this (the largest sets generated have 8; a server may hold
// a few more): busier positions are not asked about.
const MAX_PIECES = 12;

function pieces(fen) {
  return (String(fen).split(' ')[0].match(/[a-zA-Z]/g) || []).length;
}

// The result for the side that played a move, from the value the API gives the position
// after it (for the opponent): its category and DTM in plies. A standard draw that the rule
// on perpetual check decides (`rules`, which this server's games apply) is a win or loss by
// the rule, with no DTM.
function moverValue(m) {
  if (m.category === 'loss') return { cat: 'win', dtm: -m.dtm + 1 };
  if (m.category === 'win') return { cat: 'loss', dtm: m.dtm + 1 };
  if (m.rules === 'loss-by-rule') return { cat: 'win-by-rule', dtm: null };
  if (m.rules === 'win-by-rule') return { cat: 'loss-by-rule', dtm: null };
  return { cat: m.category, dtm: null };
}

// `ctx`: { t, settings, api, fen() (the position shown, or null when the panel does not
// apply: not analysis or review), play(uci) }.
export function setupTablebase(ctx) {
  const { t, settings } = ctx;
  const T = { seq: 0, shown: null };

  // "mate in 3 moves" / "mated in 2 moves" for a DTM in plies.
  function mateText(cat, dtm) {
    if (cat === 'win') return t('tbMateIn', { n: (dtm + 1) / 2 });
    if (cat === 'loss') return dtm === 0 ? t('tbMatedNow') : t('tbMatedIn', { n: dtm / 2 });
    return '';
  }

  function cell(text, cls) {
    const td = document.createElement('td');
    if (cls) td.className = cls;
    if (text != null) td.textContent = text;
    return td;
  }

  function draw(ans, fen, failed) {
    const panel = $('tablebase');
    const tbody = $('tb-moves').querySelector('tbody');
    tbody.textContent = '';
    $('tb-note').textContent = failed ? `${t('tbFailed')}: ${failed}` : '';
    const known = ans && ans.category !== 'unknown' && ans.set;
    panel.classList.toggle('hidden', !known && !failed);
    if (!known) { $('tb-result').textContent = ''; $('tb-set').textContent = ''; return; }
    $('tb-set').textContent = ans.set;
    const side = fen.split(' ')[1] === 'b' ? t('black') : t('red');
    const res = $('tb-result');
    const byRule = ans.category === 'draw' && /-by-rule$/.test(ans.rules || '');
    res.className = 'tb-result tb-' + (byRule ? ans.rules : ans.category);
    if (byRule) res.textContent = t(ans.rules === 'win-by-rule' ? 'tbWinsByRule' : 'tbLosesByRule', { side });
    else if (ans.category === 'draw') res.textContent = t('tbDraw');
    else {
      const dtm = Math.abs(ans.dtm);
      const who = ans.category === 'win' ? t('tbWins', { side }) : t('tbLoses', { side });
      res.textContent = `${who}: ${mateText(ans.category, dtm)}` + (dtm ? ` (${t('tbDtm', { n: dtm })})` : '');
    }
    for (const m of ans.moves) {
      const v = moverValue(m);
      const tr = document.createElement('tr');
      tr.dataset.testid = 'tablebase-move';
      tr.dataset.uci = m.uci;
      tr.dataset.category = v.cat;
      tr.tabIndex = 0;
      const name = shownMove({ iccs: m.uci, wxf: m.wxf, chinese: m.chinese }, settings.notation, settings.lang);
      const word = {
        win: t('tbResWin'), 'win-by-rule': t('tbResWinByRule'), draw: t('tbResDraw'),
        'loss-by-rule': t('tbResLossByRule'), loss: t('tbResLoss'),
      }[v.cat] || t('tbResUnknown');
      tr.append(
        cell(name, 'ex-mv'),
        cell(word, 'tb-cat tb-' + v.cat),
        cell(v.dtm != null ? mateText(v.cat, v.dtm) : '', 'tb-dtm'),
      );
      tr.title = v.dtm != null ? t('tbDtm', { n: v.dtm }) : (/-by-rule$/.test(v.cat) ? t('tbByRuleHint') : '');
      const play = () => ctx.play(m.uci);
      tr.addEventListener('click', play);
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); play(); } });
      tbody.append(tr);
    }
  }

  async function render() {
    const fen = ctx.fen();
    if (!fen || pieces(fen) > MAX_PIECES) { T.shown = null; T.seq++; draw(null, fen); return; }
    if (T.shown === fen + ' ' + settings.notation + ' ' + settings.lang) return;
    T.shown = fen + ' ' + settings.notation + ' ' + settings.lang;
    const seq = ++T.seq;
    try {
      const ans = await ctx.api('GET', `/api/tablebase?fen=${encodeURIComponent(fen)}`);
      if (seq === T.seq) draw(ans, fen);
    } catch (e) {
      if (seq === T.seq) { T.shown = null; draw(null, fen, e.message); }
    }
  }
  return { render };
}
