// The board's settings and pictures, by a person's clicks: the Western-symbol piece set, the
// coordinates outside, on the board or none (the board still played by clicks), and the game
// as an animated GIF (decoded by the browser's own decoder: one frame a position, the last
// frame the board as the page draws it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { launch, shot, BASE, expectCount } from '../lib.mjs';
import { deltaE, over, VISIONS } from '../cvd.mjs';

// Changes a setting in the dialog and waits until the page has taken it: the dialog's close
// handler stores the settings, then draws the board again, in one go.
const KEYS = { 'set-pieces': 'pieces', 'set-coords': 'coords', 'set-notation': 'notation' };
async function settingsChange(page, id, value) {
  await page.click('#btn-settings');
  await page.selectOption(`#${id}`, value);
  await page.click('#dlg-settings button.primary');
  await page.waitForFunction(([k, v]) => {
    try { return JSON.parse(localStorage.getItem('xiangqi.settings') || '{}')[k] === v; } catch { return false; }
  }, [KEYS[id], value]);
}

async function twoPlayerGame(page) {
  await page.goto(BASE + '/');
  await page.waitForSelector('#dlg-new[open]');
  await page.check('#dlg-new input[name=mode][value=two-player]');
  await page.click('#new-start');
  await page.waitForSelector('#board rect.hit[data-sq="h2"]');
}

async function play(page, moves) {
  for (const m of moves) {
    const n = await page.locator('#movelist .mv').count();
    await page.click(`rect.hit[data-sq="${m.slice(0, 2)}"]`);
    await page.click(`rect.hit[data-sq="${m.slice(2, 4)}"]`);
    await page.waitForFunction((k) => document.querySelectorAll('#movelist .mv').length > k, n);
  }
}

test('Western symbols, and coordinates outside, on the board or none', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await twoPlayerGame(page);

    // Western symbols: every piece a drawn symbol (no character), named by its WXF letter.
    await settingsChange(page, 'set-pieces', 'western');
    // (The board is drawn again once the dialog's close has been handled.)
    await expectCount(page, '#board #pieces .pc-sym', 32);
    const pieces = await page.evaluate(() => [...document.querySelectorAll('#board #pieces .pc')].map((g) => ({
      piece: g.dataset.piece, symbol: g.querySelector('.pc-sym')?.dataset.symbol, text: g.querySelector('text')?.textContent ?? null,
    })));
    assert.equal(pieces.length, 32);
    const letter = { k: 'K', a: 'A', b: 'E', n: 'H', r: 'R', c: 'C', p: 'P' };
    for (const p of pieces) {
      assert.equal(p.symbol, letter[p.piece.toLowerCase()], JSON.stringify(p));
      assert.equal(p.text, null, 'no character on a Western piece');
    }
    // Each kind looks different: the seven symbols' drawings are distinct.
    const shapes = await page.evaluate(() => {
      const by = {};
      for (const g of document.querySelectorAll('#board #pieces .pc.red')) {
        by[g.dataset.piece] = [...g.querySelectorAll('.pc-sym path')].map((p) => p.getAttribute('d')).join('|');
      }
      return by;
    });
    assert.equal(new Set(Object.values(shapes)).size, 7);
    await shot(page, 'board-01-western');
    await play(page, ['h2e2', 'h9g7']);

    // Coordinates outside (the default): WXF numbers on both edges, 14 px.
    const outside = await page.evaluate(() => ({
      vb: document.getElementById('board').getAttribute('viewBox'),
      n: document.querySelectorAll('#board .b-coord').length,
      inside: document.querySelectorAll('#board .b-coord.inside').length,
    }));
    assert.deepEqual(outside, { vb: '0 0 580 640', n: 18, inside: 0 });

    // On the board: the margin shrinks (the board grows on screen), every label stays clear
    // of any piece that could stand on a point (a disc of radius 27), and clicks still play.
    const before = await page.locator('rect.hit[data-sq="e0"]').boundingBox();
    await settingsChange(page, 'set-coords', 'inside');
    const inside = await page.evaluate(() => {
      const svg = document.getElementById('board');
      const labels = [...svg.querySelectorAll('.b-coord')];
      const points = [...svg.querySelectorAll('rect.hit')].map((r) => {
        const b = r.getBBox();
        return [b.x + b.width / 2, b.y + b.height / 2];
      });
      const clearance = Math.min(...labels.map((t) => {
        const b = t.getBBox();
        const corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]];
        return Math.min(...points.flatMap(([px, py]) => corners.map(([x, y]) => Math.hypot(x - px, y - py))));
      }));
      return { vb: svg.getAttribute('viewBox'), n: labels.length, inside: labels.filter((t) => t.classList.contains('inside')).length, clearance };
    });
    assert.equal(inside.vb, '18 18 544 604');
    assert.equal(inside.n, 18);
    assert.equal(inside.inside, 18);
    assert.ok(inside.clearance > 27, `labels clear of the pieces' discs (${inside.clearance.toFixed(1)})`);
    const after = await page.locator('rect.hit[data-sq="e0"]').boundingBox();
    assert.ok(after.width > before.width, `a point is larger on screen (${before.width} -> ${after.width})`);
    await play(page, ['b0c2']);
    await shot(page, 'board-02-coords-inside');

    // ICCS letters and ranks on the board, flipped too.
    await settingsChange(page, 'set-notation', 'iccs');
    await page.keyboard.press('f');
    const iccs = await page.evaluate(() => [...document.querySelectorAll('#board .b-coord')].map((t) => t.textContent).join(''));
    assert.equal(iccs, 'abcdefghi0123456789');
    await page.keyboard.press('f');

    // None: no labels, the board as large as inside.
    await settingsChange(page, 'set-coords', 'none');
    assert.equal(await page.locator('#board .b-coord').count(), 0);
    assert.equal(await page.evaluate(() => document.getElementById('board').getAttribute('viewBox')), '18 18 544 604');
    await play(page, ['b9c7']);

    // Remembered after a reload.
    await page.reload();
    await page.waitForSelector('#board .pc');
    assert.equal(await page.locator('#board .b-coord').count(), 0);
    assert.equal(await page.locator('#board .pc-sym').count(), 32);
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

test('the game as an animated GIF: a frame a position, the last one the board as drawn', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await twoPlayerGame(page);
    const moves = ['h2e2', 'h9g7', 'h0g2', 'i9h9', 'i0h0', 'b9c7'];
    await play(page, moves);

    await page.click('#btn-share');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="share-gif"]')]);
    const file = await dl.path();
    const gif = fs.readFileSync(file);
    fs.copyFileSync(file, `${process.env.SCREENSHOT_DIR || 'screenshots'}/board-03-game.gif`);
    assert.equal(gif.subarray(0, 6).toString(), 'GIF89a');
    assert.deepEqual([gif.readUInt16LE(6), gif.readUInt16LE(8)], [435, 480]);
    assert.equal(gif[gif.length - 1], 0x3b, 'the trailer');
    await page.click('#dlg-share .close').catch(() => page.keyboard.press('Escape'));

    // The browser decodes it: 7 frames (the start and six moves), each 435×480; the last
    // frame is the page's own board drawn at the same size (the same picture, but for the
    // palette's rounding).
    const b64 = gif.toString('base64');
    const seen = await page.evaluate(async (data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const dec = new ImageDecoder({ data: bytes, type: 'image/gif' });
      await dec.tracks.ready;
      const count = dec.tracks.selectedTrack.frameCount;
      const frames = [];
      for (let i = 0; i < count; i++) {
        const { image } = await dec.decode({ frameIndex: i });
        frames.push({ w: image.displayWidth, h: image.displayHeight, delay: image.duration });
        if (i === count - 1) {
          const c = new OffscreenCanvas(image.displayWidth, image.displayHeight);
          c.getContext('2d').drawImage(image, 0, 0);
          frames.lastPixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        }
        image.close();
      }
      const { rasterize } = await import('/board.js');
      const svg = document.getElementById('board');
      const hidden = [...svg.querySelectorAll('.hl-sel, .hint, .hint-cap, .arrow, [data-cursor]')];
      for (const e of hidden) e.remove();
      const canvas = await rasterize(svg, 0.75);
      const own = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let diff = 0;
      for (let i = 0; i < own.length; i += 4) {
        diff += Math.abs(own[i] - frames.lastPixels[i]) + Math.abs(own[i + 1] - frames.lastPixels[i + 1]) + Math.abs(own[i + 2] - frames.lastPixels[i + 2]);
      }
      return { count, frames: frames.map(({ w, h, delay }) => ({ w, h, delay })), meanDiff: diff / (own.length / 4) / 3 };
    }, b64);
    assert.equal(seen.count, moves.length + 1);
    for (const f of seen.frames) assert.deepEqual([f.w, f.h], [435, 480]);
    assert.equal(seen.frames[0].delay, 1_000_000, 'a second a move (µs)');
    assert.equal(seen.frames[moves.length].delay, 3_000_000, 'three on the last position');
    assert.ok(seen.meanDiff < 4, `the last frame is the board as drawn (mean difference ${seen.meanDiff.toFixed(2)} of 255)`);
    assert.deepEqual(errors, []);
  } finally {
    await cleanup();
  }
});

// Colour-blind-safe highlights (issue #34, accessibility): the last move and the check are told
// apart by shape (a square with a solid outline; a glow with a dotted ring), and their colours
// stay apart from each other and from the board for normal vision and under protanopia,
// deuteranopia and tritanopia, on every board theme in light and dark.
test('the last move and the check read apart by shape and by colour, also for colour-blind players', async () => {
  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    await page.goto(`${BASE}/?fen=${encodeURIComponent('3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1')}`);
    await page.waitForSelector('#pieces [data-at="e1"]');
    await page.click('rect.hit[data-sq="e1"]');
    await page.click('rect.hit[data-sq="d1"]');
    await expectCount(page, '#board .hl-last', 2);
    await expectCount(page, '#board .hl-check', 1);
    await expectCount(page, '#board .hl-check-ring', 1);
    await shot(page, 'board-highlights-check');
    const shapes = await page.evaluate(() => {
      const last = document.querySelector('#board .hl-last'), ring = document.querySelector('#board .hl-check-ring');
      const cs = (e) => getComputedStyle(e);
      return {
        last: { tag: last.tagName, stroke: cs(last).stroke, dash: cs(last).strokeDasharray, width: cs(last).strokeWidth },
        ring: { tag: ring.tagName, fill: cs(ring).fill, dash: cs(ring).strokeDasharray, at: [ring.getAttribute('cx'), ring.getAttribute('cy')] },
      };
    });
    assert.equal(shapes.last.tag, 'rect');
    assert.notEqual(shapes.last.stroke, 'none', 'the last move has an outline');
    assert.equal(shapes.last.dash, 'none', 'a solid one');
    assert.equal(shapes.ring.tag, 'circle');
    assert.equal(shapes.ring.fill, 'none');
    assert.notEqual(shapes.ring.dash, 'none', 'the check has a dotted ring');

    const rgba = (s) => {
      const m = s.match(/rgba?\(([^)]+)\)/);
      assert.ok(m, `a colour: ${s}`);
      const v = m[1].split(',').map(Number);
      return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
    };
    for (const theme of ['light', 'dark']) {
      for (const boardTheme of ['wood', 'jade', 'paper']) {
        const c = await page.evaluate(([t, b]) => {
          document.documentElement.dataset.theme = t;
          document.documentElement.dataset.board = b;
          const probe = document.createElement('div');
          probe.style.color = getComputedStyle(document.documentElement).getPropertyValue('--board1');
          document.body.append(probe);
          const board = getComputedStyle(probe).color;
          probe.remove();
          const last = getComputedStyle(document.querySelector('#board .hl-last'));
          const glow = document.querySelector('#checkglow stop').getAttribute('stop-color');
          return { board, fill: last.fill, stroke: last.stroke, glow };
        }, [theme, boardTheme]);
        const board = rgba(c.board).slice(0, 3);
        const fill = over(rgba(c.fill), board), stroke = over(rgba(c.stroke), board), glow = over(rgba(c.glow), board);
        for (const v of VISIONS) {
          const where = `${theme} ${boardTheme}, ${v}`;
          assert.ok(deltaE(fill, glow, v) >= 40, `${where}: last move against check ΔE ${deltaE(fill, glow, v).toFixed(1)}`);
          assert.ok(deltaE(stroke, board, v) >= 30, `${where}: last move's outline against the board ΔE ${deltaE(stroke, board, v).toFixed(1)}`);
          assert.ok(deltaE(fill, board, v) >= 10, `${where}: last move against the board ΔE ${deltaE(fill, board, v).toFixed(1)}`);
          assert.ok(deltaE(glow, board, v) >= 20, `${where}: check against the board ΔE ${deltaE(glow, board, v).toFixed(1)}`);
        }
      }
    }
  } finally {
    await cleanup();
  }
});
