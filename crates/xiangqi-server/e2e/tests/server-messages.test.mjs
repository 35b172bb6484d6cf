// The server's refusals a player can meet in the app, checked without a browser: every
// message the account, seek, challenge, chat and live-game code writes (found in the Rust
// source, so a new one is checked as soon as it is written) is shown translated in each
// language other than English — messages.js knows its shape and the catalogue has its text —
// and nothing of it is left in English. The few messages no page of the app can cause (they
// need an API token or a hand-made request) are listed below with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseFtl, useCatalogue, LANGS } from '../../web/i18n.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WEB = path.join(HERE, '../../web');
const SRC = path.join(HERE, '../../src');

// messages.js imports '/i18n.js' (the server's path): a copy that imports the file instead.
async function loadMessages() {
  const src = fs.readFileSync(path.join(WEB, 'messages.js'), 'utf8')
    .replace("from '/i18n.js'", `from '${pathToFileURL(path.join(WEB, 'i18n.js')).href}'`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xiangqi-messages-'));
  const file = path.join(dir, 'messages.mjs');
  fs.writeFileSync(file, src);
  return import(pathToFileURL(file).href);
}

// The files whose refusals reach a player through the pages.
const FILES = [
  'accounts/mod.rs', 'api/accounts.rs', 'api/online.rs', 'online/live.rs',
  'online/hub/error.rs', 'online/hub/chat.rs', 'online/hub/seeks.rs', 'online/hub/actions.rs',
];

// Messages no page of the app can cause, with why.
const NOT_FROM_THE_APP = new Map([
  ['this needs a seat\'s token (Authorization: Bearer TOKEN)', 'the app always sends its seat'],
  ['this token holds no seat in this game', 'the app sends only its own seat\'s token'],
  ['bad Authorization header', 'only a hand-made request'],
  ['unknown or revoked API token', 'the pages log in with a session, not a token'],
  ['this needs a logged-in session (the account page), not an API token', 'the pages use the session'],
  ['a change made with the session cookie needs the session\'s CSRF token in the X-CSRF-Token header', 'the pages always send it'],
  ['a request from another site\'s page is refused', 'only another site\'s page'],
  ['missing field \'text\'', 'the chat always sends its text'],
  ['no such API endpoint', 'only a hand-made request'],
  ['the Authorization header must be \'Bearer TOKEN\'', 'the pages send no Authorization header of their own'],
  ['the bot API needs a bot account\'s personal API token (Authorization: Bearer xqt_...)', 'the bot API, for bots'],
  ['the bot API takes a bot account\'s personal API token, not a seat\'s token', 'the bot API, for bots'],
  ['days must be one of 1, 2, 3, 5, 7, 10 or 14 (days per move), not 4', 'the page offers only those days'],
  ['give either days (correspondence) or clock.limit and clock.increment, not both', 'the page sends one of them'],
  ['query parameter \'offeringDraw\' must be true or false, not \'bob\'', 'the board API\'s parameter; the page sends none'],
  ['token id \'X\' is not a whole number', 'the account page sends the ids it lists'],
  ['the system\'s random source failed: X', 'the operating system\'s failure, not the player\'s'],
]);

// A Rust string literal's text: escapes read, a `\` line break and the next line's indent gone.
function literal(s) {
  return s.replace(/\\\n\s*/g, '').replace(/\\(["'\\])/g, '$1').replace(/\\n/g, '\n');
}

// Sample values for the placeholders of a format string.
const SAMPLE = {
  n: '31', retry: '5', wait_ms: '5000', MIN_NAME: '2', MAX_NAME: '30', MIN_PASSWORD: '8',
  MAX_PASSWORD: '1024', MAX_LABEL: '60', MAX_TOKENS: '20', MAX_CHAT: '140', name: 'bob', o: 'bob',
  speed: 'blitzz', game: '7', d: '4', id: 'X', e: 'X', 'self.0': 'X',
};

// Every message of the files: the string literals that make a refusal (f.write_str,
// write!(f, ...), msg: ..., Forbidden/LogIn/forbidden(...), ApiError::bad/new(...)), with
// each `{what}` given every value the code passes for it.
function serverMessages() {
  const out = new Map();
  // The `what`s of Full(...) and NoOffer(...); those of limits by the error type that shows
  // them (AccountError's in accounts/, OnlineError's in online/).
  const whats = { full: new Set(), offer: new Set(), 'limit-accounts': new Set(), 'limit-online': new Set() };
  const templates = [];
  for (const f of FILES) {
    let src = fs.readFileSync(path.join(SRC, f), 'utf8');
    src = src.split(/\n#\[cfg\(test\)\]\nmod tests/)[0];
    const lit = '"((?:[^"\\\\]|\\\\[\\s\\S])*)"';
    for (const m of src.matchAll(new RegExp(`Full\\(${lit}\\)`, 'g'))) whats.full.add(literal(m[1]));
    for (const m of src.matchAll(new RegExp(`NoOffer\\(${lit}\\)`, 'g'))) whats.offer.add(literal(m[1]));
    const scope = f.startsWith('online/') ? 'online' : 'accounts';
    for (const m of src.matchAll(new RegExp(`what: ${lit}`, 'g'))) whats[`limit-${scope}`].add(literal(m[1]));
    const ctx = '(?:write_str\\(|write!\\(\\s*f,|msg: |Forbidden\\(|LogIn\\(|forbidden\\(|ApiError::bad\\(|ApiError::new\\(\\s*StatusCode::\\w+,)';
    for (const m of src.matchAll(new RegExp(`${ctx}\\s*(?:format!\\(\\s*)?${lit}`, 'g'))) {
      const line = src.slice(0, m.index).split('\n').length;
      templates.push([literal(m[1]), `${f}:${line}`, f.startsWith('online/') ? 'online' : 'accounts']);
    }
  }
  for (const [tpl, where, scope] of templates) {
    if (!/[a-z]/.test(tpl) || !tpl.includes(' ')) continue;
    const kind = /\{what\} open/.test(tpl) ? 'full' : /no \{what\}/.test(tpl) ? 'offer' : `limit-${scope}`;
    const values = tpl.includes('{what}') ? [...whats[kind]] : [null];
    for (const w of values) {
      const msg = tpl.replace(/\{what\}/g, w).replace(/\{([\w.]*)\}/g, (all, k) => {
        if (!k) return '5';
        if (!(k in SAMPLE)) throw new Error(`${where}: no sample value for {${k}} in '${tpl}'`);
        return SAMPLE[k];
      });
      out.set(msg, where);
    }
  }
  return out;
}

test('the source scan finds the refusals it should', () => {
  const msgs = serverMessages();
  for (const m of ['wrong username or password', 'this username is taken', 'it is not your turn',
    'too many chat lines in a short time; wait 5 s', 'there is no draw offer to answer',
    'too many seeks open; try again later', 'a chat line is empty']) {
    assert.ok(msgs.has(m), `the scan missed '${m}'`);
  }
  assert.ok(msgs.size > 40, `only ${msgs.size} messages found`);
  for (const m of NOT_FROM_THE_APP.keys()) assert.ok(msgs.has(m), `'${m}' is listed as not from the app but no longer written`);
});

test('every refusal a player can meet is shown in their language', async () => {
  const { messageText } = await loadMessages();
  const cat = (l) => parseFtl(fs.readFileSync(path.join(WEB, `locales/${l}.ftl`), 'utf8'), `${l}.ftl`);
  const en = cat('en');
  const msgs = [...serverMessages()].filter(([m]) => !NOT_FROM_THE_APP.has(m));
  for (const [lang] of LANGS.slice(1)) {
    useCatalogue(lang, cat(lang), en);
    const english = [];
    for (const [m, where] of msgs) {
      const shown = messageText(m);
      // Left in English: the same text, or any run of three English words of it.
      const words = m.toLowerCase().match(/[a-z']{3,}/g) || [];
      const left = shown === m || words.some((w, i) => i + 2 < words.length && shown.toLowerCase().includes(`${w} ${words[i + 1]} ${words[i + 2]}`));
      if (left) english.push(`${where}: '${m}' -> '${shown}'`);
    }
    assert.deepEqual(english, [], `${lang}: shown in English`);
  }
  useCatalogue('en', en, en);
  for (const [m] of msgs) assert.equal(messageText(m), m, 'English is shown as the server wrote it');
});

// The import's refusals of a file that is no record or a damaged one (xiangqi-record's
// `RecordError::LooksLike`, docs/RECORDS.md), as the server answers them.
const IMPORT_REFUSALS = [
  'this looks like a ZIP archive, not a game record: unpack it and read the record files inside',
  'this looks like a gzip-compressed file, not a game record: unpack it and read the record files inside',
  'this looks like a 7-Zip archive, not a game record: unpack it and read the record files inside',
  'this looks like a RAR archive, not a game record: unpack it and read the record files inside',
  'this looks like a PDF document, not a game record: only game record files are read',
  'this looks like a Microsoft Office document (.doc, .xls), not a game record: only game record files are read',
  'this looks like a PNG image, not a game record: only game record files are read',
  'this looks like a JPEG image, not a game record: only game record files are read',
  'this looks like a GIF image, not a game record: only game record files are read',
  'this looks like an SGF (Smart Game Format) file of Chinese chess (GM[7]): SGF is a format this program does not read',
  'this looks like an SGF (Smart Game Format) file: SGF is a format this program does not read',
  'this looks like an XQF file whose header is damaged (byte 203: the file ends there, inside the 1024-byte header; XQF version byte 10)',
  'this looks like a 中国游戏中心 (China Game Center) .ccm record damaged at move 5 (byte 28: the move record is off the board); `xiangqi convert --lenient` keeps the 4 moves before it',
  'this looks like an 联众 (Ourgame) .chn record damaged at move 5 (byte 316: the move record is cut short); `xiangqi convert --lenient` keeps the 4 moves before it',
  'this looks like a CCBridge file (.cbr or .cbl) whose 16-byte signature is damaged (byte 3: 0x41; a record starts with "CCBridge Record\\0", a library with "CCBridgeLibrary\\0")',
  'XQF at byte 2 (0x2): the header is damaged: version byte 40 is none XQStudio writes (10-18, XQF 1.0-1.8); read as XQF 1.1 or later, the file fails: data ends',
];

test("the import's refusals of files that are not records are shown in the player's language", async () => {
  const { messageText } = await loadMessages();
  const cat = (l) => parseFtl(fs.readFileSync(path.join(WEB, `locales/${l}.ftl`), 'utf8'), `${l}.ftl`);
  const en = cat('en');
  // Each shape is one the record reader writes (so the list follows the code).
  const dir = path.join(HERE, '../../../xiangqi-record/src');
  const src = fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.rs'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
  for (const frag of ['unpack it and read the record files inside', 'only game record files are read',
    'SGF is a format this program does not read', 'whose header is damaged', 'signature is damaged', 'is none XQStudio writes',
    '.ccm record"', '.chn record"', 'damaged at move {k} (byte {at}: the move record is', 'keeps the {} moves before it']) {
    assert.ok(src.includes(frag), `the record reader no longer writes '${frag}'`);
  }
  for (const [lang] of LANGS.slice(1)) {
    useCatalogue(lang, cat(lang), en);
    for (const m of IMPORT_REFUSALS) {
      const shown = messageText(m);
      assert.ok(!/this looks like|not a game record|is a format/.test(shown), `${lang}: '${m}' -> '${shown}'`);
      const byte = /\(byte (\d+)/.exec(m);
      if (byte) assert.ok(shown.includes(byte[1]), `${lang}: the byte kept in '${shown}'`);
    }
  }
  useCatalogue('en', en, en);
});
