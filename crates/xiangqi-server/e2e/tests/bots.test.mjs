// Bots in the browser: a person challenges a bot account through lichess's Bot API, the bot
// accepts and plays a move; the live page (a spectator's) shows "BOT" before the bot's name,
// at 1280×800 and on a 360×640 phone, where nothing scrolls sideways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, BASE, expectText } from '../lib.mjs';

const stamp = Date.now().toString(36).slice(-5);

async function call(method, p, { token, cookie, csrf, body } = {}) {
  const headers = {};
  if (body) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = 'Bearer ' + token;
  if (cookie) headers.Cookie = cookie;
  if (csrf) headers['X-CSRF-Token'] = csrf;
  const res = await fetch(BASE + p, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  let data = null;
  try { data = JSON.parse(text); } catch { data = text; }
  return { status: res.status, data, headers: res.headers };
}

async function accountToken(name) {
  const r = await call('POST', '/api/account/register', { body: { username: name, password: 'a good password' } });
  assert.equal(r.status, 200, JSON.stringify(r.data));
  const cookie = r.headers.get('set-cookie').split(';')[0];
  const t = await call('POST', '/api/account/tokens', { cookie, csrf: r.data.csrf, body: { label: 'bot' } });
  assert.equal(t.status, 200, JSON.stringify(t.data));
  return t.data.token;
}

test('a bot is shown with BOT before its name', async () => {
  const person = await accountToken('Person' + stamp);
  const botName = 'Engine' + stamp;
  const bot = await accountToken(botName);
  assert.equal((await call('POST', '/api/bot/account/upgrade', { token: bot })).status, 200);
  const c = await call('POST', '/api/challenge/' + botName, { token: person, body: { 'clock.limit': 300, 'clock.increment': 3, color: 'red' } });
  assert.equal(c.status, 200, JSON.stringify(c.data));
  const id = c.data.id;
  assert.equal((await call('POST', `/api/challenge/${id}/accept`, { token: bot })).status, 200);
  assert.equal((await call('POST', `/api/board/game/${id}/move/h2e2`, { token: person })).status, 200);
  assert.equal((await call('POST', `/api/bot/game/${id}/move/h9g7`, { token: bot })).status, 200);

  const { context, cleanup } = await launch();
  try {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${BASE}/live/${id}`);
    await expectText(page, '[data-testid="title-black"]', 'BOT');
    await expectText(page, '[data-testid="name-black"] a', botName);
    assert.equal(await page.$('[data-testid="title-red"]'), null, 'a person has no title');
    await shot(page, 'bots-01-bot-title');
    await page.setViewportSize({ width: 360, height: 640 });
    await expectText(page, '[data-testid="title-black"]', 'BOT');
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 360, `no sideways scroll on a phone (${wide})`);
    await shot(page, 'bots-02-bot-title-phone');
  } finally {
    await cleanup();
  }
});
