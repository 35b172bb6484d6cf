// Plays a whole game against the lowest level by clicking on the board.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, shot, BASE, api, expectText, expectCount, gameIdOf, expectGame,
} from '../lib.mjs';

const MAX_HUMAN_MOVES = 40;

// Clicks the centre of a board point.
async function clickSquare(page, sq) {
  await page.click(`rect.hit[data-sq="${sq}"]`);
}

// Drags a piece from one point to another with the mouse.
async function dragMove(page, from, to) {
  const a = await page.locator(`rect.hit[data-sq="${from}"]`).boundingBox();
  const b = await page.locator(`rect.hit[data-sq="${to}"]`).boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2 + 10, (a.y + b.y) / 2 + 10, { steps: 4 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 4 });
  await page.mouse.up();
}

async function waitForHumanTurn(page, id, plies) {
  // The human's turn: the server has the computer's reply (or the game is over) ...
  const data = await expectGame(id, (g) => {
    assert.ok(g.outcome || (g.turn === g.human && g.moves.length >= plies),
      `the computer has answered: ${g.moves.length} of ${plies} plies, ${g.turn} to move`);
  }, { timeout: 20000 });
  // ... and the page shows it.
  await page.waitForFunction((n) => document.querySelectorAll('#movelist .mv').length >= n, data.moves.length);
  return data;
}

test('a whole game against the computer at level 0, by clicking', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const native = [];
    page.on('dialog', (d) => { native.push(d.message()); d.accept(); });
    await page.goto(BASE + '/');
    // A fresh browser: the new-game dialog is open.
    await page.waitForSelector('#dlg-new[open]');
    await page.check('#dlg-new input[name=mode][value=computer]');
    await page.check('#dlg-new input[name=side][value=red]');
    await page.fill('#new-level', '0');
    await shot(page, '01-new-game-dialog');
    await page.click('#new-start');
    const id = await gameIdOf(page);
    let game = (await api('GET', `/api/games/${id}`)).data;
    assert.equal(game.mode, 'computer');
    assert.equal(game.level, 0);
    assert.equal(game.human, 'red');

    let played = 0;
    let rng = 12345;
    const rand = (n) => { rng = (rng * 1103515245 + 12345) % 2147483648; return rng % n; };
    while (!game.outcome && played < MAX_HUMAN_MOVES) {
      // Prefer captures, so the game is likely to end by itself.
      const legal = game.legal;
      assert.ok(legal.length > 0);
      const board = new Map();
      const rows = game.fen.split(' ')[0].split('/');
      rows.forEach((row, i) => { let f = 0; for (const ch of row) { if (/\d/.test(ch)) f += +ch; else { board.set('abcdefghi'[f] + (9 - i), ch); f++; } } });
      const caps = legal.filter((m) => board.has(m.slice(2, 4)));
      const pool = caps.length ? caps : legal;
      const mv = pool[rand(pool.length)];
      if (played === 1) {
        await dragMove(page, mv.slice(0, 2), mv.slice(2, 4));
      } else {
        await clickSquare(page, mv.slice(0, 2));
        if (played === 0) {
          // legal-move hints are drawn for the selected piece
          await expectCount(page, '#board .hint, #board .hint-cap', legal.filter((m) => m.startsWith(mv.slice(0, 2))).length);
        }
        await clickSquare(page, mv.slice(2, 4));
      }
      played += 1;
      game = await waitForHumanTurn(page, id, 2 * played);
      assert.equal(game.moves[2 * (played - 1)].uci, mv, 'the clicked move was stored');
      if (played === 3) await shot(page, '02-game-in-progress');
    }
    if (!game.outcome) {
      await page.click('#btn-resign');
      // The app asks in its own dialog (no native confirm()).
      await page.waitForSelector('#dlg-confirm[open]');
      await page.click('#confirm-yes');
      await page.waitForSelector('#dlg-over[open]');
      game = await expectGame(id, (g) => {
        assert.equal(g.outcome?.reason, 'resignation');
        assert.equal(g.outcome.winner, 'black');
      });
    } else {
      await page.waitForSelector('#dlg-over[open]');
    }
    // the game-over message gives the ruling
    await expectText(page, '#over-text', game.outcome.text);
    await shot(page, '03-game-over');
    // The move list shows every move.
    await expectCount(page, '#movelist .mv', game.moves.length);
    assert.deepEqual(errors, []);
    assert.deepEqual(native, [], 'no native dialog');
  } finally {
    await cleanup();
  }
});
