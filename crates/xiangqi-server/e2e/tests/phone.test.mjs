// Phones: every page (and the game page's dialogs, its review and explorer) at 360×640 and 390×844 — nothing scrolls sideways, every visible button
// (and link-button and select) is at least 44 px high, the navigation folds into a menu whose
// entries share one font size, and the board takes the full width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, BASE, api, eventually } from '../lib.mjs';

const VIEWPORTS = [[360, 640], [390, 844]];

// What a page looks like to a finger: its sideways scroll, the controls under 44 px, the
// board's width.
async function measure(page) {
  return page.evaluate(() => {
    const visible = (e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    };
    const small = [...document.querySelectorAll('button, a.button, select')]
      .filter(visible)
      .map((e) => ({ e, h: e.getBoundingClientRect().height }))
      .filter(({ h }) => h < 43.5)
      .map(({ e, h }) => `${e.tagName.toLowerCase()}#${e.id || ''}.${e.className || ''} "${(e.textContent || '').trim().slice(0, 20)}" ${h.toFixed(1)} px`);
    const board = document.getElementById('board');
    return {
      scroll: document.documentElement.scrollWidth,
      small,
      board: board && visible(board) ? board.getBoundingClientRect().width : null,
    };
  });
}

async function check(page, w, name, { board = false } = {}) {
  const m = await measure(page);
  assert.ok(m.scroll <= w, `${name} at ${w} px: the page is ${m.scroll} px wide`);
  assert.deepEqual(m.small, [], `${name} at ${w} px: controls under 44 px`);
  if (board) assert.ok(m.board >= w - 16, `${name} at ${w} px: the board is ${m.board} px wide`);
}

// The menu: folded at first, opened by its button, one font size for its entries.
async function checkMenu(page, w, name) {
  assert.equal(await page.isVisible('#nav-main'), false, `${name}: the navigation is folded`);
  await page.click('[data-testid="menu"]');
  await eventually(async () => assert.equal(await page.isVisible('#nav-main'), true));
  assert.equal(await page.getAttribute('[data-testid="menu"]', 'aria-expanded'), 'true');
  const sizes = await page.evaluate(() => [...new Set([...document.querySelectorAll('#nav-main > *')]
    .map((e) => getComputedStyle(e).fontSize))]);
  assert.equal(sizes.length, 1, `${name}: one font size in the navigation: ${sizes}`);
  await check(page, w, name + ' (menu open)');
  if (name === 'a game') await shot(page, `phone-${w}-menu`);
  await page.click('[data-testid="menu"]');
  await eventually(async () => assert.equal(await page.isVisible('#nav-main'), false));
}

test('every page fits a phone: no sideways scroll, 44 px controls, a folding menu, a full-width board', async () => {
  const ch = (await api('POST', '/api/challenge/open', { clock: { limit: 300, increment: 3 }, color: 'red', name: 'A very long player name indeed' })).data;
  const g = (await api('POST', '/api/games', { mode: 'two-player' })).data;
  for (const mv of ['h2e2', 'h9g7', 'h0g2']) await api('POST', `/api/games/${g.id}/moves`, { move: mv });
  // A player's profile page (/@/name).
  const PLAYER = `phone${Date.now() % 100000}`;
  const reg = await api('POST', '/api/account/register', { username: PLAYER, password: 'a good password' });
  assert.equal(reg.status, 200, JSON.stringify(reg.data));
  for (const [w, h] of VIEWPORTS) {
    // A fresh browser each time: the first visit's dialog comes again.
    const a = await launch();
    try {
      const page = await a.context.newPage();
      await page.setViewportSize({ width: w, height: h });
      // The home page: its first-visit dialog, then the board.
      await page.goto(BASE + '/');
      await page.waitForSelector('#dlg-new[open]');
      await check(page, w, 'the new-game dialog');
      await page.keyboard.press('Escape');
      await eventually(async () => assert.equal(await page.isVisible('#dlg-new'), false));
      await page.goto(`${BASE}/?game=${g.id}`);
      await page.waitForSelector('#moves .mv, .movelist .mv');
      await check(page, w, 'a game', { board: true });
      await checkMenu(page, w, 'a game');
      await shot(page, `phone-${w}-game`);
      // The game page's dialogs, each opened from the folded menu as a finger would.
      for (const [btn, dlg] of [['#btn-settings', '#dlg-settings'], ['#btn-share', '#dlg-share'], ['#btn-import', '#dlg-import'], ['#btn-games', '#dlg-games']]) {
        if (!(await page.isVisible(btn))) await page.click('[data-testid="menu"]');
        await page.click(btn);
        await page.waitForSelector(`${dlg}[open]`);
        await check(page, w, `the ${dlg.slice(5)} dialog`);
        if (btn === '#btn-settings') await shot(page, `phone-${w}-settings`);
        await page.keyboard.press('Escape');
        await eventually(async () => assert.equal(await page.isVisible(dlg), false));
      }
      // The game's review (a small depth): its graph and its list of moves, and the opening
      // explorer's panel.
      await page.selectOption('#rv-depth', '6');
      await page.click('#btn-review');
      await page.waitForSelector('#rv-graph path.rv-line', { timeout: 60000 });
      await check(page, w, 'the review');
      await shot(page, `phone-${w}-review`);
      await page.click('#btn-explorer');
      await page.waitForSelector('[data-testid="explorer-panel"]:not(.hidden)');
      await check(page, w, 'the explorer');
      await page.click('#btn-explorer');
      // The live page of a player.
      await page.goto(BASE + ch.urlRed);
      await page.waitForSelector('[data-testid="clock-red"]');
      await check(page, w, 'a live game', { board: true });
      await checkMenu(page, w, 'a live game');
      await shot(page, `phone-${w}-live`);
      // The lobby dialog, the account and leaderboard pages.
      await page.goto(BASE + '/');
      await page.keyboard.press('Escape');
      await page.click('[data-testid="menu"]');
      await page.click('#btn-lobby');
      await page.waitForSelector('#dlg-lobby[open]');
      await check(page, w, 'the lobby');
      await page.keyboard.press('Escape');
      for (const path of ['/account', '/leaderboard', '/@/' + encodeURIComponent(PLAYER)]) {
        await page.goto(BASE + path);
        await page.waitForSelector('#page-body > *');
        await check(page, w, path);
        await checkMenu(page, w, path);
        await shot(page, `phone-${w}-${path.startsWith('/@/') ? 'profile' : path.slice(1)}`);
      }
    } finally {
      await a.cleanup();
    }
  }
});

test('the board and its player bars fit a laptop window, on the game and live pages', async () => {
  const g = (await api('POST', '/api/games', { mode: 'two-player' })).data;
  const ch = (await api('POST', '/api/challenge/open', { clock: { limit: 300, increment: 3 } })).data;
  const a = await launch();
  try {
    const page = await a.context.newPage();
    for (const [w, h] of [[1280, 720], [1366, 768], [1920, 1080]]) {
      await page.setViewportSize({ width: w, height: h });
      for (const p of [`/?game=${g.id}`, ch.urlRed]) {
        await page.goto(BASE + p);
        await page.waitForSelector('#board rect.hit');
        const m = await page.evaluate(() => ({
          bottom: document.getElementById('bar-bottom').getBoundingClientRect().bottom,
          board: document.getElementById('board').getBoundingClientRect().height,
          scroll: document.documentElement.scrollWidth,
        }));
        assert.ok(m.bottom <= h, `${p} at ${w}×${h}: the lower player bar ends at ${m.bottom} px`);
        assert.ok(m.board + 1 >= Math.min(640 * 640 / 580, h - 200), `${p} at ${w}×${h}: the board is ${m.board} px high`);
        assert.ok(m.scroll <= w, `${p} at ${w}×${h}: ${m.scroll} px wide`);
      }
      if (w === 1280) await shot(page, 'laptop-1280x720-live');
    }
  } finally {
    await a.cleanup();
  }
});
