// The endgame tablebase's panel, by clicks, on a server started here with `--tb` on tables
// generated here by the CLI (KRK and KRKA, a second or so): on an analysis board set up in
// KRKA the panel shows the set, who wins and in how many moves, and every legal move with
// its result best first; a click on the best move plays it and the panel follows (now the
// defender's loss); a position no table holds (the start) hides the panel. Screenshots at
// 1280x800 and 360x640, with no sideways scroll on the phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { launch, shot, eventually } from '../lib.mjs';
import { leftovers } from '../i18n-check.mjs';

const BIN = process.env.XIANGQI_BIN;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
    s.on('error', reject);
  });
}

async function startServer(port, data, tables) {
  const child = spawn(BIN, ['serve', '--host', '127.0.0.1', '--port', String(port), '--no-fallback', '--data', data, '--tb', tables], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  for (let i = 0; i < 100; i++) {
    if (out.includes('serving on')) return { child, out: () => out };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not start: ' + out);
}

// Red: general e0, chariot a5; Black: general d9, advisor e8. Red to move mates in 3 moves.
const FEN = '3k5/4a4/9/9/R8/9/9/9/9/4K4 w - - 0 1';

const rows = (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid="tablebase-move"]')]
  .map((tr) => ({ uci: tr.dataset.uci, category: tr.dataset.category, text: tr.textContent })));

async function ready(page) {
  await page.waitForFunction(() => document.documentElement.dataset.ready === '1', null, { timeout: 10000 });
}

test('the tablebase panel shows every move\'s result and plays a move', { skip: !BIN && 'XIANGQI_BIN is not set' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xiangqi-e2e-tb-'));
  const tables = path.join(dir, 'tables');
  execFileSync(BIN, ['tb', 'generate', 'KRK', 'KRKA', '-o', tables, '--threads', '1'], { stdio: 'ignore' });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(port, path.join(dir, 'data'), tables);
  const a = await launch();
  try {
    assert.match(server.out(), /the tablebases hold 2 sets/);
    const answer = await (await fetch(`${base}/api/tablebase?fen=${encodeURIComponent(FEN)}`)).json();
    assert.equal(answer.category, 'win', JSON.stringify(answer));
    assert.equal(answer.set, 'KRKA');
    const best = answer.moves[0];
    assert.equal(best.category, 'loss');

    const res = await fetch(base + '/api/games', { method: 'POST', body: JSON.stringify({ mode: 'analysis', fen: FEN }) });
    const g = await res.json();
    const page = await a.context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${base}/?game=${g.id}`);
    await ready(page);
    await page.waitForSelector('[data-testid="tablebase-panel"]:not(.hidden)');
    await eventually(async () => {
      const r = await rows(page);
      assert.equal(r.length, answer.moves.length, JSON.stringify(r));
      assert.equal(r[0].uci, best.uci);
      assert.equal(r[0].category, 'win');
    });
    assert.equal(await page.textContent('[data-testid="tablebase-set"]'), 'KRKA');
    const mateMoves = (answer.dtm + 1) / 2;
    const result = await page.textContent('[data-testid="tablebase-result"]');
    assert.match(result, /Red wins/);
    assert.match(result, new RegExp(`mate in ${mateMoves} move`));
    // The moves come best first: every win before every draw before every loss.
    const order = { win: 0, unknown: 1, draw: 2, loss: 3 };
    const r = await rows(page);
    assert.ok(r.every((x, i) => i === 0 || order[r[i - 1].category] <= order[x.category]), JSON.stringify(r));
    await shot(page, 'tablebase-1280');

    // A click plays the move on the analysis board; the panel follows: Black loses now.
    await page.click(`[data-testid="tablebase-move"][data-uci="${best.uci}"]`);
    await eventually(async () => {
      const game = await (await fetch(`${base}/api/games/${g.id}`)).json();
      assert.deepEqual(game.moves.map((m) => m.uci), [best.uci]);
    });
    await eventually(async () => {
      const text = await page.textContent('[data-testid="tablebase-result"]');
      assert.match(text, /Black loses/);
      const r2 = await rows(page);
      assert.ok(r2.length > 0 && r2.every((x) => x.category === 'loss'), JSON.stringify(r2));
    });

    // The phone: the panel fits, no sideways scroll.
    await page.setViewportSize({ width: 360, height: 640 });
    await page.evaluate(() => document.querySelector('[data-testid="tablebase-panel"]').scrollIntoView());
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(wide <= 0, `the page scrolls sideways by ${wide}px at 360px`);
    await shot(page, 'tablebase-360');

    // The panel in each language (the browser's): nothing of it left in English.
    for (const locale of ['zh-CN', 'zh-TW', 'vi-VN']) {
      const l = await launch({ locale });
      try {
        const p = await l.context.newPage();
        await p.goto(`${base}/?game=${g.id}`);
        await ready(p);
        await p.waitForSelector('[data-testid="tablebase-panel"]:not(.hidden) [data-testid="tablebase-move"]');
        const lang = await p.evaluate(() => document.documentElement.lang);
        assert.notEqual(lang, 'en', locale);
        assert.deepEqual(await leftovers(p, lang), [], `${lang}: English left on the page with the tablebase panel`);
        if (lang === 'vi') await shot(p, 'tablebase-vi');
      } finally {
        await l.cleanup();
      }
    }

    // The start position has no table: the panel is hidden.
    const res2 = await fetch(base + '/api/games', { method: 'POST', body: JSON.stringify({ mode: 'analysis' }) });
    const g2 = await res2.json();
    await page.goto(`${base}/?game=${g2.id}`);
    await ready(page);
    await page.waitForSelector('#board rect.hit');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(await page.$eval('[data-testid="tablebase-panel"]', (el) => el.classList.contains('hidden')));
  } finally {
    await a.cleanup();
    server.child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The rule on perpetual check in the panel (KRKH, generated here with KRK and KHK): a position
// that is a draw if repetition were a draw, won by Red under the rule this server's games
// apply, shows it as such, and its only move as a win by the rule; also in Chinese.
test('the tablebase panel shows the wins and losses by the rule on perpetual check', { skip: !BIN && 'XIANGQI_BIN is not set' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xiangqi-e2e-tb-rule-'));
  const tables = path.join(dir, 'tables');
  execFileSync(BIN, ['tb', 'generate', 'KRKH', '-o', tables, '--threads', '2'], { stdio: 'ignore' });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(port, path.join(dir, 'data'), tables);
  const a = await launch();
  try {
    const fen = '9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1';
    const answer = await (await fetch(`${base}/api/tablebase?fen=${encodeURIComponent(fen)}`)).json();
    assert.equal(answer.category, 'draw', JSON.stringify(answer));
    assert.equal(answer.rules, 'win-by-rule', JSON.stringify(answer));
    const res = await fetch(base + '/api/games', { method: 'POST', body: JSON.stringify({ mode: 'analysis', fen }) });
    const g = await res.json();
    const page = await a.context.newPage();
    await page.goto(`${base}/?game=${g.id}`);
    await ready(page);
    await page.waitForSelector('[data-testid="tablebase-panel"]:not(.hidden) [data-testid="tablebase-move"]');
    const result = await page.textContent('[data-testid="tablebase-result"]');
    assert.match(result, /Red wins by the rule on perpetual check/);
    const r = await rows(page);
    assert.deepEqual(r.map((x) => [x.uci, x.category]), [['d0d1', 'win-by-rule']]);
    assert.match(r[0].text, /Win by rule/);
    const l = await launch({ locale: 'zh-CN' });
    try {
      const p = await l.context.newPage();
      await p.goto(`${base}/?game=${g.id}`);
      await ready(p);
      await p.waitForSelector('[data-testid="tablebase-panel"]:not(.hidden) [data-testid="tablebase-move"]');
      assert.match(await p.textContent('[data-testid="tablebase-result"]'), /长将/);
      assert.deepEqual(await leftovers(p, 'zh-Hans'), [], 'English left on the page with a result by the rule');
    } finally {
      await l.cleanup();
    }
  } finally {
    await a.cleanup();
    server.child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
