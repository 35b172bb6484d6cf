// The opening explorer's panel, by clicks: two live games played to their end on this server
// go into its site database; on an analysis board the panel lists the position's moves with
// their games and results, a click on a move plays it and the panel follows, and the top
// games are listed; the panel is remembered as open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, BASE, api, eventually } from '../lib.mjs';

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
