// The speed a player feels, measured (and printed, not asserted: timings are figures for
// docs/PERFORMANCE.md, not pass/fail): the bytes of a first load of the game and live pages
// as they come over the wire (compressed; asserted under 100 KB, a size, not a time), and a
// live move's times on loopback: from the click to the piece on its new point, and to the
// server's answer (the POST's round trip), over 20 moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, BASE, api, eventually } from '../lib.mjs';

// The bytes the page's load took over the wire: the document and every resource.
async function loadBytes(page) {
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource');
    return {
      total: (nav ? nav.transferSize : 0) + res.reduce((s, r) => s + r.transferSize, 0),
      decoded: (nav ? nav.decodedBodySize : 0) + res.reduce((s, r) => s + r.decodedBodySize, 0),
      files: res.length + 1,
    };
  });
}

function pct(v, p) {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * p) - 1)];
}

test('first loads under 100 KB compressed; a live move on screen and answered (figures printed)', { timeout: 120000 }, async () => {
  const g = (await api('POST', '/api/games', { mode: 'two-player' })).data;
  const live = (await api('POST', '/api/challenge/open', {})).data;
  for (const [name, p] of [['game', `/?game=${g.id}`], ['live', `/live/${live.id}#seat=${live.tokenRed}`]]) {
    const a = await launch();
    try {
      const page = await a.context.newPage();
      // (The live page's stream stays open: no "network idle" there; the board drawn and a
      // moment after is the load.)
      await page.goto(BASE + p, { waitUntil: 'load' });
      await page.waitForSelector('#board rect.hit');
      await page.waitForTimeout(1500);
      const b = await loadBytes(page);
      console.log(`first load of the ${name} page: ${(b.total / 1024).toFixed(1)} KB over the wire (${(b.decoded / 1024).toFixed(1)} KB decoded), ${b.files} files`);
      assert.ok(b.total < 100 * 1024, `the ${name} page's first load is ${b.total} bytes`);
    } finally {
      await a.cleanup();
    }
  }

  // A live game: each side plays by clicks; per move, the click's time to the piece drawn on
  // its point and to the POST's answer.
  const a = await launch(), b = await launch();
  try {
    const red = await a.context.newPage();
    const black = await b.context.newPage();
    await red.goto(`${BASE}/live/${live.id}#seat=${live.tokenRed}`);
    await black.goto(`${BASE}/live/${live.id}#seat=${live.tokenBlack}`);
    for (const p of [red, black]) {
      await p.waitForSelector('#board rect.hit');
      // In the page, on its own clock: when the second click came, and when the piece was
      // first drawn on the point it was sent to after it.
      await p.addScriptTag({ content: `
        const board = document.getElementById('board');
        board.addEventListener('pointerdown', () => { window.__down = performance.now(); }, true);
        new MutationObserver(() => {
          if (window.__want && window.__drawn == null && document.querySelector('#pieces [data-at="' + window.__want + '"]')) {
            window.__drawn = performance.now();
          }
        }).observe(board, { childList: true, subtree: true });
      ` });
    }
    // An opening of 20 moves that repeats no position and ends nothing.
    const moves = ['a3a4', 'a6a5', 'c3c4', 'c6c5', 'e3e4', 'e6e5', 'g3g4', 'g6g5', 'i3i4', 'i6i5',
      'h0g2', 'h9g7', 'b0c2', 'b9c7', 'a0a1', 'a9a8', 'i0i1', 'i9i8', 'a1d1', 'a8d8'];
    const shown = [], answered = [];
    for (let i = 0; i < moves.length; i++) {
      const page = i % 2 ? black : red;
      const m = moves[i];
      await eventually(async () => assert.equal((await api('GET', `/api/board/game/${live.id}`)).data.state.moves.split(' ').filter(Boolean).length, i));
      await eventually(async () => assert.match(await page.textContent('#live-status'), /Your move/));
      await page.click(`rect.hit[data-sq="${m.slice(0, 2)}"]`);
      const before = await page.evaluate((to) => {
        window.__want = to; window.__drawn = null;
        return performance.getEntriesByType('resource').length;
      }, m.slice(2, 4));
      await page.click(`rect.hit[data-sq="${m.slice(2, 4)}"]`);
      const t = await page.evaluate(async (n) => {
        for (;;) {
          const post = performance.getEntriesByType('resource').slice(n).find((e) => /\/move\//.test(e.name) && e.responseEnd > 0);
          if (post && window.__drawn != null) return { drawn: window.__drawn - window.__down, answered: post.responseEnd - window.__down };
          await new Promise((r) => setTimeout(r, 5));
        }
      }, before);
      shown.push(t.drawn); answered.push(t.answered);
    }
    const f = (v) => `median ${pct(v, 0.5).toFixed(1)} ms, p95 ${pct(v, 0.95).toFixed(1)} ms, max ${Math.max(...v).toFixed(1)} ms`;
    console.log(`a live move, ${moves.length} moves: click -> piece on its point: ${f(shown)}; click -> the server's answer: ${f(answered)}`);
    assert.equal((await api('GET', `/api/board/game/${live.id}`)).data.state.moves, moves.join(' '));
  } finally {
    await a.cleanup(); await b.cleanup();
  }
});
