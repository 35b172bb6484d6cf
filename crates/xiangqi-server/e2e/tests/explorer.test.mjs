// The opening explorer's panel, by clicks: two live games played to their end on this server
// go into its site database; on an analysis board the panel lists the position's moves with
// their games and results, a click on a move plays it and the panel follows, and the top
// games are listed; the panel is remembered as open. Then the opening's name: shown in the
// game's header as moves are played from the panel and stepped back and forth, in Chinese
// too; a top site game opens on its live page, which names the opening; and the panel follows
// the position shown while a review is shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, BASE, api, eventually, expectText, expectCount } from '../lib.mjs';

async function finished(moves, resigner) {
  const c = (await api('POST', '/api/challenge/open', { clock: { limit: 180, increment: 2 } })).data;
  const tokens = { red: c.tokenRed, black: c.tokenBlack };
  for (const [i, m] of moves.entries()) {
    const r = await fetch(`${BASE}/api/board/game/${c.id}/move/${m}`, {
      method: 'POST', headers: { Authorization: 'Bearer ' + (i % 2 ? tokens.black : tokens.red) },
    });
    assert.equal(r.status, 200, await r.text());
  }
  const r = await fetch(`${BASE}/api/board/game/${c.id}/resign`, {
    method: 'POST', headers: { Authorization: 'Bearer ' + tokens[resigner] },
  });
  assert.equal(r.status, 200);
  return c.id;
}

const rows = (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid="explorer-move"]')]
  .map((tr) => ({ uci: tr.dataset.uci, text: tr.textContent })));

test('the explorer panel shows the site games of a position, and a click plays a move', async () => {
  // The cannon opening, then two different replies; Black wins one, Red the other.
  await finished(['c3c4', 'g6g5', 'b0c2'], 'red');
  await finished(['c3c4', 'c6c5'], 'black');
  // (The explorer adds an ended game in the background, just after its end is stored.)
  await eventually(async () => {
    const site = (await api('GET', '/api/explorer/site?play=c3c4')).data;
    assert.ok(site.red + site.draws + site.black >= 2, JSON.stringify(site));
  });

  const a = await launch();
  try {
    const page = await a.context.newPage();
    const g = (await api('POST', '/api/games', { mode: 'analysis' })).data;
    await page.goto(`${BASE}/?game=${g.id}`);
    await page.waitForSelector('#board rect.hit');
    await page.click('[data-testid="explorer-toggle"]');
    await page.selectOption('[data-testid="explorer-db"]', 'site');
    // The start: c3c4 (P7+1 in WXF) is among the moves, with its games.
    await eventually(async () => {
      const r = await rows(page);
      const row = r.find((x) => x.uci === 'c3c4' || x.uci === 'g3g4');
      assert.ok(row, JSON.stringify(r));
      assert.match(row.text, /P[37]\+1/);
    });
    const first = (await rows(page)).find((x) => x.uci === 'c3c4' || x.uci === 'g3g4').uci;
    await page.click(`[data-testid="explorer-move"][data-uci="${first}"]`);
    // Played on the board; the panel now shows the replies, each with its game.
    await eventually(async () => assert.deepEqual((await api('GET', `/api/games/${g.id}`)).data.moves.map((m) => m.uci), [first]));
    await eventually(async () => {
      const r = await rows(page);
      assert.equal(r.length, 2, JSON.stringify(r));
    });
    await eventually(async () => assert.ok(await page.locator('[data-testid="explorer-game"]').count() >= 2));
    await shot(page, 'explorer-01-panel');
    // The masters database here is empty: it says so.
    await page.selectOption('[data-testid="explorer-db"]', 'masters');
    await eventually(async () => assert.match(await page.textContent('[data-testid="explorer-note"]'), /No game/));
    // Remembered as open.
    await page.reload();
    await page.waitForSelector('#board rect.hit');
    assert.equal(await page.isVisible('[data-testid="explorer-panel"]'), true);
  } finally {
    await a.cleanup();
  }
});

// The left-right mirror of a move (the explorer answers the start's moves in one orientation).
const mirror = (u) => u.replace(/[a-i]/g, (c) => 'ihgfedcba'['abcdefghi'.indexOf(c)]);

test('the opening name follows the moves, a top game opens, and the panel follows a review', async () => {
  // A site game of 中炮对屏风马 (Central Cannon vs Screen Horses); Red resigns.
  const liveId = await finished(['h2e2', 'h9g7', 'h0g2', 'b9c7'], 'red');
  await eventually(async () => {
    // (Counted at the position before the last move: the moves played from it.)
    const site = (await api('GET', '/api/explorer/site?play=h2e2,h9g7,h0g2')).data;
    assert.ok(site.red + site.draws + site.black >= 1, JSON.stringify(site));
    assert.equal(site.opening.nameZh, '中炮对进左马');
  });

  const a = await launch();
  try {
    const page = await a.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(BASE + '/');
    await page.evaluate(() => localStorage.setItem('xiangqi.settings', JSON.stringify({ lang: 'en', notation: 'iccs', explorer: true })));
    const g = (await api('POST', '/api/games', { mode: 'analysis' })).data;
    await page.goto(`${BASE}/?game=${g.id}`);
    await page.waitForSelector('#board rect.hit');
    await page.selectOption('[data-testid="explorer-db"]', 'site');
    // The start has no name.
    await expectCount(page, '[data-testid="opening"]', 0);
    let first;
    await eventually(async () => {
      first = (await rows(page)).map((r) => r.uci).find((u) => u === 'h2e2' || u === 'b2e2');
      assert.ok(first);
    });
    const M = (u) => (first === 'h2e2' ? u : mirror(u));
    // Each click plays the move; the header names the opening reached.
    const steps = [
      ['h2e2', 'Opening: Central Cannon'],
      ['h9g7', 'Opening: Central Cannon vs Left Horse'],
      ['h0g2', 'Opening: Central Cannon vs Left Horse'],
      ['b9c7', 'Opening: Central Cannon vs Screen Horses'],
    ];
    for (const [i, [u, name]] of steps.entries()) {
      const sel = `[data-testid="explorer-move"][data-uci="${M(u)}"]`;
      await page.waitForSelector(sel);
      await page.click(sel);
      await eventually(async () => assert.equal((await api('GET', `/api/games/${g.id}`)).data.moves.length, i + 1));
      await expectText(page, '[data-testid="opening"]', name);
    }
    await shot(page, 'explorer-02-opening');
    // Stepping back and forth, the name follows the position shown.
    await page.click('#nav-prev');
    await expectText(page, '[data-testid="opening"]', 'Opening: Central Cannon vs Left Horse');
    await page.click('#nav-first');
    await expectCount(page, '[data-testid="opening"]', 0);
    await page.click('#nav-next');
    await expectText(page, '[data-testid="opening"]', 'Opening: Central Cannon');
    await page.click('#nav-last');
    await expectText(page, '[data-testid="opening"]', 'Opening: Central Cannon vs Screen Horses');
    // In Chinese, the Chinese name.
    await page.click('#btn-lang');
    await expectText(page, '[data-testid="opening"]', '开局：中炮对屏风马');
    await page.click('#btn-lang');
    await expectText(page, '[data-testid="opening"]', 'Opening: Central Cannon vs Screen Horses');

    // The panel beside a review: reviewed at a small depth, stepping through it the panel
    // shows each position's moves.
    await page.selectOption('#rv-depth', '6');
    await page.click('#btn-review');
    await expectCount(page, '#rv-graph path.rv-line', 1, { timeout: 60000 });
    assert.equal(await page.isVisible('[data-testid="explorer-panel"]'), true);
    await page.click('#nav-first');
    await eventually(async () => assert.ok((await rows(page)).some((r) => r.uci === first)));
    await page.click('#nav-next');
    await eventually(async () => assert.deepEqual((await rows(page)).map((r) => r.uci), [M('h9g7')]));
    await expectText(page, '[data-testid="opening"]', 'Opening: Central Cannon');
    await shot(page, 'explorer-03-review');
    await page.setViewportSize({ width: 360, height: 640 });
    await shot(page, 'explorer-04-review-phone');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'no sideways scroll');
    await page.setViewportSize({ width: 1280, height: 800 });

    // A top game of the site opens on its live page, which names its opening. The top games
    // are those of the position shown: after h0g2 the site game above is one of the few that
    // played on (after h2e2 alone, the rated games other tests ended may outrank it).
    await page.click('#nav-next');
    await page.click('#nav-next');
    await eventually(async () => assert.ok((await rows(page)).some((r) => r.uci === M('b9c7'))));
    const link = `[data-testid="explorer-game"][href="/live/${encodeURIComponent(liveId)}"]`;
    await page.waitForSelector(link);
    await page.click(link);
    await page.waitForURL(`**/live/${encodeURIComponent(liveId)}`);
    await expectText(page, '[data-testid="opening"]', 'Opening: Central Cannon vs Screen Horses');
    await shot(page, 'explorer-05-live-opening');
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup();
  }
});
