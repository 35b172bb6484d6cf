// The board by keyboard alone, and what a screen reader hears: Tab to the board, the arrow
// keys move a cursor over the points (as the board is drawn, flipped or not), Enter picks and
// drops; the cursor's point and every move are said in the live region, in the chosen
// notation and language (Chinese names each side's pieces: 帅 and 将, 兵 and 卒); Escape gives
// the arrow keys back to stepping through the game.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, BASE, api, eventually, expectText } from '../lib.mjs';

async function tabToBoard(page) {
  for (let i = 0; i < 60; i++) {
    if (await page.evaluate(() => document.activeElement && document.activeElement.id === 'board')) return;
    await page.keyboard.press('Tab');
  }
  assert.fail('Tab never reached the board');
}
async function keys(page, ...names) {
  for (const k of names) await page.keyboard.press(k);
}
const cursor = (page) => page.evaluate(() => {
  const c = document.querySelector('#board [data-cursor]');
  return c ? c.dataset.cursor : null;
});

// A new two-player game opened in `a`'s browser, Tab pressed to its board: the cursor on e0.
async function newGameAtBoard(a) {
  const g = (await api('POST', '/api/games', { mode: 'two-player' })).data;
  const page = await a.context.newPage();
  await page.goto(`${BASE}/?game=${g.id}`);
  await page.waitForSelector('#board rect.hit');
  await tabToBoard(page);
  await eventually(async () => assert.equal(await cursor(page), 'e0'));
  return { g, page };
}

test('a game played by keyboard alone, its moves said to screen readers', async () => {
  const a = await launch();
  try {
    const { g, page } = await newGameAtBoard(a);
    await expectText(page, '[data-testid="sr-live"]', /e0 · Red king/);
    // To the cannon on h2, pick it, to e2, drop it.
    await keys(page, 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowUp', 'ArrowUp');
    await eventually(async () => assert.equal(await cursor(page), 'h2'));
    await expectText(page, '[data-testid="sr-live"]', /h2 · Red cannon/);
    await page.keyboard.press('Enter');
    await eventually(async () => assert.equal(await page.locator('#board .hl-sel').count(), 1));
    await keys(page, 'ArrowLeft', 'ArrowLeft', 'ArrowLeft');
    await shot(page, 'keyboard-01-cursor');
    await page.keyboard.press('Enter');
    await eventually(async () => assert.deepEqual((await api('GET', `/api/games/${g.id}`)).data.moves.map((m) => m.uci), ['h2e2']));
    await expectText(page, '[data-testid="sr-live"]', /Red: C2\.5/);
    // Black's reply, the same way: h9 to g7 (the cursor stays where it was).
    await keys(page, 'ArrowRight', 'ArrowRight', 'ArrowRight');
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowUp');
    await eventually(async () => assert.equal(await cursor(page), 'h9'));
    await page.keyboard.press('Enter');
    await keys(page, 'ArrowLeft', 'ArrowDown', 'ArrowDown');
    await page.keyboard.press(' ');
    await eventually(async () => assert.deepEqual((await api('GET', `/api/games/${g.id}`)).data.moves.map((m) => m.uci), ['h2e2', 'h9g7']));
    await expectText(page, '[data-testid="sr-live"]', /Black: H8\+7/);
    // Escape: the arrow keys step through the game again.
    await page.keyboard.press('Escape');
    await eventually(async () => assert.equal(await cursor(page), null));
    await page.keyboard.press('Home');
    await eventually(async () => assert.equal(await page.locator('#board .hl-last').count(), 0));
  } finally {
    await a.cleanup();
  }
});

test('a live game by keyboard: the flipped board moves the cursor as drawn, the opponent is heard', async () => {
  const a = await launch(), b = await launch();
  try {
    const r = await api('POST', '/api/challenge/open', {});
    const { id, tokenRed, tokenBlack } = r.data;
    const red = await a.context.newPage();
    const black = await b.context.newPage();
    await red.goto(`${BASE}/live/${id}#seat=${tokenRed}`);
    await black.goto(`${BASE}/live/${id}#seat=${tokenBlack}`);
    await expectText(black, '[data-testid="conn-red"]', /online/);
    await red.click('rect.hit[data-sq="h2"]');
    await red.click('rect.hit[data-sq="e2"]');
    await expectText(black, '[data-testid="sr-live"]', /Red: C2\.5/);
    // Black's board is drawn from Black's side: its cursor starts on e9, "left" is towards i.
    await tabToBoard(black);
    await eventually(async () => assert.equal(await cursor(black), 'e9'));
    await keys(black, 'ArrowLeft', 'ArrowLeft', 'ArrowLeft');
    await eventually(async () => assert.equal(await cursor(black), 'h9'));
    await expectText(black, '[data-testid="sr-live"]', /h9 · Black horse/);
    await black.keyboard.press('Enter');
    await keys(black, 'ArrowUp', 'ArrowUp', 'ArrowRight');
    await eventually(async () => assert.equal(await cursor(black), 'g7'));
    await black.keyboard.press('Enter');
    await eventually(async () => assert.equal((await api('GET', `/api/board/game/${id}`)).data.state.moves, 'h2e2 h9g7'));
    await expectText(red, '[data-testid="sr-live"]', /Black: H8\+7/);
    await shot(black, 'keyboard-02-live');
  } finally {
    await a.cleanup(); await b.cleanup();
  }
});

test('in Chinese the screen reader hears Chinese: each side its own pieces, the moves in Chinese notation', async () => {
  // A first visit from a Chinese browser: Chinese notation is the default there.
  const a = await launch({ locale: 'zh-CN' });
  try {
    const { g, page } = await newGameAtBoard(a);
    await expectText(page, '[data-testid="sr-live"]', 'e0 · 红方 帅');
    await keys(page, 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowUp', 'ArrowUp');
    await expectText(page, '[data-testid="sr-live"]', 'h2 · 红方 炮');
    await page.keyboard.press('Enter');
    await keys(page, 'ArrowLeft', 'ArrowLeft', 'ArrowLeft');
    await page.keyboard.press('Enter');
    await expectText(page, '[data-testid="sr-live"]', '红方：炮二平五');
    await expectText(page, '#movelist .mv[data-ply="1"]', /炮二平五/);
    // Black's general and horse are 将 and 马; its soldier 卒.
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowUp');
    await eventually(async () => assert.equal(await cursor(page), 'e9'));
    await expectText(page, '[data-testid="sr-live"]', 'e9 · 黑方 将');
    await keys(page, 'ArrowDown', 'ArrowDown', 'ArrowDown');
    await expectText(page, '[data-testid="sr-live"]', 'e6 · 黑方 卒');
    await keys(page, 'ArrowUp', 'ArrowUp', 'ArrowUp', 'ArrowRight', 'ArrowRight', 'ArrowRight');
    await expectText(page, '[data-testid="sr-live"]', 'h9 · 黑方 马');
    await page.keyboard.press('Enter');
    await keys(page, 'ArrowLeft', 'ArrowDown', 'ArrowDown');
    await page.keyboard.press('Enter');
    await eventually(async () => assert.deepEqual((await api('GET', `/api/games/${g.id}`)).data.moves.map((m) => m.uci), ['h2e2', 'h9g7']));
    await expectText(page, '[data-testid="sr-live"]', '黑方：马8进7');
    await shot(page, 'keyboard-03-chinese');
  } finally {
    await a.cleanup();
  }
});
