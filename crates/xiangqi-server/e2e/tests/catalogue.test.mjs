// The message catalogue, checked without a browser: every language has exactly English's
// message ids, with no variable English does not give; every id the scripts and pages name
// (t('id'), data-i18n="id") exists; the Fluent subset parses, selects plurals by the
// language's rules and reports a bad line by its place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFtl, formatPattern, pickLang, normLang, LANGS } from '../../web/i18n.js';
import { hanViet, openingName } from '../../web/openings.js';

const WEB = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../web');
const read = (f) => fs.readFileSync(path.join(WEB, f), 'utf8');
const cat = (l) => parseFtl(read(`locales/${l}.ftl`), `${l}.ftl`);
const EN = cat('en');

// The variables a pattern uses (and its selectors').
function vars(parts, out = new Set()) {
  for (const p of parts) {
    if (typeof p === 'string') continue;
    out.add(p.v);
    if (p.variants) for (const [, v] of p.variants) vars(v, out);
  }
  return out;
}

test('every language has exactly the ids of English, and no variable English lacks', () => {
  assert.deepEqual(LANGS.map(([c]) => c), ['en', 'zh-Hans', 'zh-Hant', 'vi']);
  for (const [l] of LANGS.slice(1)) {
    const m = cat(l);
    const missing = [...EN.keys()].filter((k) => !m.has(k));
    const extra = [...m.keys()].filter((k) => !EN.has(k));
    assert.deepEqual(missing, [], `${l}.ftl lacks these ids`);
    assert.deepEqual(extra, [], `${l}.ftl has ids English has not`);
    for (const [id, parts] of m) {
      const unknown = [...vars(parts)].filter((v) => !vars(EN.get(id)).has(v));
      assert.deepEqual(unknown, [], `${l}.ftl: ${id} uses variables English does not give`);
    }
  }
});

test('every message id the scripts and pages name is in the catalogue', () => {
  const used = new Map();
  const note = (id, where) => { if (!used.has(id)) used.set(id, where); };
  for (const f of fs.readdirSync(WEB).filter((f) => f.endsWith('.js'))) {
    const src = read(f);
    // account.js's `t('x')` is the catalogue's acct-x (its helpers say so).
    const prefix = f === 'account.js' ? 'acct-' : '';
    for (const m of src.matchAll(/(?<![\w.])(?:ctx\.|C\.|opts\.)?t\('([^']+)'[,)]/g)) note(prefix + m[1], f);
    for (const m of src.matchAll(/\btr\('([^']+)'[,)]/g)) note(m[1], f);
    for (const m of src.matchAll(/,\s*'(err-[a-z-]+)',\s*'/g)) note(m[1], f);
  }
  for (const f of ['index.html', 'account.html']) {
    for (const m of read(f).matchAll(/data-i18n(?:-ph|-title|-aria)?="([^"]+)"/g)) note(m[1], f);
  }
  assert.ok(used.size > 250, `found only ${used.size} ids in use`);
  const missing = [...used].filter(([id]) => !EN.has(id)).map(([id, f]) => `${id} (${f})`);
  assert.deepEqual(missing, []);
});

test('plurals, numbers and selects follow each language', () => {
  const f = (l, id, args) => formatPattern(cat(l).get(id), args, l);
  assert.equal(f('en', 'rvInaccuracies', { n: 1 }), '1 inaccuracy');
  assert.equal(f('en', 'rvInaccuracies', { n: 3 }), '3 inaccuracies');
  assert.equal(f('en', 'movesN', { n: 1 }), '1 move');
  assert.equal(f('en', 'imported', { n: 0 }), 'Imported 0 games.');
  assert.equal(f('zh-Hans', 'rvMistakes', { n: 2 }), '2 次错着');
  assert.equal(f('zh-Hant', 'rvMistakes', { n: 1 }), '1 次錯著');
  assert.equal(f('vi', 'movesN', { n: 1 }), '1 nước');
  assert.equal(f('en', 'rvSep', {}), ', ');
  // A missing argument shows as itself, not as "undefined".
  assert.equal(f('en', 'watching', {}), '{$n} watching');
  // Exact-number variants win over categories; a string selector picks its key.
  const m = parseFtl('a = { $n ->\n    [0] none\n    [one] one\n   *[other] { $n } many\n    }\nb = { $s ->\n    [red] Red\n   *[other] ?\n    }\n');
  assert.equal(formatPattern(m.get('a'), { n: 0 }, 'en'), 'none');
  assert.equal(formatPattern(m.get('a'), { n: 1 }, 'en'), 'one');
  assert.equal(formatPattern(m.get('a'), { n: 1234 }, 'en'), '1234 many');
  assert.equal(formatPattern(m.get('b'), { s: 'red' }, 'en'), 'Red');
});

test('a bad catalogue line is an error naming the file and line', () => {
  assert.throws(() => parseFtl('a = fine\nnot a message\n', 'x.ftl'), /x\.ftl:2: expected 'id = text'/);
  assert.throws(() => parseFtl('a = one\na = two\n', 'x.ftl'), /x\.ftl:2: message 'a' is defined twice/);
  assert.throws(() => parseFtl('a = { $n ->\n    [one] x\n    }\n', 'x.ftl'), /x\.ftl:1 \(a\): a select expression with no default/);
  assert.throws(() => parseFtl('a = text { $n\n', 'x.ftl'), /x\.ftl:1 \(a\): expected '}'/);
});

test('the browser languages choose ours', () => {
  assert.equal(pickLang(['zh-TW', 'en']), 'zh-Hant');
  assert.equal(pickLang(['zh-HK']), 'zh-Hant');
  assert.equal(pickLang(['zh-Hant-TW']), 'zh-Hant');
  assert.equal(pickLang(['zh-CN']), 'zh-Hans');
  assert.equal(pickLang(['zh-SG']), 'zh-Hans');
  assert.equal(pickLang(['zh']), 'zh-Hans');
  assert.equal(pickLang(['vi-VN', 'en-US']), 'vi');
  assert.equal(pickLang(['fr-FR', 'vi']), 'vi');
  assert.equal(pickLang(['fr-FR', 'de']), 'en');
  assert.equal(pickLang([]), 'en');
  // An older store's 'zh' is Simplified Chinese.
  assert.equal(normLang('zh'), 'zh-Hans');
  assert.equal(normLang('klingon'), null);
});

test('every opening of the table has a name in each language', () => {
  const tsv = fs.readFileSync(path.join(WEB, '../../xiangqi-explorer/openings.tsv'), 'utf8');
  const rows = tsv.split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t'));
  assert.ok(rows.length > 100);
  for (const [eco, name, nameZh] of rows) {
    const vi = hanViet(nameZh);
    assert.ok(vi && !/[\u3400-\u9fff]/.test(vi), `a Vietnamese reading of ${nameZh}: ${vi}`);
    assert.ok(!/[A-Za-z]/.test(openingName({ eco: '', name, nameZh }, 'zh-Hant')), nameZh);
  }
  // The names Vietnamese books use.
  assert.equal(hanViet('中炮对屏风马'), 'Trung Pháo Đối Bình Phong Mã');
  assert.equal(hanViet('仙人指路'), 'Tiên Nhân Chỉ Lộ');
  assert.equal(hanViet('飞相局'), 'Phi Tượng Cục');
  assert.equal(hanViet('顺炮直车对横车'), 'Thuận Pháo Trực Xa Đối Hoành Xa');
  assert.equal(openingName({ eco: 'C04', name: 'x', nameZh: '中炮对屏风马' }, 'zh-Hant'), 'C04 中炮對屏風馬');
  assert.equal(openingName({ eco: '', name: 'Central Cannon', nameZh: '中炮' }, 'en'), 'Central Cannon');
});
