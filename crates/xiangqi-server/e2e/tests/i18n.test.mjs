// Languages: a browser whose language is Simplified Chinese, Traditional Chinese (Taiwan) or
// Vietnamese gets the app in it on the first visit (Accept-Language / navigator.languages),
// and no visible text, aria-label, title or placeholder of any page is left in English: the
// game page with its dialogs and the explorer's panel, a review, the lobby, a live game that
// has ended (the server's account of its end in the same language), a player's live game going
// on with its chat and the abort's question, the account page, a profile and the leaderboard.
// Then the header's switch and the settings' language menu change the language, and the
// choice is remembered over a reload; the server's reading of Accept-Language starts the
// pages, and an account's choice follows it to another browser; the server's refusals are in
// the language too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, shot, BASE, api, expectText, expectCount, expectAttribute, eventually,
} from '../lib.mjs';
import { words, ALLOWED, leftovers } from '../i18n-check.mjs';

async function clean(page, lang, what) {
  const bad = await leftovers(page, lang);
  assert.deepEqual(bad, [], `${lang}, ${what}: English left on the page`);
}

async function openDialog(page, button, dialog, lang, what) {
  await page.click(button);
  await page.waitForSelector(`${dialog}[open]`);
  await clean(page, lang, what);
  await page.keyboard.press('Escape');
  await page.waitForSelector(`${dialog}:not([open])`, { state: 'attached' });
}

const LANGS = [
  // [the browser's locale, the language the app picks (its <html lang>), "Black wins" there]
  ['zh-CN', 'zh-Hans', '黑胜'],
  ['zh-TW', 'zh-Hant', '黑勝'],
  ['vi-VN', 'vi', 'Đen thắng'],
];

test('every page in each language, nothing left in English', { timeout: 240000 }, async () => {
  // A short game (for the game page and its review), an ended live game, a player.
  const g = (await api('POST', '/api/games', { mode: 'two-player', moves: ['h2e2', 'h9g7', 'e2e6', 'g7e6'] })).data;
  // (The suite may have spent this client's budget for new games: wait for it.)
  let open;
  for (let i = 0; i < 10; i++) {
    open = await api('POST', '/api/challenge/open', { red: 'Ann', black: 'Bob' });
    if (open.status !== 429) break;
    await new Promise((r) => setTimeout(r, 3500));
  }
  assert.equal(open.status, 200, JSON.stringify(open.data));
  const live = open.data;
  const act = async (token, p) => {
    const res = await fetch(`${BASE}/api/board/game/${live.id}/${p}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200, `${p}: ${await res.text()}`);
  };
  for (const [i, m] of ['h2e2', 'h9g7'].entries()) await act(i % 2 ? live.tokenBlack : live.tokenRed, 'move/' + m);
  await act(live.tokenRed, 'resign');
  // A game going on, seen from a player's seat (its buttons, the players' chat, the abort's
  // question).
  let going;
  for (let i = 0; i < 10; i++) {
    going = await api('POST', '/api/challenge/open', { red: 'Ann', black: 'Bob', clock: { limit: 300, increment: 3 } });
    if (going.status !== 429) break;
    await new Promise((r) => setTimeout(r, 3500));
  }
  assert.equal(going.status, 200, JSON.stringify(going.data));

  for (const [locale, lang, blackWins] of LANGS) {
    const { context, cleanup } = await launch({ locale });
    try {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // The first visit: the browser's language.
      await page.goto(`${BASE}/?game=${g.id}`);
      await expectAttribute(page, 'html', 'lang', lang);
      await expectCount(page, '#movelist .mv', 4);
      await clean(page, lang, 'the game page');
      await shot(page, `i18n-${lang}-game`);
      await openDialog(page, '#btn-settings', '#dlg-settings', lang, 'the settings');
      await openDialog(page, '#btn-new', '#dlg-new', lang, 'a new game');
      await openDialog(page, '#btn-import', '#dlg-import', lang, 'the import');
      await openDialog(page, '#btn-games', '#dlg-games', lang, 'the games');
      await openDialog(page, '#btn-share', '#dlg-share', lang, 'export and share');
      await openDialog(page, '#btn-lobby', '#dlg-lobby', lang, 'the lobby');
      // The opening explorer's panel beside the board.
      await page.click('#btn-explorer');
      await page.waitForSelector('[data-testid="explorer-panel"]:not(.hidden)');
      await clean(page, lang, 'the explorer');
      await page.click('#btn-explorer');
      // The review of the game (a small depth).
      await page.selectOption('#rv-depth', '6');
      await page.click('#btn-review');
      await expectCount(page, '#rv-graph path.rv-line', 1, { timeout: 60000 });
      await clean(page, lang, 'the review');
      await shot(page, `i18n-${lang}-review`);

      // The ended live game, as a spectator: the account of its end in this language.
      await page.goto(`${BASE}/live/${live.id}`);
      await expectText(page, '[data-testid="result"] strong', blackWins);
      const account = await page.textContent('[data-testid="result"] .account');
      assert.ok(account && account.length > 3, 'the account of the end');
      await clean(page, lang, 'the live game');
      await shot(page, `i18n-${lang}-live`);

      // A player's live page while the game goes on, and the question before an abort.
      await page.goto(BASE + going.data.urlRed);
      await page.waitForSelector('[data-testid="clock-red"]');
      await expectAttribute(page, 'html', 'lang', lang);
      await clean(page, lang, "a player's live game");
      await page.click('[data-testid="abort"]');
      await page.waitForSelector('#dlg-confirm[open]');
      await clean(page, lang, "the abort's question");
      await page.click('#confirm-no');
      await shot(page, `i18n-${lang}-playing`);

      for (const [p, what] of [['/account', 'the account page'], ['/leaderboard', 'the leaderboard'], ['/@/nobody-here', 'a missing profile']]) {
        await page.goto(BASE + p);
        await page.waitForSelector('#page-body > *');
        await expectAttribute(page, 'html', 'lang', lang);
        await clean(page, lang, what);
      }
      await shot(page, `i18n-${lang}-profile`);
      assert.deepEqual(errors, []);
    } finally {
      await cleanup();
    }
  }
});

test('the language is switched from the header and the settings, and remembered', { timeout: 60000 }, async () => {
  const { context, cleanup } = await launch({ locale: 'zh-HK' });
  try {
    const page = await context.newPage();
    const first = await api('POST', '/api/games', { mode: 'two-player' });
    await page.goto(`${BASE}/?game=${first.data.id}`);
    await expectAttribute(page, 'html', 'lang', 'zh-Hant');
    await expectText(page, '#btn-settings', '設定');
    // The header's switch: to English and back to the language it came from.
    await expectText(page, '#btn-lang', 'English');
    await page.click('#btn-lang');
    await expectText(page, '#btn-settings', 'Settings');
    await expectAttribute(page, 'html', 'lang', 'en');
    await expectText(page, '#btn-lang', '繁體中文');
    await page.reload();
    await expectText(page, '#btn-settings', 'Settings');
    // The settings' menu offers every language in its own name.
    await page.click('#btn-settings');
    const names = await page.$$eval('#set-lang option', (os) => os.map((o) => [o.value, o.textContent]));
    assert.deepEqual(names, [['en', 'English'], ['zh-Hans', '简体中文'], ['zh-Hant', '繁體中文'], ['vi', 'Tiếng Việt']]);
    await page.selectOption('#set-lang', 'vi');
    await page.click('#dlg-settings button[value=ok]');
    await expectText(page, '#btn-settings', 'Cài đặt');
    await expectAttribute(page, 'html', 'lang', 'vi');
    await page.reload();
    await expectText(page, '#btn-settings', 'Cài đặt');
    // The account pages read the same choice.
    await page.goto(BASE + '/leaderboard');
    await expectText(page, '#page-body h2', /^Bảng xếp hạng · /);
    // Vietnamese notation, and Traditional characters for Chinese notation in zh-Hant.
    const r = await api('POST', '/api/games', { mode: 'two-player', moves: ['h2e2', 'h9g7', 'b0c2', 'b9c7'] });
    await page.goto(`${BASE}/?game=${r.data.id}`);
    await page.click('#btn-settings');
    await page.selectOption('#set-notation', 'vi');
    await page.click('#dlg-settings button[value=ok]');
    await expectText(page, '#movelist .mv[data-ply="1"]', /P2-5/);
    await expectText(page, '#movelist .mv[data-ply="2"]', /M8\.7/);
    await page.click('#btn-settings');
    await page.selectOption('#set-notation', 'chinese');
    await page.selectOption('#set-lang', 'zh-Hant');
    await page.click('#dlg-settings button[value=ok]');
    await expectText(page, '#movelist .mv[data-ply="1"]', /炮二平五/);
    await expectText(page, '#movelist .mv[data-ply="2"]', /馬8進7/);
    await expectText(page, '#movelist .mv[data-ply="3"]', /傌八進七/);
    await shot(page, 'i18n-zh-Hant-notation');
  } finally {
    await cleanup();
  }
});

test('the server reads Accept-Language, and an account takes its language to another browser', { timeout: 90000 }, async () => {
  // The browser's own list (navigator.languages) says English, its requests ask for
  // Traditional Chinese: the page starts in the server's reading of the header. (No
  // `locale` here: Chromium's locale would replace the header.)
  const a = await launch({ headers: { 'Accept-Language': 'fr-CA, zh-TW;q=0.8, en;q=0.5' } });
  const name = `ann${Date.now() % 100000}`;
  try {
    const page = await a.context.newPage();
    await page.goto(BASE + '/account');
    await expectAttribute(page, 'html', 'lang', 'zh-Hant');
    await expectAttribute(page, 'html', 'data-accept-lang', 'zh-Hant');
    assert.deepEqual(await page.evaluate(() => navigator.languages), ['en-US', 'en']);
    // The server's refusal of a short password, in Traditional Chinese.
    await page.fill('[data-testid="register-username"]', name);
    await page.fill('[data-testid="register-password"]', 'short');
    await page.click('[data-testid="register-submit"]');
    await expectText(page, '[data-testid="page-msg"]', '密碼至少要有 8 個字元');
    await page.fill('[data-testid="register-password"]', 'a good password');
    await page.click('[data-testid="register-submit"]');
    await expectText(page, '#nav-account', name);
    // The new account keeps the page's language; the header's switch to English, kept too.
    const lang = () => page.evaluate(async () => (await (await fetch('/api/account', { cache: 'no-store' })).json()).lang);
    await eventually(async () => assert.equal(await lang(), 'zh-Hant'));
    await page.click('#btn-lang');
    await expectAttribute(page, 'html', 'lang', 'en');
    await eventually(async () => assert.equal(await lang(), 'en'));
    // Then Vietnamese, from the game page's settings.
    const g = await api('POST', '/api/games', { mode: 'two-player' });
    await page.goto(`${BASE}/?game=${g.data.id}`);
    await page.click('#btn-settings');
    await page.selectOption('#set-lang', 'vi');
    await page.click('#dlg-settings button[value=ok]');
    await expectText(page, '#btn-settings', 'Cài đặt');
    await eventually(async () => assert.equal(await lang(), 'vi'));
  } finally {
    await a.cleanup();
  }
  // Another browser, asking for Simplified Chinese: the account's Vietnamese once logged in,
  // on the account page and then on the game page.
  const b = await launch({ locale: 'zh-CN' });
  try {
    const page = await b.context.newPage();
    await page.goto(BASE + '/account');
    await expectAttribute(page, 'html', 'lang', 'zh-Hans');
    await expectText(page, '[data-testid="login-submit"]', '登录');
    await page.fill('[data-testid="login-username"]', name);
    await page.fill('[data-testid="login-password"]', 'wrong password');
    await page.click('[data-testid="login-submit"]');
    await expectText(page, '[data-testid="page-msg"]', '用户名或密码错误');
    await page.fill('[data-testid="login-password"]', 'a good password');
    await page.click('[data-testid="login-submit"]');
    await expectAttribute(page, 'html', 'lang', 'vi');
    await expectText(page, '#nav-account', name);
    await page.goto(`${BASE}/?game=${(await api('POST', '/api/games', { mode: 'two-player' })).data.id}`);
    await expectAttribute(page, 'html', 'lang', 'vi');
    await expectText(page, '#btn-settings', 'Cài đặt');
    const left = await leftovers(page, 'vi');
    assert.deepEqual(left, [], 'the game page in the account\'s Vietnamese');
  } finally {
    await b.cleanup();
  }
});

test("a player's own pages in each language: a correspondence game, the hidden tab's title and notification, Your games, the account", { timeout: 240000 }, async () => {
  for (const [locale, lang] of LANGS) {
    const a = await launch({ locale }), b = await launch({ locale });
    try {
      await a.context.grantPermissions(['notifications'], { origin: BASE });
      // Notifications shown are recorded (headless Chromium shows none).
      await a.context.addInitScript(() => {
        window.__notes = [];
        const N = window.Notification;
        if (!N) return;
        class Recorded extends N {
          constructor(title, opts) { super(title, opts); window.__notes.push([title, opts && opts.body]); }
        }
        Object.defineProperty(Recorded, 'permission', { get: () => N.permission });
        Recorded.requestPermission = N.requestPermission.bind(N);
        window.Notification = Recorded;
      });
      const ann = await a.context.newPage(), bob = await b.context.newPage();
      const errors = [];
      for (const p of [ann, bob]) p.on('pageerror', (e) => errors.push(e.message));
      for (const p of [ann, bob]) {
        await p.goto(BASE + '/');
        await p.waitForSelector('#dlg-new[open]');
        await p.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
      }
      // Notifications on, in the settings.
      await ann.click('#btn-settings');
      await ann.check('#set-notify');
      await ann.click('#dlg-settings button[value=ok]');
      // A correspondence seek (3 days a move) made by Ann and taken by Bob.
      await ann.click('#btn-lobby');
      await ann.waitForSelector('#dlg-lobby[open]');
      await ann.selectOption('#lobby-tc', 'd3');
      await ann.selectOption('#lobby-side', 'red');
      await ann.fill('#lobby-name', 'Ann');
      await ann.click('[data-testid="create-seek"]');
      await bob.click('#btn-lobby');
      await bob.waitForSelector('#dlg-lobby[open]');
      await bob.waitForSelector('#lobby-seeks tr[data-testid="seek"]');
      await clean(bob, lang, 'the lobby with a correspondence seek');
      await bob.fill('#lobby-name', 'Bob');
      await bob.click('[data-testid="seek-join"]');
      await ann.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=/);
      await bob.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=/);
      await ann.waitForSelector('[data-testid="deadline-red"]');
      await clean(ann, lang, 'a correspondence game with its deadlines');
      // Ann moves, her tab goes to the background, Bob answers: her tab's title and a
      // notification say so, in her language.
      await ann.click('rect.hit[data-sq="h2"]');
      await ann.click('rect.hit[data-sq="e2"]');
      await bob.waitForSelector('[data-testid="deadline-black"]');
      await ann.evaluate(() => {
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      await bob.click('rect.hit[data-sq="h9"]');
      await bob.click('rect.hit[data-sq="g7"]');
      await eventually(async () => assert.match(await ann.title(), /^● /));
      await clean(ann, lang, "the hidden tab's title");
      const notes = await ann.evaluate(() => window.__notes);
      assert.equal(notes.length, 1, JSON.stringify(notes));
      const known = words(lang);
      const english = notes.flat().join(' ').match(/[A-Za-z]{3,}/g)?.filter((w) => !known.has(w.toLowerCase()) && !ALLOWED.has(w.toLowerCase())) || [];
      assert.deepEqual(english, [], `${lang}: the notification ${JSON.stringify(notes)}`);
      await ann.evaluate(() => {
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      // Her games, filled: this one, her turn, with the time left.
      await ann.goto(BASE + '/');
      await ann.waitForSelector('#dlg-new[open]');
      await ann.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
      await ann.click('#btn-lobby');
      await ann.waitForSelector('#my-games tr[data-testid="my-game"][data-turn="mine"]');
      await clean(ann, lang, 'Your games, filled');
      await shot(ann, `i18n-${lang}-your-games`);
      // The account page, logged in (password, tokens, chat, blocks).
      await ann.goto(BASE + '/account');
      await ann.fill('[data-testid="register-username"]', `ann${Date.now() % 100000}`);
      await ann.fill('[data-testid="register-password"]', 'a good password');
      await ann.click('[data-testid="register-submit"]');
      await ann.waitForSelector('[data-testid="account-name"]');
      await expectAttribute(ann, 'html', 'lang', lang);
      await clean(ann, lang, 'the account page, logged in');
      await shot(ann, `i18n-${lang}-account`);
      assert.deepEqual(errors, []);
    } finally {
      await a.cleanup(); await b.cleanup();
    }
  }
});
