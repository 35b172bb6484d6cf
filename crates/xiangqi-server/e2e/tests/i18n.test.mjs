// Languages: a browser whose language is Simplified Chinese, Traditional Chinese (Taiwan) or
// Vietnamese gets the app in it on the first visit (Accept-Language / navigator.languages),
// and no visible text, aria-label, title or placeholder of any page is left in English: the
// game page with its dialogs and the explorer's panel, a review, the lobby, a live game that
// has ended (the server's account of its end in the same language), a player's live game going
// on with its chat and the abort's question, the account page, a profile and the leaderboard.
// Then the header's switch and the settings' language menu change the language, and the
// choice is remembered over a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  launch, shot, BASE, api, expectText, expectCount, expectAttribute, eventually,
} from '../lib.mjs';
import { parseFtl } from '../../web/i18n.js';
import { openingName } from '../../web/openings.js';

const WEB = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../web');

// The words (three or more Latin letters) of a catalogue's messages: a word of the page that
// is neither in the chosen language's catalogue nor allowed is English left behind.
function words(lang) {
  const src = fs.readFileSync(path.join(WEB, `locales/${lang}.ftl`), 'utf8');
  const text = [...parseFtl(src).values()].flat(Infinity).map((p) => (typeof p === 'string' ? p : '')).join(' ');
  // The openings' names as the pages write them in this language (web/openings.js) are words
  // of the language too (Vietnamese reads the Chinese names in Hán-Việt).
  const tsv = fs.readFileSync(path.join(WEB, '../../xiangqi-explorer/openings.tsv'), 'utf8');
  const names = tsv.split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t'))
    .map(([eco, name, nameZh]) => openingName({ eco, name, nameZh }, lang)).join(' ');
  return new Set(((text + ' ' + (lang === 'en' ? '' : names)).match(/[A-Za-z]{3,}/g) || []).map((w) => w.toLowerCase()));
}
// Names, brands and keys the pages may show in any language: the test's players, notation
// and format names, keyboard keys in titles, the engine's; "English" is the header's switch
// (each language is named in itself).
const ALLOWED = new Set(['english', 'ann', 'bob', 'i18nuser', 'home', 'end', 'iccs', 'wxf', 'fen', 'pgn', 'png', 'xqf', 'svg', 'pikafish']);

// What the page shows that is not in `lang`'s words: visible text nodes, and the aria-label,
// title and placeholder of visible elements.
async function leftovers(page, lang) {
  const known = words(lang);
  const found = await page.evaluate(() => {
    const out = [];
    const visible = (el) => el && el.checkVisibility && el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const p = n.parentElement;
      // (translate="no" marks what is not text of a language: a record's syntax; a link to a
      // player's profile is a name, whatever the other tests named their players.)
      if (!p || ['SCRIPT', 'STYLE', 'OPTION'].includes(p.tagName) || !visible(p) || p.closest('[translate="no"], a[href^="/@/"]')) continue;
      if (p.closest('select') && !p.closest('option:checked')) continue;
      if (n.textContent.trim()) out.push(['text', n.textContent.trim(), p.id || p.className || p.tagName]);
    }
    // A select shows its chosen option only.
    for (const s of document.querySelectorAll('select')) {
      if (visible(s) && s.selectedOptions[0]) out.push(['option', s.selectedOptions[0].textContent.trim(), s.id]);
    }
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
      if ((!visible(el) && el.tagName !== 'svg') || el.closest('[translate="no"]')) continue;
      for (const a of ['aria-label', 'title', 'placeholder']) {
        const v = el.getAttribute(a);
        if (v && v.trim()) out.push([a, v.trim(), el.id || el.tagName]);
      }
    }
    out.push(['title', document.title, 'document']);
    return out;
  });
  const bad = [];
  for (const [kind, text, where] of found) {
    const english = (text.match(/[A-Za-z]{3,}/g) || []).filter((w) => !known.has(w.toLowerCase()) && !ALLOWED.has(w.toLowerCase()));
    if (english.length) bad.push(`${kind} of ${where}: "${text.slice(0, 80)}" (${english.join(', ')})`);
  }
  return bad;
}

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
