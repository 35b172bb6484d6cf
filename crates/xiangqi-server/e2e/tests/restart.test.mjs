// Kill the server with SIGKILL in the middle of a game, start it again on the same data
// folder: every move the server confirmed is still there, and the page shows the game. A live
// game's page reconnects by itself and shows the moves and the clocks again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { launch, shot, eventually, expectCount, expectText } from '../lib.mjs';

const BIN = process.env.XIANGQI_BIN;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
    s.on('error', reject);
  });
}

async function startServer(port, data) {
  const child = spawn(BIN, ['serve', '--host', '127.0.0.1', '--port', String(port), '--no-fallback', '--data', data], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  for (let i = 0; i < 100; i++) {
    if (out.includes('serving on')) return child;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not start: ' + out);
}

// A long legal game (two players), so moves can be sent without waiting for anything.
const MOVES = ['h2e2', 'h9g7', 'h0g2', 'i9h9', 'i0h0', 'b9c7', 'b0c2', 'a9b9', 'a0b0', 'b7b3', 'c3c4', 'h7h3',
  'g3g4', 'g6g5', 'g4g5', 'g7f5', 'g5f5', 'c6c5', 'c4c5', 'c7b5', 'c5b5', 'b9a9', 'a3a4'];

test('SIGKILL mid-game loses no confirmed move', { skip: !BIN && 'XIANGQI_BIN is not set' }, async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'xiangqi-restart-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server = await startServer(port, data);
  let confirmed = [];
  let id;
  try {
    const res = await fetch(base + '/api/games', { method: 'POST', body: JSON.stringify({ mode: 'two-player' }) });
    id = (await res.json()).id;
    // Send moves one after another; kill the server while they are under way.
    const sender = (async () => {
      for (let i = 0; i < MOVES.length; i++) {
        try {
          const r = await fetch(`${base}/api/games/${id}/moves`, { method: 'POST', body: JSON.stringify({ move: MOVES[i], ply: i }) });
          if (r.status !== 200) break;
          await r.json();
          confirmed.push(MOVES[i]);
        } catch { break; }
      }
    })();
    // wait until some moves are in, then kill
    let sending = true;
    sender.finally(() => { sending = false; });
    await eventually(() => assert.ok(confirmed.length >= 8 || !sending, `${confirmed.length} moves confirmed`), { interval: 2 });
    server.kill('SIGKILL');
    await sender;
    if (server.exitCode === null && server.signalCode === null) {
      await new Promise((r) => server.once('exit', r));
    }
    assert.ok(confirmed.length >= 8 && confirmed.length < MOVES.length - 1, `killed mid-game after ${confirmed.length} confirmed moves`);

    server = await startServer(port, data);
    const g = await (await fetch(`${base}/api/games/${id}`)).json();
    const stored = g.moves.map((m) => m.uci);
    assert.ok(stored.length >= confirmed.length, `stored ${stored.length} moves, confirmed ${confirmed.length}`);
    assert.deepEqual(stored.slice(0, confirmed.length), confirmed);
    // the game goes on from there
    const n = stored.length;
    const r = await fetch(`${base}/api/games/${id}/moves`, { method: 'POST', body: JSON.stringify({ move: MOVES[n], ply: n }) });
    assert.equal(r.status, 200);

    // and the page shows it
    const { context, cleanup } = await launch();
    try {
      const page = await context.newPage();
      await page.goto(`${base}/?game=${id}`);
      await expectCount(page, '#movelist .mv', n + 1);
      await shot(page, '10-after-restart');
    } finally {
      await cleanup();
    }
  } finally {
    server.kill('SIGKILL');
    fs.rmSync(data, { recursive: true, force: true });
  }
});

// Seconds on a clock's face: "4:59" -> 299, "0:09.5" -> 9.5.
function seconds(text) {
  const m = /^(?:(\d+):)?(\d+):(\d\d(?:\.\d)?)$/.exec(text || '');
  assert.ok(m, `a clock's text: ${text}`);
  return (+(m[1] || 0)) * 3600 + (+m[2]) * 60 + (+m[3]);
}

test('SIGKILL mid-way through a live game with clocks: the page comes back with moves and clocks', { skip: !BIN && 'XIANGQI_BIN is not set' }, async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'xiangqi-restart-live-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server = await startServer(port, data);
  const { context, cleanup } = await launch();
  try {
    const c = await (await fetch(base + '/api/challenge/open', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ clock: { limit: 300, increment: 3 }, color: 'red', name: 'Kim' }),
    })).json();
    const blackMove = async (m) => {
      const r = await fetch(`${base}/api/board/game/${c.id}/move/${m}`, { method: 'POST', headers: { Authorization: 'Bearer ' + c.tokenBlack } });
      assert.equal(r.status, 200, await r.text());
    };
    const state = async () => (await (await fetch(`${base}/api/board/game/${c.id}`)).json()).state;
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(base + c.urlRed);
    await expectText(page, '[data-testid="name-red"]', 'Kim');
    // Red by clicks, Black through the API.
    for (const [i, [r, b]] of [['h2e2', 'h9g7'], ['h0g2', 'i9h9']].entries()) {
      await page.click(`rect.hit[data-sq="${r.slice(0, 2)}"]`);
      await page.click(`rect.hit[data-sq="${r.slice(2)}"]`);
      await eventually(async () => assert.equal((await state()).moves.split(' ').length, 2 * i + 1));
      await blackMove(b);
      await expectCount(page, '#live-moves .mv', 2 * i + 2);
    }
    // Red's clock runs; let it lose a second or two, then kill the server.
    const t0 = (await state()).rtime;
    await eventually(async () => assert.ok((await state()).rtime <= t0 - 1500, 'red has thought 1.5 s'));
    const before = await state();
    server.kill('SIGKILL');
    await new Promise((r) => (server.exitCode !== null || server.signalCode !== null ? r() : server.once('exit', r)));
    await expectText(page, '#live-status .sub', /reconnecting/i);
    await shot(page, 'online-11-server-gone');
    // Down for two seconds more, which nobody is charged.
    await new Promise((r) => setTimeout(r, 2000));

    server = await startServer(port, data);
    const after = await state();
    assert.equal(after.moves, 'h2e2 h9g7 h0g2 i9h9');
    assert.equal(after.status, 'started');
    // Red is charged for its turn up to the server's last heartbeat before the kill (at most
    // 0.5 s before it); the time the server was down is charged to nobody: Red's clock is back
    // within a second of what it showed at the kill.
    assert.ok(Math.abs(after.rtime - before.rtime) <= 1000, `rtime ${before.rtime} at the kill, ${after.rtime} after the restart`);
    assert.equal(after.btime, before.btime);
    // The page reconnects by itself: the moves and the server's clocks are back.
    await expectText(page, '#live-status .sub', /You play Red/, { timeout: 20000 });
    await expectCount(page, '#live-moves .mv', 4);
    await expectText(page, '[data-testid="clock-black"]', `${Math.floor(after.btime / 60000)}:${String(Math.floor(after.btime / 1000) % 60).padStart(2, '0')}`);
    const shown = seconds(await page.textContent('[data-testid="clock-red"]'));
    assert.ok(Math.abs(shown - after.rtime / 1000) < 3, `red's clock ${shown} s, the server's ${after.rtime / 1000} s`);
    await shot(page, 'online-12-after-restart');
    // And the game goes on.
    await page.click('rect.hit[data-sq="b0"]');
    await page.click('rect.hit[data-sq="c2"]');
    await eventually(async () => assert.equal((await state()).moves, 'h2e2 h9g7 h0g2 i9h9 b0c2'));
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
    server.kill('SIGKILL');
    fs.rmSync(data, { recursive: true, force: true });
  }
});
