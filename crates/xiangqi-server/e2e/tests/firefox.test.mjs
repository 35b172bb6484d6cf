// The app in a second browser: Debian's Firefox ESR, driven by puppeteer-core over WebDriver
// BiDi (no browser download). A game against the computer by clicks and by dragging, and a
// live game between a Firefox player and a Chromium player. Without Firefox the tests are
// skipped, except under CI=true (.ci/run installs firefox-esr), where they fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';
import { launch, BASE, SHOTS, api, expectGame, eventually } from '../lib.mjs';

const FIREFOX = process.env.FIREFOX || ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find((p) => fs.existsSync(p));
const skip = !FIREFOX && process.env.CI !== 'true' ? 'no Firefox (apt-get install firefox-esr)' : false;

async function firefox() {
  assert.ok(FIREFOX, 'Firefox is installed (CI: .ci/run installs firefox-esr)');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'xiangqi-firefox-'));
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: FIREFOX, headless: true, userDataDir: profile,
    extraPrefsFirefox: { 'browser.shell.checkDefaultBrowser': false, 'datareporting.policy.dataSubmissionEnabled': false },
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 860 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return {
    page, errors,
    close: async () => { await browser.close(); fs.rmSync(profile, { recursive: true, force: true }); },
  };
}

async function ffShot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, name + '.png') });
}

// Retries `f` (which throws until its condition holds) in a page of either browser.
async function until(page, fn, arg, what, timeout = 15000) {
  return eventually(async () => {
    const v = await page.evaluate(fn, arg);
    assert.ok(v, what);
    return v;
  }, { timeout });
}
const moveCount = () => document.querySelectorAll('#movelist .mv').length;

test('in Firefox: a game against the computer, by clicks and by dragging', { skip }, async () => {
  const ff = await firefox();
  try {
    const { page } = ff;
    await page.goto(BASE + '/');
    await page.waitForSelector('#dlg-new[open]');
    await page.click('#dlg-new input[name=mode][value=computer]');
    await page.click('#dlg-new input[name=side][value=red]');
    await page.evaluate(() => { document.getElementById('new-level').value = '0'; });
    await page.click('#new-start');
    await page.waitForSelector('#board rect.hit[data-sq="h2"]');
    const id = await eventually(async () => {
      const v = new URL(page.url()).searchParams.get('game');
      assert.ok(v, 'a game id in the address');
      return v;
    });

    // A click on the cannon dots its destinations; a click on e2 plays it.
    await page.click('rect.hit[data-sq="h2"]');
    const dots = await page.evaluate(() => document.querySelectorAll('#board .hint, #board .hint-cap').length);
    assert.ok(dots > 0, 'legal destinations are dotted');
    await page.click('rect.hit[data-sq="e2"]');
    await expectGame(id, (g) => assert.ok(g.moves.length >= 2, 'the computer answered'), { timeout: 20000 });
    await until(page, moveCount, null, 'two moves in the list');

    // The horse by dragging it with the mouse.
    const box = async (sq) => {
      const r = await page.$(`rect.hit[data-sq="${sq}"]`);
      return r.boundingBox();
    };
    const a = await box('h0'), b = await box('g2');
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2 + 8, (a.y + b.y) / 2 + 8, { steps: 4 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 4 });
    await page.mouse.up();
    const g = await expectGame(id, (g) => assert.ok(g.moves.length >= 4, 'the dragged move and the answer'), { timeout: 20000 });
    assert.deepEqual(g.moves.slice(0, 3).map((m) => m.uci).filter((_, i) => i !== 1), ['h2e2', 'h0g2']);
    await until(page, moveCount, null, 'four moves in the list');
    await ffShot(page, 'firefox-01-computer-game');

    // The keys step through the game.
    await page.keyboard.press('Home');
    await until(page, () => document.querySelectorAll('#board #pieces .pc').length === 32 && !document.querySelector('#board .hl-last'), null, 'the start shown');
    await page.keyboard.press('End');
    await until(page, () => !!document.querySelector('#board .hl-last'), null, 'the last move shown');
    assert.deepEqual(ff.errors, []);
  } finally {
    await ff.close();
  }
});

test('in Firefox against Chromium: a live game between the two browsers', { skip }, async () => {
  const ff = await firefox();
  const cr = await launch();
  try {
    const r = await api('POST', '/api/challenge/open', {});
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const { id, tokenRed, tokenBlack } = r.data;
    const red = ff.page;
    const black = await cr.context.newPage();
    const crErrors = [];
    black.on('pageerror', (e) => crErrors.push(e.message));
    await red.goto(`${BASE}/live/${id}#seat=${tokenRed}`);
    await black.goto(`${BASE}/live/${id}#seat=${tokenBlack}`);
    for (const p of [red, black]) {
      await until(p, () => /online|在线/.test(document.querySelector('[data-testid="conn-black"]')?.textContent || '')
        && /online|在线/.test(document.querySelector('[data-testid="conn-red"]')?.textContent || ''), null, 'both players online');
    }
    const moves = async () => (await api('GET', `/api/board/game/${id}`)).data.state.moves;
    // A click on a point at its place on the screen (the live page redraws the board when
    // the stream speaks, so an element found before the click may be gone at the click).
    const clickSq = async (page, sq) => {
      const at = await eventually(async () => {
        const p = await page.evaluate((s) => {
          const r = document.querySelector(`rect.hit[data-sq="${s}"]`)?.getBoundingClientRect();
          return r ? { x: r.x + r.width / 2, y: r.y + r.height / 2 } : null;
        }, sq);
        assert.ok(p, `point ${sq} drawn`);
        return p;
      });
      await page.mouse.click(at.x, at.y);
    };
    // The server has the last move before the other page has heard of it: a click made
    // before the page shows the move finds it still the opponent's turn, so each player
    // first waits until their page shows every move played so far.
    const play = async (page, from, to, before) => {
      await until(page, (n) => document.querySelectorAll('#live-moves .mv').length === n, before, `${before} moves shown before ${from}${to}`);
      await clickSq(page, from);
      await clickSq(page, to);
    };
    await play(red, 'h2', 'e2', 0);
    await eventually(async () => assert.equal(await moves(), 'h2e2'));
    await play(black, 'h9', 'g7', 1);
    await eventually(async () => assert.equal(await moves(), 'h2e2 h9g7'));
    await play(red, 'h0', 'g2', 2);
    await eventually(async () => assert.equal(await moves(), 'h2e2 h9g7 h0g2'));
    // Each page shows the three moves.
    for (const p of [red, black]) await until(p, () => document.querySelectorAll('#live-moves .mv').length >= 3, null, 'three moves shown');
    await ffShot(red, 'firefox-02-live-red');
    // Red resigns in Firefox, after the page's own confirmation.
    await red.click('#live-resign');
    await red.waitForSelector('#dlg-confirm[open] #confirm-yes');
    await red.click('#confirm-yes');
    await eventually(async () => {
      const s = (await api('GET', `/api/board/game/${id}`)).data.state;
      assert.equal(s.status, 'resign');
      assert.equal(s.winner, 'black');
    });
    assert.deepEqual(ff.errors, []);
    assert.deepEqual(crErrors, []);
  } finally {
    await ff.close();
    await cr.cleanup();
  }
});
