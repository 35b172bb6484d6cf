// Records shown whole: the tags above the move list, comments at their moves (and edited),
// variations as a tree that folds, the 98-variation XQF readable; board coordinates per
// notation; themes, animation and sounds, and the settings remembered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  launch, shot, BASE, expectText, expectCount, expectAttribute, expectGame, gameIdOf, eventually,
} from '../lib.mjs';

const SHARED = process.env.XIANGQI_SHARED || path.resolve('../../../../shared');
const RECORDS = path.join(SHARED, 'data/records');

// Imports a record file through the server's API; answers the new game's id.
async function importFile(rel) {
  const res = await fetch(BASE + '/api/import', { method: 'POST', body: fs.readFileSync(path.join(RECORDS, rel)) });
  assert.equal(res.status, 201, `import ${rel}`);
  return (await res.json()).games[0].id;
}
async function importText(text) {
  const res = await fetch(BASE + '/api/import', { method: 'POST', body: text });
  assert.equal(res.status, 201, 'import');
  return (await res.json()).games[0].id;
}

// A page with these settings (the rest as stored), on game `id`.
async function openWith(context, id, s) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(BASE + '/');
  await page.evaluate((v) => {
    const cur = JSON.parse(localStorage.getItem('xiangqi.settings') || '{}');
    localStorage.setItem('xiangqi.settings', JSON.stringify({ ...cur, ...v }));
  }, { lang: 'en', notation: 'wxf', ...s });
  if (id != null) {
    await page.goto(`${BASE}/?game=${id}`);
    await page.waitForFunction(() => document.querySelectorAll('#movelist .mv').length > 0);
  }
  return { page, errors };
}

test('an imported record shows its tags above the move list and its comments at their moves', async () => {
  const { context, cleanup } = await launch();
  try {
    const { page, errors } = await openWith(context, null, {});
    await page.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
    // A CCGC game (GBK PGN) through the import dialog's file choice.
    await page.click('#btn-import');
    await page.setInputFiles('#imp-file', path.join(RECORDS, 'pgn-chinese/eleeye-ccgc-01.pgn'));
    await page.click('#imp-go');
    const id = await gameIdOf(page);
    const tags = '#record-tags';
    await expectText(page, `${tags} .tag-title`, /1st Chinese Computer Games Championship, Beijing 2006 · Round 1/);
    await expectText(page, `${tags} .tag-meta`, '2006.08.03 · 北京中国科技馆');
    await expectText(page, `${tags} .tag-players`, /宝岛一号 – .*相眼竞技 0-1/);
    await expectText(page, `${tags} .tag-opening`, /^C48 中炮过河车互进七兵对屏风马平炮兑车/);
    // Every tag in the details.
    await page.click(`${tags} summary`);
    await expectText(page, `${tags} dd[data-tag="Variation"]`, '红仕角炮对黑退边炮');
    await expectText(page, `${tags} dd[data-tag="Result"]`, '0-1');
    await shot(page, '20-record-tags');

    // 七星聚会 (XQF): a comment before the first move, in the main line and in variations.
    const xid = await importFile('xqf/eleeye-xqfexamb.xqf');
    await page.goto(`${BASE}/?game=${xid}`);
    await expectText(page, `${tags} .tag-title`, '七星聚会');
    await expectText(page, '#movelist li.comment[data-path=""]', /^“七星”，可有三种解释/);
    // The comment of 6... P6+1 (main line), right after it; its variation's comment inside it.
    const g = await expectGame(xid, (x) => assert.ok(Object.keys(x.notes).length > 5));
    const onMain = Object.keys(g.notes).find((p) => p && g.moves.map((m) => m.uci).join(' ').startsWith(p));
    const inVar = Object.keys(g.notes).find((p) => p && !g.moves.map((m) => m.uci).join(' ').startsWith(p));
    await expectText(page, `#movelist li.comment[data-path="${onMain}"]`, g.notes[onMain].comment);
    const plies = onMain.split(' ').length;
    assert.equal(await page.evaluate((n) => {
      const c = document.querySelector(`#movelist li.comment[data-path="${CSS.escape(n.path)}"]`);
      return [...c.previousElementSibling.querySelectorAll('.mv')].pop().dataset.ply;
    }, { path: onMain }), String(plies), 'the comment follows its move');
    await expectText(page, `#movelist .vcomment[data-path="${inVar}"]`, g.notes[inVar].comment);
    // The move shown has its whole comment in the comment box.
    await page.click(`#movelist .mv[data-ply="${plies}"]`);
    await expectText(page, '#comment-current', g.notes[onMain].comment);
    await shot(page, '21-record-comments');

    // Editing: add a comment to move 2, change it, see it in the list; a reload keeps it.
    await page.click('#movelist .mv[data-ply="2"]');
    await expectText(page, '#comment-edit', 'Add a comment');
    await page.click('#comment-edit');
    await page.fill('#comment-text', 'The king steps out.\nForced.');
    await page.click('#comment-save');
    const path2 = g.moves.slice(0, 2).map((m) => m.uci).join(' ');
    await expectGame(xid, (x) => assert.equal(x.notes[path2]?.comment, 'The king steps out.\nForced.'));
    await expectText(page, `#movelist li.comment[data-path="${path2}"]`, 'The king steps out.\nForced.');
    // Clicking a comment in the list opens it for editing.
    await page.click(`#movelist li.comment[data-path="${path2}"]`);
    await page.fill('#comment-text', 'The king steps out.');
    await page.keyboard.press('Control+Enter');
    await expectGame(xid, (x) => assert.equal(x.notes[path2]?.comment, 'The king steps out.'));
    await page.reload();
    await expectText(page, `#movelist li.comment[data-path="${path2}"]`, 'The king steps out.');
    // The export has it.
    const pgn = await (await fetch(`${BASE}/api/games/${xid}/pgn?notation=iccs`)).text();
    assert.match(pgn, /\{The king steps out\.\}/);
    assert.match(pgn, /\{“七星”，可有三种解释/);
    assert.ok(id);
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

test('variations are a tree that folds', async () => {
  const { context, cleanup } = await launch();
  try {
    const id = await importText('[Event "fold"]\n\n1. h2e2 h9g7 (1... b9c7 2. h0g2 (2. b0c2 {knight} a9b9) i9h9) (1... h7e7) 2. h0g2 i9h9 *\n');
    const { page, errors } = await openWith(context, id, { notation: 'iccs' });
    // One row after 1... H9-G7 with both variations; the nested one inside the first.
    await expectCount(page, '#movelist li.var', 1);
    await expectText(page, '#var-count', '3 variations');
    await expectCount(page, '#movelist li.var .vline', 3);
    await expectCount(page, '#movelist li.var .sub', 1);
    await expectText(page, '#movelist li.var .sub .vline', /\(2\.\s*B0-C2.*knight.*A9-B9\)/);
    const open = await page.evaluate(() => document.querySelector('#movelist li.var').getBoundingClientRect().height);
    // Fold the row: one line, the nested variation hidden.
    await page.click('#movelist li.var > .fold');
    await expectAttribute(page, '#movelist li.var', 'class', /folded/);
    await expectAttribute(page, '#movelist li.var > .fold', 'aria-expanded', 'false');
    const row = await page.evaluate(() => document.querySelector('#movelist li').getBoundingClientRect().height);
    const folded = await page.evaluate(() => document.querySelector('#movelist li.var').getBoundingClientRect().height);
    assert.ok(folded <= row * 1.3, `a folded row is one line (${folded} px, a move row ${row} px)`);
    assert.ok(folded < open, 'folding makes it smaller');
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('#movelist .sub')).display), 'none');
    // Unfold; fold the nested one alone.
    await page.click('#movelist li.var > .fold');
    await expectAttribute(page, '#movelist li.var', 'class', /^var$/);
    await page.click('#movelist .sub > .fold');
    await expectAttribute(page, '#movelist .sub', 'class', /folded/);
    await expectAttribute(page, '#movelist li.var', 'class', /^var$/);
    await page.click('#var-fold');
    await expectAttribute(page, '#movelist li.var', 'class', /folded/);
    await page.click('#var-unfold');
    await expectAttribute(page, '#movelist li.var', 'class', /^var$/);
    await expectAttribute(page, '#movelist .sub', 'class', /^sub$/);
    // A right click on a move of a variation comments on it, the main line unchanged.
    await page.locator('#movelist li.var .vbody > .vline').nth(1).locator('.vmv').first().click({ button: 'right' });
    await expectText(page, '#comment-box .label', 'Comment on 1… H7-E7');
    await page.fill('#comment-text', 'the central cannon');
    await page.click('#comment-save');
    await expectGame(id, (g) => {
      assert.equal(g.notes['h2e2 h7e7']?.comment, 'the central cannon');
      assert.deepEqual(g.moves.map((m) => m.uci), ['h2e2', 'h9g7', 'h0g2', 'i9h9']);
    });
    await expectText(page, '#movelist .vcomment[data-path="h2e2 h7e7"]', 'the central cannon');
    // A move of the nested variation is clickable (it becomes the main line).
    await page.locator('#movelist .sub .vmv').nth(1).click();
    await expectGame(id, (g) => assert.deepEqual(g.moves.map((m) => m.uci), ['h2e2', 'b9c7', 'b0c2', 'a9b9']));
    await expectAttribute(page, '#movelist .mv.current', 'data-ply', '4');
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

test('the XQF with 98 variations stays readable: the main line visible, rows bounded', async () => {
  const { context, cleanup } = await launch();
  try {
    const id = await importFile('xqf/hbsxcjp-hard-feixiangju-zu7jin1.xqf');
    const { page, errors } = await openWith(context, id, {});
    await expectText(page, '#var-count', '98 variations');
    await expectCount(page, '#movelist .mv[data-ply]', 50);
    await page.keyboard.press('Home');
    await expectText(page, '#status', /start position · the game is at 25… /);
    const m = await page.evaluate(() => {
      const list = document.querySelector('#movelist');
      const lr = list.getBoundingClientRect();
      const row = list.querySelector('li').getBoundingClientRect().height;
      const vars = [...list.querySelectorAll('li.var')];
      const visible = [...list.querySelectorAll('.mv[data-ply]')].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.top >= lr.top && r.bottom <= lr.bottom;
      }).length;
      return {
        listH: lr.height, scrollW: list.scrollWidth, clientW: list.clientWidth, row,
        vars: vars.length, folded: vars.filter((v) => v.classList.contains('folded')).length,
        maxVarH: Math.max(...vars.map((v) => v.getBoundingClientRect().height)),
        visible, pageW: document.documentElement.scrollWidth, winW: window.innerWidth,
      };
    });
    assert.ok(m.vars > 0 && m.vars <= 50, `at most one variation row per main-line move (${m.vars})`);
    assert.equal(m.folded, m.vars, 'with this many, variations start folded');
    assert.ok(m.maxVarH <= m.row * 1.3, `each variation row is one line (${m.maxVarH} px; a move row ${m.row} px)`);
    assert.ok(m.scrollW <= m.clientW, `nothing overflows the list sideways (${m.scrollW} > ${m.clientW})`);
    assert.ok(m.pageW <= m.winW, 'nor the page');
    assert.ok(m.listH <= 310, `the list keeps its height (${m.listH} px)`);
    assert.ok(m.visible >= 6, `the main line is visible at the start (${m.visible} moves)`);
    await shot(page, '22-xqf-98-variations');
    // The last move: the list scrolls to it; it is the current one.
    await page.keyboard.press('End');
    await expectAttribute(page, '#movelist .mv.current', 'data-ply', '50');
    assert.ok(await page.evaluate(() => {
      const l = document.querySelector('#movelist').getBoundingClientRect();
      const c = document.querySelector('#movelist .mv.current').getBoundingClientRect();
      return c.top >= l.top && c.bottom <= l.bottom;
    }), 'the current move is in view');
    // Unfolded, each variation wraps inside the list (still no sideways overflow).
    await page.click('#var-unfold');
    await expectCount(page, '#movelist li.var.folded', 0);
    assert.ok(await page.evaluate(() => {
      const l = document.querySelector('#movelist');
      return l.scrollWidth <= l.clientWidth;
    }));
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

// The coordinates drawn along one edge, left to right on the screen.
async function edge(page, which) {
  return page.evaluate((w) => [...document.querySelectorAll(`#board .b-coord[data-edge="${w}"]`)]
    .map((e) => ({ x: +e.getAttribute('x'), y: +e.getAttribute('y'), t: e.textContent }))
    .sort((a, b) => a.x - b.x), which);
}

test('the board coordinates follow the chosen notation', async () => {
  const { context, cleanup } = await launch();
  try {
    const id = await importText('1. h2e2 h9g7 *\n');
    const { page, errors } = await openWith(context, id, { notation: 'wxf' });
    let red = await edge(page, 'red'), black = await edge(page, 'black');
    assert.deepEqual(red.map((c) => c.t), ['9', '8', '7', '6', '5', '4', '3', '2', '1']);
    assert.deepEqual(black.map((c) => c.t), ['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    assert.ok(red[0].y > black[0].y, "Red's numbers along Red's edge (the bottom)");
    assert.equal((await edge(page, 'rank')).length, 0);
    // Flipped: Red's edge is at the top, its numbers read 1…9 from the left.
    await page.click('#btn-flip');
    await eventually(async () => {
      red = await edge(page, 'red'); black = await edge(page, 'black');
      assert.ok(red[0].y < black[0].y);
      assert.deepEqual(red.map((c) => c.t), ['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    });
    await page.click('#btn-flip');
    // Chinese: Red 九…一, Black 1…9.
    await page.click('#btn-settings');
    await page.selectOption('#set-notation', 'chinese');
    await page.click('#dlg-settings button[value=ok]');
    await eventually(async () => {
      assert.deepEqual((await edge(page, 'red')).map((c) => c.t), ['九', '八', '七', '六', '五', '四', '三', '二', '一']);
      assert.deepEqual((await edge(page, 'black')).map((c) => c.t), ['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    });
    await shot(page, '23-coordinates-chinese');
    // ICCS: files a-i and ranks 0-9.
    await page.click('#btn-settings');
    await page.selectOption('#set-notation', 'iccs');
    await page.click('#dlg-settings button[value=ok]');
    await eventually(async () => {
      assert.deepEqual((await edge(page, 'file')).map((c) => c.t), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
      const ranks = await page.evaluate(() => [...document.querySelectorAll('#board .b-coord[data-edge="rank"]')]
        .sort((a, b) => b.getAttribute('y') - a.getAttribute('y')).map((e) => e.textContent));
      assert.deepEqual(ranks, ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
      assert.equal((await edge(page, 'red')).length, 0);
    });
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

test('themes switch and are remembered; moves animate and sound', async () => {
  const { context, cleanup } = await launch();
  try {
    const id = await importText('1. h2e2 h9g7 2. h0g2 i9h9 3. e2e6 *\n');
    const { page, errors } = await openWith(context, id, { theme: 'light' });
    const look = () => page.evaluate(() => ({
      theme: document.documentElement.dataset.theme, board: document.documentElement.dataset.board,
      pieces: document.documentElement.dataset.pieces,
      bg: getComputedStyle(document.body).backgroundColor,
      stop: getComputedStyle(document.querySelector('#board .board-a')).stopColor,
      body: getComputedStyle(document.querySelector('#board .pc.red .pc-body')).fill,
    }));
    const before = await look();
    assert.deepEqual([before.theme, before.board, before.pieces], ['light', 'wood', 'classic']);
    await page.click('#btn-settings');
    await page.selectOption('#set-theme', 'dark');
    await page.selectOption('#set-board', 'jade');
    await page.selectOption('#set-piece-style', 'flat');
    await page.click('#dlg-settings button[value=ok]');
    await eventually(async () => {
      const now = await look();
      assert.deepEqual([now.theme, now.board, now.pieces], ['dark', 'jade', 'flat']);
      assert.notEqual(now.bg, before.bg, 'the page is dark');
      assert.notEqual(now.stop, before.stop, 'the board has other colours');
      assert.notEqual(now.body, before.body, 'the pieces too');
    });
    const dark = await look();
    const [r, g, b] = dark.bg.match(/\d+/g).map(Number);
    assert.ok(r + g + b < 150, `a dark background (${dark.bg})`);
    await shot(page, '24-dark-jade-flat');
    // Remembered: a reload (and a new page) has them.
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('#movelist .mv').length > 0);
    assert.deepEqual(await look(), dark);
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('xiangqi.settings')));
    assert.equal(saved.theme, 'dark'); assert.equal(saved.board, 'jade'); assert.equal(saved.pieceStyle, 'flat');
    // The third board and piece style, and back to light.
    await page.click('#btn-settings');
    await page.selectOption('#set-board', 'paper');
    await page.selectOption('#set-piece-style', 'ink');
    await page.selectOption('#set-theme', 'light');
    await page.click('#dlg-settings button[value=ok]');
    await expectAttribute(page, 'html', 'data-board', 'paper');
    await expectAttribute(page, 'html', 'data-pieces', 'ink');
    await expectAttribute(page, 'html', 'data-theme', 'light');

    // Stepping on a move: the piece slides there and the move sounds; a capture its own sound.
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.deepEqual(await page.evaluate(() => window.xiangqiAnimated), ['h2e2']));
    await eventually(async () => assert.deepEqual(await page.evaluate(() => window.xiangqiSounds), ['move']));
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.deepEqual(await page.evaluate(() => window.xiangqiSounds), ['move', 'capture']));
    // Sounds off: none.
    await page.click('#btn-settings');
    await page.uncheck('#set-sound');
    await page.click('#dlg-settings button[value=ok]');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowRight');
    await expectAttribute(page, '#movelist .mv.current', 'data-ply', '5');
    assert.deepEqual(await page.evaluate(() => window.xiangqiSounds), ['move', 'capture']);
    assert.equal(await page.evaluate(() => window.xiangqiAnimated.length), 3);

    // Less motion asked for: no animation.
    const calm = await context.newPage();
    await calm.emulateMedia({ reducedMotion: 'reduce' });
    await calm.goto(`${BASE}/?game=${id}`);
    await calm.waitForFunction(() => document.querySelectorAll('#movelist .mv').length > 0);
    await calm.keyboard.press('Home');
    await calm.keyboard.press('ArrowRight');
    await expectAttribute(calm, '#movelist .mv.current', 'data-ply', '1');
    assert.equal(await calm.evaluate(() => window.xiangqiAnimated), undefined);
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});
