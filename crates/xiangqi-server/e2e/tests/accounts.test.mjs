// Accounts in the browser: register, log out, log in, a rated game from the lobby against
// a bot that plays through the board API with its personal API token, then the profile
// (ratings, graph, recent game, counts) and the leaderboard. Both usernames are whole XSS
// payloads (an <img onerror> and a "><script> breaking out of an attribute), a token label is
// another <script> and one is an SQL injection: the pages show them as text, no script of
// theirs runs (a dialog recorder, proven at the start with a deliberate alert, sees none), no
// element of theirs is made. A payload longer than a username may be is refused, with its
// message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, shot, BASE, api, eventually, expectText, expectCount, harmless,
} from '../lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
// Distinct per run, whole payloads of 30 characters (a username's most).
const n3 = String(100 + (Date.now() % 900));
const ANN = `<img src=x onerror=alert(${n3})>`;
const BOT = `"><script>alert(1)</script>${stamp.slice(-3)}`;
// 32 characters: more than a username may have.
const LONG = `<img src=x onerror=alert(${stamp})>`;
const SQL = `'; DROP TABLE users;--${stamp}`;
assert.equal([...ANN].length, 30);
assert.equal([...BOT].length, 30);

// A client of the API for the bot: its session cookie and CSRF token, then its API token.
async function registerBot() {
  const res = await fetch(BASE + '/api/account/register', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: BOT, password: 'the bot password' }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const cookie = res.headers.get('set-cookie').split(';')[0];
  const { csrf } = await res.json();
  const t = await fetch(BASE + '/api/account/tokens', {
    method: 'POST', headers: { 'Content-Type': 'application/json', cookie, 'X-CSRF-Token': csrf },
    body: JSON.stringify({ label: SQL }),
  });
  assert.equal(t.status, 200, await t.clone().text());
  return (await t.json()).token;
}

async function asBot(token, path) {
  const res = await fetch(BASE + path, { method: 'POST', headers: { Authorization: 'Bearer ' + token } });
  return { status: res.status, data: await res.json() };
}

async function click(page, from, to) {
  await page.click(`rect.hit[data-sq="${from}"]`);
  await page.click(`rect.hit[data-sq="${to}"]`);
}

test('register, log in, play a rated game, see the profile and the leaderboard', async () => {
  const a = await launch();
  try {
    const page = await a.context.newPage();
    const errors = [], dialogs = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => { dialogs.push(`${d.type()}:${d.message()}`); d.dismiss(); });

    // The recorder sees a dialog: a deliberate alert is recorded and dismissed (the evaluate
    // returns), so an empty record later means no payload's alert ran.
    await page.goto(BASE + '/account');
    await page.evaluate(() => alert('probe'));
    assert.deepEqual(dialogs, ['alert:probe']);
    dialogs.length = 0;

    // A payload too long for a username is refused, with its message (the form's maxlength
    // would cut it, so through the API).
    const long = await api('POST', '/api/account/register', { username: LONG, password: 'a good password' });
    assert.equal(long.status, 400, JSON.stringify(long.data));
    assert.equal(long.data.error, 'a username has 2 to 30 characters (this one has 32)');

    // Register.
    await page.goto(BASE + '/account');
    await page.fill('[data-testid="register-username"]', ANN);
    await page.fill('[data-testid="register-password"]', 'short');
    await page.click('[data-testid="register-submit"]');
    await expectText(page, '[data-testid="page-msg"]', /at least 8 characters/);
    await page.fill('[data-testid="register-password"]', 'a good password');
    await page.click('[data-testid="register-submit"]');
    await expectText(page, '[data-testid="account-name"]', `Logged in as ${ANN}`);
    await expectText(page, '[data-testid="nav-account"]', ANN);
    await expectText(page, '[data-testid="rating-blitz"]', '1500?');
    await shot(page, 'accounts-01-registered');
    await harmless(page, dialogs, ANN);
    // Log out, then log in (a wrong password first).
    await page.click('[data-testid="logout"]');
    await page.waitForSelector('[data-testid="login-form"]');
    await page.fill('[data-testid="login-username"]', ANN);
    await page.fill('[data-testid="login-password"]', 'not the password');
    await page.click('[data-testid="login-submit"]');
    await expectText(page, '[data-testid="page-msg"]', 'wrong username or password');
    await page.fill('[data-testid="login-password"]', 'a good password');
    await page.click('[data-testid="login-submit"]');
    await expectText(page, '[data-testid="account-name"]', `Logged in as ${ANN}`);
    // A token is shown once, listed by its label (as text).
    await page.fill('[data-testid="token-label"]', '<script>alert(1)</script>');
    await page.click('[data-testid="token-create"]');
    const shown = await eventually(async () => {
      const v = await page.inputValue('[data-testid="new-token-value"]');
      assert.match(v, /^xqt_[0-9a-f]{64}$/);
      return v;
    });
    await expectText(page, '[data-testid="token"] .title', '<script>alert(1)</script>');
    assert.ok(!(await page.textContent('[data-testid="tokens"]')).includes(shown.slice(4)));
    await harmless(page, dialogs, ANN, '<script>alert(1)</script>');

    // The bot: an account with an API token.
    const bot = await registerBot();

    // A rated seek in the lobby; the bot takes it.
    await page.goto(BASE + '/');
    await page.waitForSelector('#dlg-new[open]');
    await page.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
    await page.click('#btn-lobby');
    await page.waitForSelector('#dlg-lobby[open]');
    await eventually(async () => assert.equal(await page.isEnabled('[data-testid="seek-rated"]'), true));
    assert.equal(await page.inputValue('#lobby-name'), ANN);
    await page.selectOption('#lobby-tc', '300+3');
    await page.selectOption('#lobby-side', 'red');
    await page.check('[data-testid="seek-rated"]');
    await page.click('[data-testid="create-seek"]');
    await expectText(page, '#lobby-seeks tr[data-testid="seek"] [data-testid="seek-kind"]', 'Rated');
    await expectText(page, '#lobby-seeks tr[data-testid="seek"] [data-testid="seek-rating"]', '1500?');
    await expectText(page, '#lobby-seeks tr[data-testid="seek"] .title a', ANN);
    await shot(page, 'accounts-02-rated-seek');
    await harmless(page, dialogs, ANN);
    const seekId = await page.getAttribute('#lobby-seeks tr[data-testid="seek"]', 'data-id');
    const taken = await asBot(bot, `/api/board/seek/${seekId}/accept`);
    assert.equal(taken.status, 200, JSON.stringify(taken.data));
    assert.equal(taken.data.color, 'black');
    await page.waitForURL(/\/live\/[0-9A-Za-z]{8}#seat=/);
    const id = new URL(page.url()).pathname.split('/')[2];
    assert.equal(id, taken.data.id);
    await expectText(page, '[data-testid="game-kind"]', 'Rated');
    await expectText(page, '[data-testid="name-red"] a', ANN);
    await expectText(page, '[data-testid="name-black"] a', BOT);
    await expectText(page, '[data-testid="rating-red"]', '1500?');

    // Ann moves by click, the bot answers with its token, then resigns.
    await click(page, 'h2', 'e2');
    await eventually(async () => {
      const r = await asBot(bot, `/api/board/game/${id}/move/h9g7`);
      assert.equal(r.status, 200, JSON.stringify(r.data));
    });
    await expectCount(page, '#live-moves .mv', 2);
    assert.equal((await asBot(bot, `/api/board/game/${id}/resign`)).status, 200);
    await expectText(page, '#live-status', /Red wins/);
    const diff = await expectText(page, '[data-testid="rating-diff-red"]', /^\+\d+$/);
    await expectText(page, '[data-testid="rating-diff-black"]', /^-\d+$/);
    await shot(page, 'accounts-03-rated-result');
    await harmless(page, dialogs, ANN, BOT);

    // The profile, through the player's name.
    await page.click('[data-testid="name-red"] a');
    await page.waitForURL(/\/@\//);
    await expectText(page, '[data-testid="profile-name"]', ANN);
    await expectText(page, '[data-testid="wins"]', 'Wins 1');
    await expectText(page, '[data-testid="losses"]', 'Losses 0');
    await expectText(page, '[data-testid="rating-blitz"]', new RegExp(`^${1500 + Number(diff.slice(1))}\\??$`));
    await expectCount(page, '[data-testid="rating-graph"] polyline[data-speed="blitz"]', 1);
    await expectText(page, '[data-testid="recent-opponent"]', BOT);
    await expectText(page, '[data-testid="recent-result"]', `Win ${'(' + diff + ')'}`);
    await shot(page, 'accounts-04-profile');
    await harmless(page, dialogs, ANN, BOT);
    // The opponent's profile too (its name in the address, percent-encoded).
    await page.click('[data-testid="recent-game"] a');
    await page.waitForURL(new RegExp(`/live/${id}$`));
    await page.goto(BASE + '/@/' + encodeURIComponent(BOT));
    await expectText(page, '[data-testid="profile-name"]', BOT);
    await expectText(page, '[data-testid="recent-result"]', /^Loss \(-\d+\)$/);
    await expectText(page, '[data-testid="recent-opponent"]', ANN);
    await harmless(page, dialogs, ANN, BOT);

    // The leaderboard, in English and in Chinese.
    await page.goto(BASE + '/leaderboard?speed=blitz');
    await expectText(page, '[data-testid="leader"]:nth-child(2) .title', ANN);
    await expectText(page, '[data-testid="leaderboard"]', new RegExp(BOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await page.click('#btn-lang');
    await expectText(page, '#page-body h2', '排行榜 · 快棋');
    await page.click('#btn-lang');
    await shot(page, 'accounts-05-leaderboard');
    await harmless(page, dialogs, ANN, BOT);
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup();
  }
});

// A record's tags and comments carry the same whole payloads: the header above the move list,
// every tag in its details, the comments in the list and the comment box show them as text.
test('a record whose tags and comments are XSS payloads shows them as text', async () => {
  const IMG = '<img src=x onerror=alert(1)>', SCR = '"><script>alert(1)</script>';
  const pgn = `[Event "${SCR.replace(/"/g, '\\"')}"]\n[Site "${IMG}"]\n[Red "${IMG}"]\n[Black "${SCR.replace(/"/g, '\\"')}"]\n[Result "*"]\n\n`
    + `1. h2e2 {${IMG}} h9g7 {${SCR}} *\n`;
  const a = await launch();
  try {
    const page = await a.context.newPage();
    const errors = [], dialogs = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => { dialogs.push(`${d.type()}:${d.message()}`); d.dismiss(); });
    await page.goto(BASE + '/');
    await page.evaluate(() => alert('probe'));
    assert.deepEqual(dialogs, ['alert:probe']);
    dialogs.length = 0;
    await page.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
    await page.click('#btn-import');
    await page.fill('#imp-text', pgn);
    await page.click('#imp-go');
    await expectCount(page, '#movelist .mv', 2);
    await expectCount(page, '#movelist li.comment', 2);
    await expectText(page, '#record-tags .tag-title', new RegExp(SCR.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await expectText(page, '#record-tags .tag-players', new RegExp(IMG.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await page.click('#record-tags summary');
    await expectText(page, '#record-tags dd[data-tag="Site"]', IMG);
    await expectText(page, '#record-tags dd[data-tag="Black"]', SCR);
    const texts = await page.evaluate(() => [...document.querySelectorAll('#movelist li.comment')].map((e) => e.textContent));
    assert.ok(texts.some((t) => t.includes(IMG)) && texts.some((t) => t.includes(SCR)), JSON.stringify(texts));
    await shot(page, 'accounts-06-payload-record');
    await harmless(page, dialogs, IMG, SCR);
    assert.deepEqual(errors, []);
  } finally {
    await a.cleanup();
  }
});
