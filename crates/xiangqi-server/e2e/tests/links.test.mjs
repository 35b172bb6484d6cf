// Shared position links (/?fen=) and the Chinese account of a ruling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, shot, BASE, api, eventually, expectText, expectCount, gameIdOf, expectGame,
} from '../lib.mjs';

async function gameCount() {
  return (await api('GET', '/api/games?limit=1')).data.total;
}

test('a shared position link saves nothing until a move is played', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const fen = '3aka3/4n4/4b4/4C4/p3p3p/9/2c6/2C6/4K4/9 w - - 0 1';
    const link = `${BASE}/?fen=${encodeURIComponent(fen)}`;
    const before = await gameCount();
    await page.goto(link);
    await page.waitForSelector('#pieces [data-at="e6"]');
    // The board shows the position; the address still holds the FEN; nothing was stored.
    await expectCount(page, '#pieces > g', 12);
    assert.equal(new URL(page.url()).searchParams.get('fen'), fen);
    await expectText(page, '#status', /not saved/);
    await page.reload();
    await page.waitForSelector('#pieces [data-at="e6"]');
    assert.equal(await gameCount(), before, 'opening and reloading the link stores no game');
    await shot(page, '10-shared-position');

    // The first move saves the position as an analysis game with that move.
    await page.click('rect.hit[data-sq="c2"]');
    await page.click('rect.hit[data-sq="g2"]');
    const id = await gameIdOf(page);
    await eventually(async () => assert.equal(await gameCount(), before + 1));
    await expectGame(id, (game) => {
      assert.equal(game.mode, 'analysis');
      assert.equal(game.start_fen, fen);
      assert.deepEqual(game.moves.map((m) => m.uci), ['c2g2']);
    });
    // Reloading now opens that game again, no duplicate.
    await page.reload();
    await expectCount(page, '#movelist .mv', 1);
    assert.equal(await gameCount(), before + 1);
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

test('a link with a bad FEN shows what is wrong and stores nothing', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    const before = await gameCount();
    await page.goto(`${BASE}/?fen=${encodeURIComponent('rnbakabnr/9/9 w')}`);
    await expectText(page, '#link-error', /does not hold a valid position: bad FEN/);
    assert.equal(await page.locator('#pieces > g').count(), 0, 'no half-drawn board');
    assert.equal(await gameCount(), before);
    await shot(page, '11-bad-link');
  } finally {
    await cleanup();
  }
});

test('the game-over message explains a perpetual check in Chinese', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    // Red checks with its chariot on every move; the 8th move makes the third repetition.
    const fen = '9/4k4/9/9/9/9/9/9/2p6/3K1RBc1 w - - 0 1';
    const r = await api('POST', '/api/games', {
      mode: 'two-player', fen, moves: ['f0e0', 'e8f8', 'e0f0', 'f8e8', 'f0e0', 'e8f8', 'e0f0'],
    });
    assert.equal(r.status, 201);
    await page.goto(BASE + '/');
    await page.evaluate(() => {
      const s = JSON.parse(localStorage.getItem('xiangqi.settings') || '{}');
      localStorage.setItem('xiangqi.settings', JSON.stringify({ ...s, lang: 'zh' }));
    });
    await page.goto(`${BASE}/?game=${r.data.id}`);
    await expectCount(page, '#movelist .mv', 7);
    await page.click('rect.hit[data-sq="f8"]');
    await page.click('rect.hit[data-sq="e8"]');
    await page.waitForSelector('#dlg-over[open]');
    const game = await expectGame(r.data.id, (g) => assert.equal(g.outcome?.reason, 'perpetual-check'));
    const text = await expectText(page, '#over-text', game.outcome.text_zh);
    assert.match(text, /^红方长将，判负：红方从第1回合（车四平五）到第4回合（车五平四）每着都将军。/);
    await shot(page, '12-perpetual-check-zh');
  } finally {
    await cleanup();
  }
});
