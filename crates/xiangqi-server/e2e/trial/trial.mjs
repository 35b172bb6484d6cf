// A newcomer's trial, as docs/UX-TRIAL.md tells it: not a test but a walk through the app
// taking screenshots, in Chromium at a laptop's size, in Firefox, and at a phone's size.
//   XIANGQI_URL=http://127.0.0.1:PORT node trial/trial.mjs   (screenshots in $SCREENSHOT_DIR/trial)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';

const BASE = process.env.XIANGQI_URL || 'http://127.0.0.1:8080';
const OUT = path.join(process.env.SCREENSHOT_DIR || 'screenshots', 'trial');
fs.mkdirSync(OUT, { recursive: true });
const notes = [];
const note = (s) => { notes.push(s); console.log(s); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

async function chromiumPage(viewport, locale = 'en-US') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trial-chromium-'));
  const ctx = await chromium.launchPersistentContext(dir, { executablePath: '/usr/bin/chromium', headless: true, viewport, locale, args: ARGS });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => note(`chromium ${viewport.width}: page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') note(`chromium ${viewport.width}: console error: ${m.text()}`); });
  return { page, close: () => ctx.close() };
}
const shot = (page, name) => page.screenshot({ path: path.join(OUT, name + '.png') });

// 1. A laptop, Chromium: the first visit, a game against the computer, the settings.
const a = await chromiumPage({ width: 1280, height: 800 });
await a.page.goto(BASE + '/');
await a.page.waitForSelector('#dlg-new[open]');
await shot(a.page, '01-first-visit');
await a.page.check('#dlg-new input[name=mode][value=computer]');
await a.page.fill('#new-level', '1');
await a.page.click('#new-start');
await a.page.waitForSelector('rect.hit[data-sq="h2"]');
for (const [f, t] of [['h2', 'e2'], ['h0', 'g2'], ['i0', 'h0']]) {
  const n = await a.page.locator('#movelist .mv').count();
  await a.page.click(`rect.hit[data-sq="${f}"]`);
  await a.page.click(`rect.hit[data-sq="${t}"]`);
  await a.page.waitForFunction((k) => document.querySelectorAll('#movelist .mv').length >= k + 2, n, { timeout: 20000 }).catch(() => note('laptop: the computer did not answer in 20 s'));
}
await shot(a.page, '02-game-vs-computer');
await a.page.click('#btn-settings');
await shot(a.page, '03-settings');
await a.page.keyboard.press('Escape');

// 2. The lobby: a seek from Chromium, joined from Firefox; moves and a chat line each.
await a.page.click('#btn-lobby');
await a.page.waitForSelector('#dlg-lobby[open]');
await a.page.fill('#lobby-name', 'Lan');
await a.page.click('#lobby-create');
await shot(a.page, '04-lobby-seek');
const ffDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trial-firefox-'));
const ff = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true, userDataDir: ffDir });
const b = await ff.newPage();
await b.setViewport({ width: 1280, height: 800 });
b.on('pageerror', (e) => note(`firefox: page error: ${e.message}`));
await b.goto(BASE + '/');
await b.waitForSelector('#dlg-new[open]');
await b.keyboard.press('Escape');
await b.click('#btn-lobby');
await b.waitForSelector('#lobby-seeks button');
await shot(b, '05-firefox-lobby');
await b.click('#lobby-seeks button');
await a.page.waitForURL(/\/live\//, { timeout: 15000 }).catch(() => note('laptop: the seek did not open the live page'));
await b.waitForFunction(() => location.pathname.startsWith('/live/'), { timeout: 15000 }).catch(() => note('firefox: joining did not open the live page'));
await sleep(1500);
await shot(a.page, '06-live-chromium');
await shot(b, '07-live-firefox');
for (const p of [a.page, b]) {
  await p.type('#chat-input', 'hello, good luck!').catch(() => note('chat input not usable'));
  await p.keyboard.press('Enter');
}
await sleep(1000);
await shot(a.page, '08-live-chat');
const liveUrl = a.page.url().split('#')[0];

// 3. A phone: the same game as a spectator, the menu, Vietnamese.
const c = await chromiumPage({ width: 390, height: 844 }, 'vi-VN');
await c.page.goto(liveUrl);
await sleep(1500);
await shot(c.page, '09-phone-spectator-vi');
await c.page.goto(BASE + '/');
await sleep(1000);
await shot(c.page, '10-phone-home-vi');
await c.page.keyboard.press('Escape');
await c.page.click('#btn-menu').catch(() => note('phone: no menu button'));
await shot(c.page, '11-phone-menu-vi');
const wide = await c.page.evaluate(() => document.documentElement.scrollWidth > innerWidth);
if (wide) note('phone: the page scrolls sideways');

await a.close(); await c.close(); await ff.close();
fs.writeFileSync(path.join(OUT, 'notes.txt'), notes.join('\n') + '\n');
console.log(`trial: ${notes.length} notes; screenshots in ${OUT}`);
