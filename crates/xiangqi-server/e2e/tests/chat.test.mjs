// The live page's chat in the browser, by a person's clicks and keys: two players chat (Enter
// and the Send button), a logged-in spectator's line reaches another spectator and not the
// players during the game, `<b>hi</b>` shows as text, the length counter, an anonymous
// spectator cannot write, mute hides the chat (remembered per game across a reload), and the
// rate limit's message; then the phone layout (360×640: no sideways scroll, 44 px controls).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, BASE, api, eventually, expectText } from '../lib.mjs';

const lines = (page) => page.$$eval('[data-testid="chat-line"] .chat-text', (es) => es.map((e) => e.textContent));
async function expectLines(page, expected) {
  return eventually(async () => assert.deepEqual(await lines(page), expected));
}
async function say(page, text, how = 'Enter') {
  await page.click('[data-testid="chat-input"]');
  await page.keyboard.type(text);
  if (how === 'Enter') await page.keyboard.press('Enter');
  else await page.click('[data-testid="chat-send"]');
}
async function hidden(page, selector) {
  return page.evaluate((s) => {
    const e = document.querySelector(s);
    return !e || e.closest('.hidden') !== null;
  }, selector);
}

test('players chat, spectators chat apart, text stays text, mute, the rate limit', async () => {
  const a = await launch(), b = await launch(), c = await launch(), d = await launch();
  try {
    const ch = (await api('POST', '/api/challenge/open', { red: 'Ann', black: 'Bo' })).data;
    const red = await a.context.newPage();
    const black = await b.context.newPage();
    const fan = await c.context.newPage();
    const anon = await d.context.newPage();
    const errors = [];
    for (const p of [red, black, fan, anon]) p.on('pageerror', (e) => errors.push(e.message));

    // A spectator registers on the account page (typing), then opens the game.
    const name = 'fan' + Date.now().toString(36).slice(-6);
    await fan.goto(BASE + '/account');
    await fan.fill('[data-testid="register-username"]', name);
    await fan.fill('[data-testid="register-password"]', 'a good password');
    await fan.click('[data-testid="register-submit"]');
    await expectText(fan, '[data-testid="account-name"]', `Logged in as ${name}`);

    await red.goto(BASE + ch.urlRed);
    await black.goto(BASE + ch.urlBlack);
    await fan.goto(BASE + ch.url);
    await anon.goto(BASE + ch.url);
    await expectText(red, '#chat-title', 'Players’ chat');
    await expectText(fan, '#chat-title', 'Spectators’ chat');

    // The players: markup is shown as the characters typed, never as HTML.
    await say(red, '<b>hi</b>');
    await expectLines(black, ['<b>hi</b>']);
    await expectLines(red, ['<b>hi</b>']);
    assert.equal(await black.$$eval('#chat-lines b', (es) => es.length), 0, 'no <b> element');
    await say(black, 'hello Ann', 'click');
    await expectLines(red, ['<b>hi</b>', 'hello Ann']);
    const authors = await red.$$eval('[data-testid="chat-line"] .chat-user', (es) => es.map((e) => e.textContent));
    assert.deepEqual(authors, ['Ann', 'Bo']);

    // The length counter.
    await black.click('[data-testid="chat-input"]');
    await black.keyboard.type('x'.repeat(141));
    await expectText(black, '[data-testid="chat-count"]', '141/140');
    await black.keyboard.press('Enter');
    await expectText(black, '[data-testid="chat-error"]', /at most 140 characters/);
    await black.fill('[data-testid="chat-input"]', '');
    await expectText(black, '[data-testid="chat-count"]', '0/140');

    // An anonymous spectator reads but cannot write; a logged-in one writes.
    await eventually(async () => assert.equal(await anon.isDisabled('[data-testid="chat-input"]'), true));
    assert.equal(await anon.getAttribute('[data-testid="chat-input"]', 'placeholder'), 'Log in to write here');
    await say(fan, 'go red!');
    await expectLines(anon, ['go red!']);
    await expectLines(fan, ['go red!']);
    // Not the players: Red's next line comes to Black after it, and Black has no spectator's.
    await say(red, 'after');
    await expectLines(black, ['<b>hi</b>', 'hello Ann', 'after']);
    assert.deepEqual(await lines(anon), ['go red!'], 'spectators do not read the players');
    await shot(fan, 'chat-01-spectator');
    await shot(red, 'chat-02-player');

    // Mute hides the chat, and is remembered for this game across a reload.
    await black.click('[data-testid="chat-mute"]');
    await eventually(async () => assert.equal(await hidden(black, '#chat-lines'), true));
    await black.reload();
    await expectText(black, '[data-testid="chat-mute"]', 'Show chat');
    assert.equal(await hidden(black, '#chat-lines'), true);
    await black.click('[data-testid="chat-mute"]');
    await expectLines(black, ['<b>hi</b>', 'hello Ann', 'after']);

    // The rate limit: typing fast, the sixth line in ten seconds is refused with a message.
    for (let i = 0; i < 6; i++) {
      await say(red, `quick ${i}`);
      await eventually(async () => {
        const v = await red.inputValue('[data-testid="chat-input"]');
        const err = await red.textContent('[data-testid="chat-error"]');
        assert.ok(v === '' || err !== '', 'sent or refused');
      });
      if ((await red.textContent('[data-testid="chat-error"]')) !== '') break;
    }
    await expectText(red, '[data-testid="chat-error"]', /^Too many messages: wait \d+ s\.$/);
    await shot(red, 'chat-03-too-fast');

    // The game ends: the players read the spectators' room too.
    await red.click('[data-testid="abort"]');
    await red.click('#confirm-yes');
    await expectText(red, '[data-testid="result"]', /aborted/i);
    await red.click('[data-testid="chat-tab-spectator"]');
    await expectLines(red, ['go red!']);

    // A phone.
    for (const p of [fan, red]) {
      await p.setViewportSize({ width: 360, height: 640 });
      await p.locator('#live-chat').scrollIntoViewIfNeeded();
      const m = await p.evaluate(() => ({
        scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth,
        small: [...document.querySelectorAll('#live-chat button, #live-chat input')]
          .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
          .map((e) => e.id || e.textContent),
      }));
      assert.ok(m.scroll <= m.width, `no sideways scroll: ${m.scroll} > ${m.width}`);
      assert.deepEqual(m.small, [], 'every chat control is 44 px high');
    }
    await shot(fan, 'chat-04-phone');
    await shot(red, 'chat-05-phone-player');

    // The account's preference off: no chat panel.
    await fan.setViewportSize({ width: 1280, height: 800 });
    await fan.goto(BASE + '/account');
    await fan.uncheck('[data-testid="pref-chat"]');
    await expectText(fan, '[data-testid="page-msg"]', 'Saved.');
    await fan.goto(BASE + ch.url);
    await expectText(fan, '[data-testid="connection"]', /Spectating/);
    await eventually(async () => assert.equal(await hidden(fan, '#live-chat'), true));
    assert.deepEqual(errors, []);
  } finally {
    for (const x of [a, b, c, d]) await x.cleanup();
  }
});

test('a spectator blocks another by a click on their name, and unblocks on the account page', async () => {
  const a = await launch(), b = await launch(), c = await launch();
  try {
    const ch = (await api('POST', '/api/challenge/open', {})).data;
    const loud = await a.context.newPage();
    const quiet = await b.context.newPage();
    const anon = await c.context.newPage();
    const errors = [];
    for (const p of [loud, quiet, anon]) p.on('pageerror', (e) => errors.push(e.message));
    const stamp = Date.now().toString(36).slice(-6);
    const names = { loud: 'loud' + stamp, quiet: 'quiet' + stamp };
    for (const [p, n] of [[loud, names.loud], [quiet, names.quiet]]) {
      await p.goto(BASE + '/account');
      await p.fill('[data-testid="register-username"]', n);
      await p.fill('[data-testid="register-password"]', 'a good password');
      await p.click('[data-testid="register-submit"]');
      await expectText(p, '[data-testid="account-name"]', `Logged in as ${n}`);
      await p.goto(BASE + ch.url);
    }
    await anon.goto(BASE + ch.url);

    await say(loud, 'spam 1');
    await expectLines(quiet, ['spam 1']);
    await quiet.click('[data-testid="chat-author"]');
    await quiet.waitForSelector('#dlg-confirm[open]');
    await expectText(quiet, '#confirm-text', new RegExp(`^Block ${names.loud}\\?`));
    await quiet.click('#confirm-yes');
    await expectLines(quiet, []);
    await say(loud, 'spam 2');
    await expectLines(anon, ['spam 1', 'spam 2']);
    await expectLines(loud, ['spam 1', 'spam 2']);
    assert.deepEqual(await lines(quiet), []);
    // After a reload (the history and a new stream, both filtered for the account) still none.
    await quiet.reload();
    await expectText(quiet, '[data-testid="connection"]', /Spectating/);
    await say(loud, 'spam 3');
    await expectLines(anon, ['spam 1', 'spam 2', 'spam 3']);
    assert.deepEqual(await lines(quiet), []);

    // The account page lists the blocked player; Unblock.
    await quiet.goto(BASE + '/account');
    await expectText(quiet, '[data-testid="blocked"] .title', names.loud);
    await quiet.click('[data-testid="unblock"]');
    await expectText(quiet, '[data-testid="blocked-list"]', 'Nobody.');
    await quiet.goto(BASE + ch.url);
    await expectLines(quiet, ['spam 1', 'spam 2', 'spam 3']);
    assert.deepEqual(errors, []);
  } finally {
    for (const x of [a, b, c]) await x.cleanup();
  }
});
