// Online play between people in the browser: a friend's challenge with a clock, played by
// clicks in two browsers, a reload mid-game, a spectator, a draw offered and accepted through
// the prompt, the rematch; and the lobby's seeks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, shot, BASE, api, eventually, expectText, expectValue, expectCount, expectAttribute,
  harmless, dialogRecorder,
} from '../lib.mjs';

// Seconds on a clock's face: "2:59" -> 179, "0:09.5" -> 9.5.
function seconds(text) {
  const m = /^(?:(\d+):)?(\d+):(\d\d(?:\.\d)?)$/.exec(text || '');
  assert.ok(m, `a clock's text: ${text}`);
  return (+(m[1] || 0)) * 3600 + (+m[2]) * 60 + (+m[3]);
}
async function clock(page, side) {
  return seconds(await page.textContent(`[data-testid="clock-${side}"]`));
}
// The clock of `side` on `page` goes down below `below` seconds.
async function expectClockBelow(page, side, below) {
  return eventually(async () => {
    const s = await clock(page, side);
    assert.ok(s < below, `${side}'s clock ${s} s is below ${below} s`);
    return s;
  });
}
async function click(page, from, to) {
  await page.click(`rect.hit[data-sq="${from}"]`);
  await page.click(`rect.hit[data-sq="${to}"]`);
}
async function dragMove(page, from, to) {
  const a = await page.locator(`rect.hit[data-sq="${from}"]`).boundingBox();
  const b = await page.locator(`rect.hit[data-sq="${to}"]`).boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 6 });
  await page.mouse.up();
}
async function hidden(page, selector) {
  return page.evaluate((s) => {
    const e = document.querySelector(s);
    return !e || e.closest('.hidden') !== null;
  }, selector);
}
async function expectHidden(page, selector, yes = true, opts) {
  return eventually(async () => assert.equal(await hidden(page, selector), yes, `${selector} hidden: ${yes}`), opts);
}
function liveId(page) {
  const u = new URL(page.url());
  assert.match(u.pathname, /^\/live\/[0-9A-Za-z]{8}$/);
  return u.pathname.split('/')[2];
}

test('two people play a friend challenge with clocks, a spectator watches, a draw is agreed', async () => {
  const a = await launch(), b = await launch(), c = await launch();
  try {
    const red = await a.context.newPage();
    const black = await b.context.newPage();
    const watcher = await c.context.newPage();
    const errors = [];
    for (const p of [red, black, watcher]) p.on('pageerror', (e) => errors.push(e.message));

    // Red makes the challenge in the new-game dialog.
    await red.goto(BASE + '/');
    await red.waitForSelector('#dlg-new[open]');
    await red.check('#dlg-new input[name=mode][value=friend]');
    await red.selectOption('#friend-tc', '180+2');
    await red.selectOption('#friend-side', 'red');
    await red.fill('#friend-name', 'Ann <b>&');
    await shot(red, 'online-01-play-a-friend');
    await red.click('#new-start');
    await red.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=[0-9a-f]{32}$/);
    const id = liveId(red);
    const invite = await expectValue(red, '[data-testid="invite-link"]', new RegExp(`/live/${id}#seat=[0-9a-f]{32}$`));
    assert.notEqual(new URL(invite).hash, new URL(red.url()).hash, 'the invite holds the other seat');
    const watch = await expectValue(red, '[data-testid="watch-link"]', `${BASE}/live/${id}`);
    await expectText(red, '[data-testid="name-red"]', 'Ann <b>&');
    await expectText(red, '[data-testid="clock-red"]', '3:00');
    await expectText(red, '[data-testid="clock-black"]', '3:00');
    assert.equal(await red.title(), 'Your move · Ann <b>& – Black');
    await expectAttribute(red, '[data-testid="conn-black"]', 'class', /\boff\b/);
    await shot(red, 'online-02-invite');

    // Black opens the invitation: both are connected, the invitation goes.
    await black.goto(invite);
    await expectText(black, '[data-testid="name-red"]', 'Ann <b>&');
    await expectText(black, '[data-testid="name-black"]', 'Black');
    await expectAttribute(red, '[data-testid="conn-black"]', 'class', /\bon\b/);
    await expectAttribute(black, '[data-testid="conn-red"]', 'class', /\bon\b/);
    await expectHidden(red, '#invite');
    // Black's board is turned: Black's side at the bottom.
    const y = async (p, sq) => (await p.locator(`rect.hit[data-sq="${sq}"]`).boundingBox()).y;
    assert.ok(await y(black, 'e9') > await y(black, 'e0'), 'black sees its side at the bottom');
    assert.ok(await y(red, 'e0') > await y(red, 'e9'), 'red sees its side at the bottom');

    // Moves by click and by drag; each side sees the other's.
    await click(red, 'h2', 'e2');
    await expectCount(black, '#live-moves .mv', 1);
    await expectText(black, '#live-moves .mv[data-ply="1"]', 'C2.5');
    await eventually(async () => assert.ok((await black.evaluate(() => window.xiangqiSounds || [])).includes('move'), 'the move sounded'));
    await dragMove(black, 'h9', 'g7');
    await expectCount(red, '#live-moves .mv', 2);
    await expectText(red, '#live-moves .mv[data-ply="2"]', 'H8+7');
    // Now Red's clock runs (each side's first move is free) on both pages; Black's stands.
    const r1 = await expectClockBelow(red, 'red', 180);
    await expectClockBelow(black, 'red', 180);
    await expectClockBelow(red, 'red', r1);
    await expectAttribute(red, '[data-testid="clock-red"]', 'class', /\brunning\b/);
    await expectText(red, '[data-testid="clock-black"]', '3:00');
    await shot(red, 'online-03-clocks');

    // A spectator sees the moves and is counted.
    await watcher.goto(watch);
    await expectCount(watcher, '#live-moves .mv', 2);
    await expectAttribute(red, '[data-testid="watchers"]', 'data-count', '1');
    await expectText(black, '[data-testid="watchers"]', '1 watching');
    assert.ok(await hidden(watcher, '#live-actions'), 'a spectator has no controls');

    await click(red, 'h0', 'g2');
    await expectCount(black, '#live-moves .mv', 3);
    await expectCount(watcher, '#live-moves .mv', 3);
    // Black's clock runs now; Red got the increment.
    await expectClockBelow(black, 'black', 180);
    await expectAttribute(black, '[data-testid="clock-black"]', 'class', /\brunning\b/);

    // Black reloads mid-game and goes on.
    await black.reload();
    await expectCount(black, '#live-moves .mv', 3);
    await expectClockBelow(black, 'black', 180);
    await click(black, 'i9', 'h9');
    await expectCount(red, '#live-moves .mv', 4);
    await expectCount(watcher, '#live-moves .mv', 4);
    await expectText(watcher, '#live-moves .mv[data-ply="4"]', 'R9.8');
    const game = (await api('GET', `/api/board/game/${id}`)).data;
    assert.equal(game.state.moves, 'h2e2 h9g7 h0g2 i9h9');
    // The spectator looks back: a click on a move, then the arrow keys.
    await watcher.click('#live-moves .mv[data-ply="1"]');
    await expectText(watcher, '[data-testid="viewing"]', 'Viewing 1. C2.5 · the game is at 2… R9.8');
    await expectCount(watcher, '#pieces [data-at="g7"]', 0);
    await expectCount(watcher, '#pieces [data-at="h9"]', 1);
    await watcher.keyboard.press('ArrowRight');
    await expectText(watcher, '[data-testid="viewing"]', 'Viewing 1… H8+7 · the game is at 2… R9.8');
    await expectCount(watcher, '#pieces [data-at="g7"]', 1);
    await watcher.keyboard.press('End');
    await expectCount(watcher, '[data-testid="viewing"]', 0);
    await expectCount(watcher, '#pieces [data-at="h9"]', 1); // the chariot from i9

    // Red offers a draw; Black gets a prompt (not a modal dialog) and accepts.
    await red.click('[data-testid="offer-draw"]');
    await expectText(red, '#live-note-text', 'You offered a draw.');
    await expectText(black, '#live-prompt-text', 'Your opponent offers a draw.');
    await expectHidden(black, '[data-testid="prompt"]', false);
    assert.equal(await black.evaluate(() => document.querySelectorAll('dialog[open]').length), 0);
    await shot(black, 'online-04-draw-prompt');
    await black.click('[data-testid="prompt-accept"]');
    const over = (await eventually(async () => {
      const g = (await api('GET', `/api/board/game/${id}`)).data;
      assert.equal(g.state.status, 'draw');
      return g;
    })).state;
    for (const p of [red, black, watcher]) {
      await expectText(p, '[data-testid="result"] strong', 'Draw');
      await expectText(p, '[data-testid="result"] .account', over.text);
    }
    await shot(red, 'online-05-draw-agreed');
    // In Chinese, the spectator reads the Chinese account.
    await watcher.click('#btn-lang');
    await expectText(watcher, '[data-testid="result"] .account', over.textZh);
    await expectText(watcher, '[data-testid="result"] strong', '和棋');
    await shot(watcher, 'online-06-spectator-chinese');

    // A rematch: both ask, both go to the new game with their tokens, colours swapped.
    const tokenA = new URL(red.url()).hash;
    await red.click('[data-testid="rematch"]');
    await expectText(black, '#live-prompt-text', 'Your opponent wants a rematch.');
    await black.click('[data-testid="prompt-accept"]');
    await red.waitForURL((u) => !u.pathname.endsWith(id));
    await black.waitForURL((u) => !u.pathname.endsWith(id));
    assert.equal(liveId(red), liveId(black));
    assert.equal(new URL(red.url()).hash, tokenA, 'the same token');
    await expectText(red, '#live-status .sub', /You play Black/);
    await expectText(black, '#live-status .sub', /You play Red/);
    await shot(black, 'online-07-rematch');
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup(); await b.cleanup(); await c.cleanup();
  }
});

test('the lobby: one creates a seek, another joins it, both land in the same game', async () => {
  const a = await launch(), b = await launch();
  try {
    let seeker = await a.context.newPage();
    const joiner = await b.context.newPage();
    const errors = [];
    for (const p of [seeker, joiner]) p.on('pageerror', (e) => errors.push(e.message));
    for (const p of [seeker, joiner]) {
      await p.goto(BASE + '/');
      await p.waitForSelector('#dlg-new[open]');
      await p.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
      await p.click('#btn-lobby');
      await p.waitForSelector('#dlg-lobby[open]');
    }
    await seeker.selectOption('#lobby-tc', '300+3');
    await seeker.selectOption('#lobby-side', 'black');
    await seeker.fill('#lobby-name', 'Seeker');
    await seeker.click('[data-testid="create-seek"]');
    await expectHidden(seeker, '[data-testid="seek-waiting"]', false);
    // The other sees it live, and joins.
    await expectText(joiner, '#lobby-seeks tr[data-testid="seek"] .title', 'Seeker');
    await expectText(joiner, '#lobby-seeks tr[data-testid="seek"] td:nth-child(2)', '5+3');
    await expectText(seeker, '#lobby-seeks tr[data-testid="seek"] .acts', 'your seek');
    await joiner.fill('#lobby-name', 'Joiner');
    await shot(joiner, 'online-08-lobby');
    await joiner.click('[data-testid="seek-join"]');
    await seeker.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=/);
    await joiner.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=/);
    assert.equal(liveId(seeker), liveId(joiner));
    await expectText(seeker, '#live-status .sub', /You play Black · 5\+3/);
    await expectText(joiner, '#live-status .sub', /You play Red/);
    for (const p of [seeker, joiner]) {
      await expectText(p, '[data-testid="name-black"]', 'Seeker');
      await expectText(p, '[data-testid="name-red"]', 'Joiner');
      await expectText(p, '[data-testid="clock-red"]', '5:00');
    }
    // The seek is gone from the lobby.
    const lobby = await fetch(BASE + '/api/lobby/stream');
    const reader = lobby.body.getReader();
    const first = JSON.parse(new TextDecoder().decode((await reader.read()).value).split('\n')[0]);
    await reader.cancel();
    assert.deepEqual(first.seeks.filter((s) => s.name === 'Seeker'), []);
    // The joiner resigns (after a move each): both see the result.
    await click(joiner, 'b2', 'e2');
    await expectCount(seeker, '#live-moves .mv', 1);
    await click(seeker, 'b9', 'c7');
    await expectCount(joiner, '#live-moves .mv', 2);
    // Black asks to take its move back; Red, reading Chinese, grants it through the prompt.
    await joiner.click('#btn-lang');
    await seeker.click('[data-testid="takeback"]');
    await expectText(seeker, '#live-note-text', 'You asked to take back your move.');
    await expectText(joiner, '#live-prompt-text', '对手请求悔棋。');
    await expectText(joiner, '#live-status .sub', /你执红方/);
    await shot(joiner, 'online-09-takeback-prompt-chinese');
    await joiner.click('[data-testid="prompt-accept"]');
    for (const p of [seeker, joiner]) await expectCount(p, '#live-moves .mv', 1);
    await expectHidden(joiner, '[data-testid="prompt"]');
    await expectHidden(seeker, '[data-testid="note"]');
    await click(seeker, 'h9', 'g7');
    await expectCount(joiner, '#live-moves .mv', 2);
    await expectText(joiner, '#live-moves .mv[data-ply="2"]', 'H8+7');
    // Black leaves: Red sees it gone, with the time until a claim; Black comes back.
    const seat = seeker.url();
    await seeker.close();
    await expectAttribute(joiner, '[data-testid="conn-black"]', 'class', /\boff\b/);
    await expectText(joiner, '#live-gone-text', /^对手已离开；\d+ 秒后可判对方负。$/);
    await shot(joiner, 'online-10-opponent-gone');
    seeker = await a.context.newPage();
    seeker.on('pageerror', (e) => errors.push(e.message));
    await seeker.goto(seat);
    await expectAttribute(joiner, '[data-testid="conn-black"]', 'class', /\bon\b/);
    await expectHidden(joiner, '[data-testid="opponent-gone"]');
    await expectCount(seeker, '#live-moves .mv', 2);
    await joiner.click('[data-testid="resign"]');
    // The app's own dialog asks first (no native confirm()).
    await joiner.waitForSelector('#dlg-confirm[open]');
    await joiner.click('#confirm-yes');
    await expectText(seeker, '[data-testid="result"] strong', 'Black wins');
    await expectText(joiner, '[data-testid="result"] strong', '黑胜');
    await shot(seeker, 'online-10b-resigned');
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup(); await b.cleanup();
  }
});

// Guests' names are free text anyone can type: whole XSS payloads as a seek's name and the
// taker's name are text in the lobby, on both players' pages and on a spectator's, and no
// script of theirs runs (each page's dialog recorder, proven by a deliberate alert, sees none).
test('guest names that are XSS payloads are text in the lobby and the live game', async () => {
  const IMG = '<img src=x onerror=alert(1)>', SCR = '"><script>alert(1)</script>';
  const a = await launch(), b = await launch(), c = await launch();
  try {
    const seeker = await a.context.newPage();
    const joiner = await b.context.newPage();
    const errors = [], dialogs = new Map();
    for (const p of [seeker, joiner]) {
      p.on('pageerror', (e) => errors.push(e.message));
      await p.goto(BASE + '/');
      dialogs.set(p, await dialogRecorder(p));
      await p.waitForSelector('#dlg-new[open]');
      await p.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
      await p.click('#btn-lobby');
      await p.waitForSelector('#dlg-lobby[open]');
    }
    await seeker.fill('#lobby-name', IMG);
    await seeker.click('[data-testid="create-seek"]');
    await expectHidden(seeker, '[data-testid="seek-waiting"]', false);
    await expectText(joiner, '#lobby-seeks tr[data-testid="seek"] .title', IMG);
    await harmless(joiner, dialogs.get(joiner), IMG);
    await harmless(seeker, dialogs.get(seeker), IMG);
    await joiner.fill('#lobby-name', SCR);
    await joiner.click('[data-testid="seek-join"]');
    await seeker.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=/);
    await joiner.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=/);
    const id = liveId(seeker);
    const names = async (p) => [
      await p.textContent('[data-testid="name-red"]'), await p.textContent('[data-testid="name-black"]'),
    ].sort();
    const watcher = await c.context.newPage();
    watcher.on('pageerror', (e) => errors.push(e.message));
    await watcher.goto(BASE + '/live/' + id);
    dialogs.set(watcher, await dialogRecorder(watcher));
    for (const p of [seeker, joiner, watcher]) {
      await eventually(async () => assert.deepEqual(await names(p), [IMG, SCR].sort()));
      await harmless(p, dialogs.get(p), IMG, SCR);
      // The tab's title names the players: set as text, so the payloads are there verbatim.
      assert.ok((await p.title()).includes(IMG), 'the title: ' + (await p.title()));
    }
    await shot(watcher, 'online-08b-payload-names');
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup(); await b.cleanup(); await c.cleanup();
  }
});

test('low time is marked and sounded, and a flag falls: both see the result', async () => {
  const a = await launch(), b = await launch();
  try {
    // A 12-second game without increment, made through the API; the pages open its seats.
    const ch = (await api('POST', '/api/challenge/open', { clock: { limit: 12, increment: 0 }, color: 'red', red: 'Quick', black: 'Slow' })).data;
    const red = await a.context.newPage();
    const black = await b.context.newPage();
    const errors = [];
    for (const p of [red, black]) p.on('pageerror', (e) => errors.push(e.message));
    await red.goto(BASE + ch.urlRed);
    await black.goto(BASE + ch.urlBlack);
    await expectText(red, '[data-testid="clock-red"]', '0:12');
    await expectText(black, '#live-status .sub', /You play Black · 12s\+0/);
    // Black turns the sound off: the setting is kept with the app's other settings.
    await black.click('[data-testid="sound-toggle"]');
    await expectText(black, '[data-testid="sound-toggle"]', 'Sound: off');
    assert.equal(JSON.parse(await black.evaluate(() => localStorage.getItem('xiangqi.settings'))).sound, false);
    await click(red, 'h2', 'e2');
    await expectCount(black, '#live-moves .mv', 1);
    await click(black, 'h9', 'g7');
    await expectCount(red, '#live-moves .mv', 2);
    // Red's clock runs under ten seconds: tenths are shown, the clock is marked, Red hears it.
    await expectText(red, '[data-testid="clock-red"]', /^0:0\d\.\d$/);
    await expectAttribute(red, '[data-testid="clock-red"]', 'class', /\blow\b/);
    await eventually(async () => assert.ok((await red.evaluate(() => window.xiangqiSounds || [])).includes('lowTime'), 'the low-time sound'));
    await shot(red, 'online-13-low-time');
    // Red lets the flag fall: the server ends the game.
    for (const p of [red, black]) {
      await expectText(p, '[data-testid="result"] strong', 'Black wins', { timeout: 20000 });
    }
    const st = (await api('GET', `/api/board/game/${ch.id}`)).data.state;
    assert.equal(st.status, 'outoftime');
    await expectText(black, '[data-testid="result"] .account', st.text);
    await expectText(red, '[data-testid="clock-red"]', '0:00.0');
    // Black's page played no sound with the sound off.
    assert.deepEqual(await black.evaluate(() => window.xiangqiSounds || []), []);
    await shot(black, 'online-14-flag');
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup(); await b.cleanup();
  }
});

// Positions with like pieces on one file (two chariots, three to five soldiers, soldiers on two
// files, advisors, horses), Red and Black to move.
const NOTATION_FENS = [
  '3k5/9/9/9/4P4/4P4/4P4/R8/R3A4/4K4 w - - 0 1',
  '4k4/9/4n4/9/4n4/p1p6/p1p6/9/9/3K5 b - - 0 1',
  '5k3/9/4P4/4P4/4P4/4P4/4P4/9/9/3K5 w - - 0 1',
  '5k3/9/4P4/4P4/4P4/4P4/9/9/9/3K5 w - - 0 1',
  '3ak4/9/3a5/9/9/9/9/9/9/3K5 b - - 0 1',
  '4k4/9/9/9/2P1P4/2P1P4/2P6/9/4C4/3K5 w - - 0 1',
  'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1',
];

test('the live page writes moves in WXF and Chinese as the server does', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    await page.goto(BASE + '/');
    const cases = [];
    for (const fen of NOTATION_FENS) {
      const pos = await api('GET', '/api/position?fen=' + encodeURIComponent(fen));
      assert.equal(pos.status, 200, `${fen}: ${JSON.stringify(pos.data)}`);
      for (const uci of pos.data.legal) {
        const g = await api('POST', '/api/games', { mode: 'analysis', fen, moves: [uci] });
        assert.equal(g.status, 201);
        const m = g.data.moves[0];
        cases.push({ fen, uci, iccs: m.iccs, wxf: m.wxf, chinese: m.chinese });
      }
    }
    assert.ok(cases.length > 100, `${cases.length} moves`);
    const ours = await page.evaluate(async (cs) => {
      const { moveNames } = await import('/notation.js');
      return cs.map((c) => ({ ...c, ...moveNames(c.fen, c.uci) }));
    }, cases);
    assert.deepEqual(ours, cases);
  } finally {
    await cleanup();
  }
});

test('a player whose opponent has left claims the victory after the grace period', async () => {
  const a = await launch(), b = await launch();
  try {
    // 1+0: a game estimated under 3 minutes, so the grace period is 15 s.
    const ch = (await api('POST', '/api/challenge/open', { clock: { limit: 60, increment: 0 }, color: 'red' })).data;
    const red = await a.context.newPage();
    const black = await b.context.newPage();
    const errors = [];
    red.on('pageerror', (e) => errors.push(e.message));
    await red.goto(BASE + ch.urlRed);
    await black.goto(BASE + ch.urlBlack);
    await click(red, 'h2', 'e2');
    await expectCount(black, '#live-moves .mv', 1);
    await click(black, 'h9', 'g7');
    await expectCount(red, '#live-moves .mv', 2);
    await black.close();
    await expectText(red, '#live-gone-text', /^Your opponent left; you can claim the game in \d+ s\.$/);
    assert.ok(await hidden(red, '[data-testid="claim-victory"]'), 'no claim before the grace period');
    await expectHidden(red, '[data-testid="claim-victory"]', false, { timeout: 25000 });
    await expectText(red, '#live-gone-text', 'Your opponent left the game.');
    await expectHidden(red, '[data-testid="claim-draw"]', false);
    await shot(red, 'online-15-claim');
    await red.click('[data-testid="claim-victory"]');
    await expectText(red, '[data-testid="result"] strong', 'Red wins');
    const st = (await api('GET', `/api/board/game/${ch.id}`)).data.state;
    assert.equal(st.status, 'timeout');
    await expectText(red, '[data-testid="result"] .account', st.text);
    await expectHidden(red, '[data-testid="opponent-gone"]');
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup(); await b.cleanup();
  }
});

test('the live page fits a phone', async () => {
  const a = await launch();
  try {
    const ch = (await api('POST', '/api/challenge/open', { clock: { limit: 300, increment: 3 }, color: 'red', name: 'A very long player name indeed' })).data;
    const page = await a.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(BASE + ch.urlRed);
    await click(page, 'h2', 'e2');
    await expectCount(page, '#live-moves .mv', 1);
    await page.click('[data-testid="offer-draw"]');
    await expectText(page, '#live-note-text', 'You offered a draw.');
    // Nothing sticks out sideways: the long name is cut, the clocks and the panel fit.
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
    const box = await page.locator('[data-testid="clock-red"]').boundingBox();
    assert.ok(box.x + box.width <= 390, `the clock ends at ${box.x + box.width}`);
    await shot(page, 'online-16-phone');
  } finally {
    await a.cleanup();
  }
});
