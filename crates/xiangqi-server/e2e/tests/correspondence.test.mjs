// Correspondence by clicks: a seek of 3 days per move made in one browser's lobby and joined
// in another's, moves played on the board, and each browser's "Your games" list and the
// badge on its Lobby button following whose turn it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, BASE, eventually, expectText } from '../lib.mjs';

async function click(page, from, to) {
  await page.click(`rect.hit[data-sq="${from}"]`);
  await page.click(`rect.hit[data-sq="${to}"]`);
}
async function home(page) {
  await page.goto(BASE + '/');
  await page.waitForSelector('#dlg-new[open]');
  await page.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
}
// The badge's count ('' when hidden) and the list's rows ("mine"/"theirs").
async function expectTurns(page, badge, rows) {
  await eventually(async () => {
    const b = await page.evaluate(() => {
      const e = document.querySelector('[data-testid="turn-badge"]');
      return e.classList.contains('hidden') ? '' : e.textContent;
    });
    assert.equal(b, badge, 'the badge');
    const r = await page.$$eval('#my-games tr[data-testid="my-game"]', (trs) => trs.map((tr) => tr.dataset.turn));
    assert.deepEqual(r, rows, 'the list');
  }, { timeout: 15000 });
}

test('a correspondence seek is taken, played by clicks, and each side sees whose turn it is', async () => {
  const a = await launch(), b = await launch();
  try {
    const ann = await a.context.newPage();
    const bo = await b.context.newPage();
    const errors = [];
    for (const p of [ann, bo]) p.on('pageerror', (e) => errors.push(e.message));
    for (const p of [ann, bo]) {
      await home(p);
      await p.click('#btn-lobby');
      await p.waitForSelector('#dlg-lobby[open]');
    }
    await expectText(ann, '#my-games', 'No games in progress.');
    await ann.selectOption('#lobby-tc', 'd3');
    await ann.selectOption('#lobby-side', 'red');
    await ann.fill('#lobby-name', 'Ann');
    await ann.click('[data-testid="create-seek"]');
    await expectText(bo, '#lobby-seeks tr[data-testid="seek"] td:nth-child(2)', '3 days per move');
    await bo.fill('#lobby-name', 'Bo');
    await bo.click('[data-testid="seek-join"]');
    await ann.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=/);
    await bo.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=/);
    await expectText(ann, '#live-status .sub', /3 days per move/);
    await expectText(ann, '[data-testid="deadline-red"]', /^time left: (3 days 0 hours|2 days 23 hours)$/);
    await shot(ann, 'corr-01-live');
    // Ann (Red) to move: one game of hers waits, none of Bo's.
    await expectTurns(ann, '1', ['mine']);
    await expectTurns(bo, '', ['theirs']);
    await click(ann, 'h2', 'e2');
    await expectText(bo, '[data-testid="deadline-black"]', /^time left: /);
    await expectTurns(ann, '', ['theirs']);
    await expectTurns(bo, '1', ['mine']);
    await click(bo, 'h9', 'g7');
    await expectTurns(ann, '1', ['mine']);
    await expectTurns(bo, '', ['theirs']);
    // The list in the lobby dialog, with the time left.
    await ann.click('#btn-lobby');
    await ann.waitForSelector('#dlg-lobby[open]');
    await expectText(ann, '#my-games tr[data-testid="my-game"]', /Bo\s*your turn\s*3 days per move\s*time left: (3 days 0 hours|2 days 23 hours)/);
    await shot(ann, 'corr-02-your-games');
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup(); await b.cleanup();
  }
});
