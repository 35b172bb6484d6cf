// Shared helpers for the end-to-end tests: Debian's chromium through playwright-core.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const BASE = process.env.XIANGQI_URL || 'http://127.0.0.1:8080';
export const SHOTS = process.env.SCREENSHOT_DIR || path.resolve('screenshots');

// `locale`: the browser's language (navigator.languages and Accept-Language), e.g. 'zh-TW'.
export async function launch({ locale, headers } = {}) {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xiangqi-chromium-'));
  // A persistent context is how playwright takes an (empty, fresh) --user-data-dir.
  const context = await chromium.launchPersistentContext(userDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    ...(locale ? { locale } : {}),
    ...(headers ? { extraHTTPHeaders: headers } : {}),
    viewport: { width: 1280, height: 860 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  // The pages fetch their language's messages before they draw, after the load event: a
  // navigation (goto, reload) returns once the page says it is drawn (html[data-ready]).
  const newPage = context.newPage.bind(context);
  context.newPage = async (...args) => {
    const page = await newPage(...args);
    for (const name of ['goto', 'reload']) {
      const nav = page[name].bind(page);
      page[name] = async (...a) => {
        const res = await nav(...a);
        if (page.url().startsWith(BASE)) {
          await page.waitForFunction(() => document.documentElement.dataset.ready === '1', null, { timeout: WAIT_MS }).catch(() => {});
        }
        return res;
      };
    }
    return page;
  };
  const cleanup = async () => {
    await context.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  };
  return { context, cleanup };
}

export async function shot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, name + '.png') });
}

export async function api(method, p, body) {
  const res = await fetch(BASE + p, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let data;
  try { data = JSON.parse(text); } catch { data = text; }
  return { status: res.status, data };
}

// Waiting for what a test asserts. After a click, a key, a navigation, a dialog or a
// WebSocket message the page changes asynchronously (a dialog's `close` event, a fetch, a
// render on the next frame), so an assertion right after the action races the page. These
// helpers retry an assertion until it holds or a bounded timeout passes, then fail with the
// last value seen.
export const WAIT_MS = 10000;

// Retries `check` (an async function that throws while its condition does not hold) until it
// returns without throwing; after `timeout` ms the last error is thrown.
export async function eventually(check, { timeout = WAIT_MS, interval = 50 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() >= deadline) {
        if (!(e instanceof assert.AssertionError)) throw e;
        throw new assert.AssertionError({
          message: `still false after ${timeout} ms: ${e.message}`,
          actual: e.actual, expected: e.expected, operator: e.operator,
        });
      }
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

function matches(actual, expected, what) {
  if (expected instanceof RegExp) assert.match(actual ?? '', expected, what);
  else assert.equal(actual, expected, what);
}

// The text of the first element matching `selector` becomes `expected` (a string, or a RegExp
// it must match).
export async function expectText(page, selector, expected, opts) {
  return eventually(async () => {
    const actual = await page.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);
    matches(actual, expected, `text of ${selector}`);
    return actual;
  }, opts);
}

// The value of the input or textarea matching `selector` becomes `expected` (string or RegExp).
export async function expectValue(page, selector, expected, opts) {
  return eventually(async () => {
    const actual = await page.evaluate((s) => document.querySelector(s)?.value ?? null, selector);
    matches(actual, expected, `value of ${selector}`);
    return actual;
  }, opts);
}

// An attribute of the first element matching `selector` becomes `expected`.
export async function expectAttribute(page, selector, name, expected, opts) {
  return eventually(async () => {
    const actual = await page.evaluate(([s, n]) => document.querySelector(s)?.getAttribute(n) ?? null, [selector, name]);
    matches(actual, expected, `${name} of ${selector}`);
    return actual;
  }, opts);
}

// The number of elements matching `selector` becomes `n`.
export async function expectCount(page, selector, n, opts) {
  return eventually(async () => {
    const actual = await page.evaluate((s) => document.querySelectorAll(s).length, selector);
    assert.equal(actual, n, `number of ${selector}`);
    return actual;
  }, opts);
}

// The game id in the page's address, once the page has put one there.
export async function gameIdOf(page, opts) {
  return eventually(async () => {
    const id = new URL(page.url()).searchParams.get('game');
    assert.ok(id, 'the address names a game: ' + page.url());
    return id;
  }, opts);
}

// The game as the server has it, once `check` (assertions on it) holds.
export async function expectGame(id, check, opts) {
  return eventually(async () => {
    const { status, data } = await api('GET', `/api/games/${id}`);
    assert.equal(status, 200, `GET /api/games/${id}`);
    await check(data);
    return data;
  }, opts);
}

// Nothing of a payload became markup or ran: no dialog opened, no <img src=x>, no script
// element of a payload's, and each payload given is in the page as text.
export async function harmless(page, dialogs, ...shown) {
  assert.deepEqual(dialogs, [], 'no alert ran');
  const { imgs, scripts, text } = await page.evaluate(() => ({
    imgs: document.querySelectorAll('img[src="x"], img[onerror]').length,
    scripts: [...document.querySelectorAll('script')].filter((e) => /alert/.test(e.textContent)).length,
    text: document.body.textContent,
  }));
  assert.equal(imgs, 0, 'no element made from a name');
  assert.equal(scripts, 0, 'no script made from a name');
  for (const p of shown) assert.ok(text.includes(p), `the page shows ${p} as text`);
}

// Records every dialog a page opens (and dismisses it), proven first by a deliberate alert: an
// empty record later means no script of a page's content opened one.
export async function dialogRecorder(page) {
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(`${d.type()}:${d.message()}`); d.dismiss(); });
  await page.evaluate(() => alert('probe'));
  assert.deepEqual(dialogs, ['alert:probe']);
  dialogs.length = 0;
  return dialogs;
}
