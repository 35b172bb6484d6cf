// Analysis variations: stepping back and playing another move keeps the old line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, shot, BASE, api, expectText, expectValue, expectCount, expectAttribute, expectGame,
} from '../lib.mjs';

test('an analysis board keeps the replaced line as a variation, shown and clickable', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const r = await api('POST', '/api/games', { mode: 'analysis', moves: ['h2e2', 'h9g7', 'h0g2'] });
    assert.equal(r.status, 201);
    const id = r.data.id;
    await page.goto(BASE + '/');
    await page.evaluate(() => {
      const s = JSON.parse(localStorage.getItem('xiangqi.settings') || '{}');
      localStorage.setItem('xiangqi.settings', JSON.stringify({ ...s, lang: 'en', notation: 'iccs' }));
    });
    await page.goto(`${BASE}/?game=${id}`);
    await page.waitForFunction(() => document.querySelectorAll('#movelist .mv').length === 3);
    // Step back to after 1. h2e2 and play the other horse.
    await page.click('#movelist .mv[data-ply="1"]');
    await page.click('rect.hit[data-sq="b9"]');
    await page.click('rect.hit[data-sq="c7"]');
    await expectCount(page, '#movelist li.var', 1);
    await expectCount(page, '#movelist .mv', 2);
    await expectText(page, '#movelist li.var', /\(1….*H9-G7.*2\..*H0-G2\)/);
    await expectGame(id, (game) => {
      assert.deepEqual(game.moves.map((m) => m.uci), ['h2e2', 'b9c7']);
      assert.deepEqual(game.lines.map((l) => l.uci), [['h2e2', 'h9g7', 'h0g2']]);
    });
    await shot(page, '13-variation');
    // The export has it in parentheses.
    await page.click('#btn-share');
    await expectValue(page, '#share-pgn-text', /\(1\.\.\. H9-G7 2\. H0-G2\)|\(1\.\.\. h9g7 2\. h0g2\)/);
    await page.click('#dlg-share .close');
    // Clicking into the variation makes it the main line and shows the clicked move.
    await page.locator('#movelist .vmv').nth(1).click();
    await expectCount(page, '#movelist .mv', 3);
    await expectGame(id, (game) => {
      assert.deepEqual(game.moves.map((m) => m.uci), ['h2e2', 'h9g7', 'h0g2']);
      assert.deepEqual(game.lines.map((l) => l.uci), [['h2e2', 'b9c7']]);
    });
    await expectAttribute(page, '#movelist .mv.current', 'data-ply', '3');
    // A reload shows the variation again.
    await page.reload();
    await expectCount(page, '#movelist li.var', 1);
    await expectText(page, '#movelist li.var', /B9-C7/);
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

test('a finished analysis game can still be explored from an earlier move', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // A draw by repetition after 8 moves.
    const fen = '3aka3/4n4/4b4/4C4/p3p3p/9/2c6/2C6/4K4/9 w - - 0 1';
    const main = ['c2g2', 'c3g3', 'g2c2', 'g3c3', 'c2g2', 'c3g3', 'g2c2', 'g3c3'];
    const r = await api('POST', '/api/games', { mode: 'analysis', fen, moves: main });
    assert.equal(r.status, 201);
    assert.equal(r.data.outcome.reason, 'repetition');
    await page.goto(`${BASE}/?game=${r.data.id}`);
    await page.waitForFunction(() => document.querySelectorAll('#movelist .mv').length === 8);
    await page.click('#movelist .mv[data-ply="2"]');
    await page.click('rect.hit[data-sq="e1"]');
    await page.click('rect.hit[data-sq="d1"]');
    await expectCount(page, '#movelist li.var', 1);
    await expectGame(r.data.id, (game) => {
      assert.deepEqual(game.moves.map((m) => m.uci), ['c2g2', 'c3g3', 'e1d1']);
      assert.equal(game.outcome, null, 'the new line is not over');
      assert.deepEqual(game.lines.map((l) => l.uci), [main]);
    });
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});
