// Game review (review.js): the graph, the marks in the move list, a click on the graph, the
// next mistake with the better move as an arrow, and cancelling a review. Depths are small.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, shot, BASE, api, eventually, expectText, expectCount, expectAttribute,
} from '../lib.mjs';

async function english(page) {
  await page.goto(BASE + '/');
  await page.evaluate(() => {
    const s = JSON.parse(localStorage.getItem('xiangqi.settings') || '{}');
    localStorage.setItem('xiangqi.settings', JSON.stringify({ ...s, lang: 'en', notation: 'iccs' }));
  });
}

test('a review draws the graph, marks the blunder, and the graph and next mistake move the board', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // 2. C5+4?? takes the central soldier and loses the cannon to the knight.
    const r = await api('POST', '/api/games', { mode: 'two-player', moves: ['h2e2', 'h9g7', 'e2e6', 'g7e6', 'h0g2', 'i9h9'] });
    assert.equal(r.status, 201);
    const id = r.data.id;
    await english(page);
    await page.goto(`${BASE}/?game=${id}`);
    await expectCount(page, '#movelist .mv', 6);
    await page.selectOption('#rv-depth', '10');
    await page.click('#btn-review');
    // The graph is drawn when the review is done; the planted blunder is marked in the list
    // and on the graph (the engine may find more faults at a small depth: at least this one).
    await expectCount(page, '#rv-graph path.rv-line', 1, { timeout: 60000 });
    await expectCount(page, '#movelist .mv[data-ply="3"].rv-blunder', 1);
    await expectText(page, '#movelist .mv[data-ply="3"] .rv-glyph', '??');
    await expectCount(page, '#rv-graph circle.rv-blunder[data-ply="3"]', 1);
    await expectText(page, '#rv-red', /^Red: accuracy \d+\.\d% · \d+ inaccurac(y|ies), \d+ mistakes?, [1-9]\d* blunders?$/);
    await expectText(page, '#rv-black', /^Black: accuracy \d+\.\d%/);
    await shot(page, '20-review');
    // A click on the graph's left fifth goes to the first move.
    const box = await page.locator('#rv-graph').boundingBox();
    await page.mouse.click(box.x + box.width * 0.17, box.y + box.height / 2);
    await expectAttribute(page, '#movelist .mv.current', 'data-ply', '1');
    // Red's next mistake: the position before 2. e2e6, with the better move as an arrow and a line.
    await page.click('#rv-next-red');
    await expectAttribute(page, '#movelist .mv.current', 'data-ply', '2');
    await expectCount(page, '[data-testid="better-arrow"]', 1);
    await expectText(page, '#rv-better', /^Blunder: [a-i]\d[a-i]\d was better/);
    await expectText(page, '[data-testid="better-line"]', /^[a-i]\d[a-i]\d( [a-i]\d[a-i]\d)*$/);
    // A click on the graph's right end goes to the last move; no arrow there.
    await page.mouse.click(box.x + box.width - 1, box.y + box.height / 2);
    await expectAttribute(page, '#movelist .mv.current', 'data-ply', '6');
    await expectCount(page, '[data-testid="better-arrow"]', 0);
    // Kept with the game: a reload shows it again without reviewing.
    await page.reload();
    await expectCount(page, '#movelist .mv[data-ply="3"].rv-blunder', 1);
    // In Chinese the texts are Chinese.
    await page.evaluate(() => {
      const s = JSON.parse(localStorage.getItem('xiangqi.settings') || '{}');
      localStorage.setItem('xiangqi.settings', JSON.stringify({ ...s, lang: 'zh' }));
    });
    await page.reload();
    await expectText(page, '#rv-red', /^红方: 准确率 \d+\.\d%.*[1-9] 次败着/);
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

test('a running review shows its progress and can be cancelled', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // A game of 60 plies, each move chosen from the legal list (the server's own).
    const r = await api('POST', '/api/games', { mode: 'two-player' });
    const id = r.data.id;
    let g = r.data;
    for (let ply = 0; ply < 60 && !g.outcome; ply++) {
      const mv = g.legal[(ply * 7) % g.legal.length];
      const m = await api('POST', `/api/games/${id}/moves`, { move: mv });
      assert.equal(m.status, 200, JSON.stringify(m.data));
      g = (await api('GET', `/api/games/${id}`)).data;
    }
    await english(page);
    await page.goto(`${BASE}/?game=${id}`);
    await expectCount(page, '#movelist .mv', g.moves.length);
    await page.selectOption('#rv-depth', '14');
    await page.click('#btn-review');
    await expectText(page, '[data-testid="review-progress"]', /^Reviewing: \d+ of \d+ positions$/);
    await page.click('#rv-cancel');
    await expectText(page, '[data-testid="review-state"]', 'The review was cancelled.', { timeout: 30000 });
    await eventually(async () => {
      const s = await api('GET', `/api/games/${id}/review`);
      assert.equal(s.data.state, 'cancelled');
    });
    await expectCount(page, '#rv-graph path', 0);
    await expectCount(page, '#movelist .mv.rv-blunder', 0);
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

test('an ended online game is reviewed from its live page', async () => {
  const { context, cleanup } = await launch();
  try {
    // The whole suite may have spent this client's budget for new games (20, then one every
    // 3 s): wait for it rather than fail.
    let open;
    for (let i = 0; i < 10; i++) {
      open = await api('POST', '/api/challenge/open', { color: 'red', red: 'Ann', black: 'Bo' });
      if (open.status !== 429) break;
      await new Promise((r) => setTimeout(r, 3500));
    }
    assert.equal(open.status, 200, JSON.stringify(open.data));
    const ch = open.data;
    const act = async (token, path) => {
      const res = await fetch(`${BASE}/api/board/game/${ch.id}/${path}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200, `${path}: ${await res.text()}`);
    };
    for (const [i, m] of ['h2e2', 'h9g7', 'e2e6', 'g7e6'].entries()) await act(i % 2 ? ch.tokenBlack : ch.tokenRed, 'move/' + m);
    await act(ch.tokenRed, 'resign');
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await english(page);
    await page.goto(BASE + ch.url);
    await page.waitForSelector('[data-testid="live-review"]', { state: 'visible' });
    await page.click('[data-testid="live-review"]');
    await page.waitForURL(/\/\?game=\d+&review=1$/);
    await expectCount(page, '#rv-graph path.rv-line', 1, { timeout: 60000 });
    await expectCount(page, '#movelist .mv[data-ply="3"].rv-blunder', 1);
    const id = new URL(page.url()).searchParams.get('game');
    const g = (await api('GET', `/api/games/${id}`)).data;
    assert.equal(g.tags.Red, 'Ann');
    assert.deepEqual(g.moves.map((m) => m.uci), ['h2e2', 'h9g7', 'e2e6', 'g7e6']);
    // Review again from the live page: the same game, its review shown, not made again.
    const before = (await api('GET', '/api/games?limit=1')).data.total;
    const created = (await api('GET', `/api/games/${id}/review`)).data.review.created;
    await page.goto(BASE + ch.url);
    await page.waitForSelector('[data-testid="live-review"]', { state: 'visible' });
    await page.click('[data-testid="live-review"]');
    await page.waitForURL(new RegExp(`/\\?game=${id}&review=1$`));
    await expectCount(page, '#movelist .mv[data-ply="3"].rv-blunder', 1);
    assert.equal((await api('GET', '/api/games?limit=1')).data.total, before);
    const again = (await api('GET', `/api/games/${id}/review`)).data;
    assert.equal(again.state, 'done');
    assert.equal(again.review.created, created);
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});
