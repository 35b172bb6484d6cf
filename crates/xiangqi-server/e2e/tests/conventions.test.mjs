// The conventions of the best sites on a live game's page, each by a person's clicks and keys:
// a premove (played when the opponent's move comes; cancelled by a click; dropped when it is
// no longer legal), looking back by keys and the move list and "Back to the live position",
// the piece sets, abort only after a confirmation, the tab's title and a notification when
// the opponent moves while the tab is hidden, copy link / copy FEN / download PGN (read back
// by the server's importer), and "New opponent" after a game (a seek in the lobby with the
// game's time control), the position as a PNG, and the animation speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { launch, shot, BASE, api, eventually, expectText } from '../lib.mjs';

async function click(page, from, to) {
  await page.click(`rect.hit[data-sq="${from}"]`);
  await page.click(`rect.hit[data-sq="${to}"]`);
}
// The moves of the game, as the server has them.
async function serverMoves(id) {
  const r = await api('GET', `/api/board/game/${id}`);
  assert.equal(r.status, 200);
  return r.data.state.moves;
}
async function expectMoves(id, moves) {
  return eventually(async () => assert.equal(await serverMoves(id), moves));
}
// Two players' pages of a new friend challenge (made through the API: the pages are what is
// tested), both streams open.
async function game(a, b, body = {}) {
  const r = await api('POST', '/api/challenge/open', body);
  assert.equal(r.status, 200, JSON.stringify(r.data));
  const { id, tokenRed, tokenBlack } = r.data;
  const red = await a.context.newPage();
  const black = await b.context.newPage();
  await red.goto(`${BASE}/live/${id}#seat=${tokenRed}`);
  await black.goto(`${BASE}/live/${id}#seat=${tokenBlack}`);
  for (const p of [red, black]) {
    await expectText(p, '[data-testid="conn-red"]', /online|在线/);
    await expectText(p, '[data-testid="conn-black"]', /online|在线/);
  }
  return { id, red, black };
}
async function premoveSquares(page) {
  return page.evaluate(() => [...document.querySelectorAll('#board [data-premove]')].map((e) => e.dataset.premove));
}

test('a premove is played when the opponent moves, a click cancels one, an illegal one is dropped', async () => {
  const a = await launch(), b = await launch();
  try {
    const { id, red, black } = await game(a, b);
    const errors = [];
    for (const p of [red, black]) p.on('pageerror', (e) => errors.push(e.message));
    await click(red, 'h2', 'e2');
    await expectMoves(id, 'h2e2');
    await click(black, 'h9', 'g7');
    await expectMoves(id, 'h2e2 h9g7');

    // Black, while Red thinks: the horse is picked (its premove destinations are dotted) and
    // sent to c7; both squares are marked, nothing is sent yet.
    await expectText(black, '#live-status', /Red to move|红方走/);
    await black.click('rect.hit[data-sq="b9"]');
    await eventually(async () => assert.ok(await black.locator('#board circle.hint').count() >= 2, 'dots for the premove'));
    await black.click('rect.hit[data-sq="c7"]');
    await eventually(async () => assert.deepEqual(await premoveSquares(black), ['b9', 'c7']));
    await shot(black, 'conventions-01-premove');
    assert.equal(await serverMoves(id), 'h2e2 h9g7', 'a premove is not sent before its turn');
    // Red moves: the premove goes at once.
    await click(red, 'h0', 'g2');
    await expectMoves(id, 'h2e2 h9g7 h0g2 b9c7');
    await eventually(async () => assert.deepEqual(await premoveSquares(black), []));

    await click(red, 'i0', 'h0');
    await click(black, 'i9', 'h9');
    const five = 'h2e2 h9g7 h0g2 b9c7 i0h0 i9h9';
    await expectMoves(id, five);

    // Cancelled by a click on an empty point: Black's move comes and nothing is played.
    await click(red, 'b2', 'b6');
    await expectMoves(id, five + ' b2b6');
    await red.click('rect.hit[data-sq="b0"]');
    await red.click('rect.hit[data-sq="c2"]');
    await eventually(async () => assert.deepEqual(await premoveSquares(red), ['b0', 'c2']));
    await red.click('rect.hit[data-sq="e5"]');
    await eventually(async () => assert.deepEqual(await premoveSquares(red), []));
    await click(black, 'a9', 'a8');
    const seven = five + ' b2b6 a9a8';
    await expectMoves(id, seven);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(await serverMoves(id), seven, 'a cancelled premove is not played');

    // Dropped when it is no longer legal: Black premoves its cannon h7 to h3, and Red's
    // chariot takes that cannon first.
    await black.click('rect.hit[data-sq="h7"]');
    await black.click('rect.hit[data-sq="h3"]');
    await eventually(async () => assert.deepEqual(await premoveSquares(black), ['h7', 'h3']));
    await click(red, 'h0', 'h7');
    await expectMoves(id, seven + ' h0h7');
    await eventually(async () => assert.deepEqual(await premoveSquares(black), []));
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(await serverMoves(id), seven + ' h0h7', 'a premove of a piece that was taken is dropped');
    await expectText(black, '#live-status', /Your move|轮到你走/);

    // Looking back by keys and by the move list; "Back to the live position" returns.
    const shown = (page) => page.evaluate(() => {
      const cur = document.querySelector('#live-moves .mv.current');
      return cur ? +cur.dataset.ply : 0;
    });
    await black.keyboard.press('Home');
    await eventually(async () => assert.equal(await shown(black), 0));
    await expectText(black, '[data-testid="viewing"]', /start position|开局局面/);
    assert.equal(await black.isVisible('[data-testid="live-back"]'), true);
    await black.keyboard.press('ArrowRight');
    await eventually(async () => assert.equal(await shown(black), 1));
    await black.keyboard.press('ArrowRight');
    await black.keyboard.press('ArrowLeft');
    await eventually(async () => assert.equal(await shown(black), 1));
    await black.click('#live-moves .mv[data-ply="3"]');
    await eventually(async () => assert.equal(await shown(black), 3));
    await shot(black, 'conventions-01b-looking-back');
    await black.click('[data-testid="live-back"]');
    await eventually(async () => assert.equal(await shown(black), 9));
    assert.equal(await black.isVisible('[data-testid="live-back"]'), false);
    await black.keyboard.press('Home');
    await black.keyboard.press('End');
    await eventually(async () => assert.equal(await shown(black), 9));

    // The piece sets: simplified characters from the settings.
    await black.click('#btn-settings');
    await black.selectOption('#set-pieces', 'simplified');
    await black.click('#dlg-settings button[value=ok]');
    await eventually(async () => assert.equal(await black.textContent('#pieces [data-at="e0"] text'), '帅'));
    assert.equal(await black.textContent('#pieces [data-at="a0"] text'), '车');
    await black.click('#btn-settings');
    await black.selectOption('#set-pieces', 'letters');
    await black.click('#dlg-settings button[value=ok]');
    await eventually(async () => assert.equal(await black.textContent('#pieces [data-at="e0"] text'), 'K'));
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup(); await b.cleanup();
  }
});

test('abort asks first; the hidden tab is told of the move; link, FEN and PGN are shared; a new opponent is sought', async () => {
  const a = await launch(), b = await launch();
  try {
    await a.context.grantPermissions(['notifications', 'clipboard-read', 'clipboard-write'], { origin: BASE });
    // Notifications shown are recorded (Chromium headless shows none on screen).
    await a.context.addInitScript(() => {
      window.__notes = [];
      const N = window.Notification;
      if (!N) return;
      class Recorded extends N {
        constructor(title, opts) { super(title, opts); window.__notes.push({ title, body: opts && opts.body }); }
      }
      Object.defineProperty(Recorded, 'permission', { get: () => N.permission });
      Recorded.requestPermission = N.requestPermission.bind(N);
      window.Notification = Recorded;
    });
    const { id, red, black } = await game(a, b, { clock: { limit: 180, increment: 2 } });

    // Abort: the app's question first; "Cancel" keeps the game.
    await red.click('[data-testid="abort"]');
    await red.waitForSelector('#dlg-confirm[open]');
    assert.match(await red.textContent('#confirm-text'), /Abort this game/);
    await red.click('#confirm-no');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await api('GET', `/api/board/game/${id}`)).data.state.status, 'created');

    // Red turns notifications on in the settings (the permission is granted here) and
    // chooses WXF notation.
    await red.click('#btn-settings');
    await red.check('#set-notify');
    await red.selectOption('#set-notation', 'wxf');
    await red.selectOption('#set-move-speed', 'slow');
    await red.click('#dlg-settings button[value=ok]');
    await eventually(async () => assert.equal(
      await red.evaluate(() => (JSON.parse(localStorage.getItem('xiangqi.settings')) || {}).notify), true));

    // Red moves, then its tab goes to the background; Black's move is announced there.
    await click(red, 'h2', 'e2');
    await expectMoves(id, 'h2e2');
    await red.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await click(black, 'h9', 'g7');
    // The opponent's piece slides at the chosen speed (slow: 360 ms).
    await eventually(async () => assert.ok(
      (await red.evaluate(() => document.getAnimations().map((a) => a.effect.getTiming().duration))).includes(360),
      'a 360 ms slide'), { interval: 20 });
    await expectMoves(id, 'h2e2 h9g7');
    await eventually(async () => assert.match(await red.title(), /^● (Your move|轮到你走)/));
    const notes = await red.evaluate(() => window.__notes);
    assert.equal(notes.length, 1, JSON.stringify(notes));
    assert.match(notes[0].title, /Your move/);
    assert.match(notes[0].body, /1… /);
    // Seen again: the mark goes.
    await red.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await eventually(async () => assert.match(await red.title(), /^(Your move|轮到你走)/));

    // Copy link and copy FEN put them on the clipboard.
    await red.click('[data-testid="live-copy-link"]');
    await eventually(async () => assert.equal(await red.evaluate(() => navigator.clipboard.readText()), `${BASE}/live/${id}`));
    await red.click('[data-testid="live-copy-fen"]');
    // The position after 1. h2e2 h9g7 (board and side to move).
    const fen = 'rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w';
    await eventually(async () => {
      const got = (await red.evaluate(() => navigator.clipboard.readText())).split(' ').slice(0, 2).join(' ');
      assert.equal(got, fen);
    });

    // Red resigns; the PGN downloaded in WXF reads back with the same moves and result.
    await red.click('[data-testid="resign"]');
    await red.waitForSelector('#dlg-confirm[open]');
    await red.click('#confirm-yes');
    await eventually(async () => assert.equal((await api('GET', `/api/board/game/${id}`)).data.state.status, 'resign'));
    const [download] = await Promise.all([red.waitForEvent('download'), red.click('[data-testid="live-download-pgn"]')]);
    const pgn = fs.readFileSync(await download.path(), 'utf8');
    assert.match(pgn, /\[Format "WXF"\]/);
    assert.match(pgn, /\[Result "0-1"\]/);
    assert.match(pgn, /1\. C2\.5 H8\+7 0-1/);
    // The position as a PNG: twice the board's drawing, 1160×1280.
    const [pngDl] = await Promise.all([red.waitForEvent('download'), red.click('[data-testid="live-download-png"]')]);
    const png = fs.readFileSync(await pngDl.path());
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1160, 1280]);
    assert.ok(png.length > 50000, `a drawn board, not an empty image (${png.length} bytes)`);
    fs.copyFileSync(await pngDl.path(), `${process.env.SCREENSHOT_DIR || 'screenshots'}/conventions-03-board.png`);
    const imp = await fetch(BASE + '/api/import', { method: 'POST', body: pgn }).then((r) => r.json());
    const g = await api('GET', `/api/games/${imp.games[0].id}`);
    assert.deepEqual(g.data.moves.map((m) => m.uci), ['h2e2', 'h9g7']);

    // New opponent: the lobby opens with a seek of the game's time control.
    await red.click('[data-testid="new-opponent"]');
    await red.waitForSelector('#dlg-lobby[open]');
    await eventually(async () => {
      const seeks = await red.evaluate(() => [...document.querySelectorAll('[data-testid="seek"]')].map((e) => e.textContent));
      assert.equal(seeks.length, 1, JSON.stringify(seeks));
      assert.match(seeks[0], /3\+2/);
    });
    await shot(red, 'conventions-02-new-opponent');
  } finally {
    await a.cleanup(); await b.cleanup();
  }
});
