// The app's one message catalogue: every text the pages show comes from a file per language
// (/locales/en.ftl, zh-Hans.ftl, zh-Hant.ftl, vi.ftl) in a subset of Project Fluent's syntax
// that this file parses itself:
//
//   # a comment
//   id = Text with a { $var } placeable
//   id = { $n ->
//       [one] 1 move
//      *[other] { $n } moves
//   }
//
// Messages are `id = pattern`; a pattern may go on over indented lines; a placeable is
// `{ $var }` (numbers formatted for the language), `{ "literal" }`, or a select expression on
// a variable whose variants are keyed by a plural category (Intl.PluralRules: zero, one, two,
// few, many, other), an exact number, or any string; `*` marks the default variant. Only the
// chosen language and English (the fallback, for a message the chosen one lacks: a console
// warning) are loaded. See docs/APP.md, "Languages".

export const LANGS = [
  ['en', 'English'], ['zh-Hans', '简体中文'], ['zh-Hant', '繁體中文'], ['vi', 'Tiếng Việt'],
];
const CODES = LANGS.map(([c]) => c);

// A language tag (a stored setting, navigator.languages, Accept-Language) as one of ours, or
// null: zh-TW, zh-HK, zh-MO and zh-Hant are Traditional; other zh (zh, zh-CN, zh-SG) Simplified.
export function normLang(tag) {
  const s = String(tag || '').trim().toLowerCase().replace(/_/g, '-');
  if (!s) return null;
  if (s === 'zh-hant' || /^zh-(hant|tw|hk|mo)\b/.test(s)) return 'zh-Hant';
  if (s === 'zh' || s.startsWith('zh-')) return 'zh-Hans';
  const base = s.split('-')[0];
  return CODES.includes(base) ? base : null;
}

// The first of the browser's languages (most preferred first) that we have; English otherwise.
export function pickLang(list) {
  for (const tag of list || []) { const l = normLang(tag); if (l) return l; }
  return 'en';
}

// The browser's languages (navigator.languages follows Accept-Language).
export function browserLang() {
  const nav = typeof navigator === 'undefined' ? {} : navigator;
  return pickLang(nav.languages && nav.languages.length ? nav.languages : [nav.language]);
}

// ---- the parser ---------------------------------------------------------------------------

// Fluent text `src` as a Map id -> pattern (an array of strings and placeables). A line that
// is neither a comment, a message nor the continuation of one is an error naming its line.
export function parseFtl(src, name = 'catalogue') {
  const out = new Map();
  const lines = String(src).replace(/\r\n?/g, '\n').split('\n');
  let id = null, body = [], start = 0;
  const finish = () => {
    if (id === null) return;
    if (out.has(id)) throw new Error(`${name}:${start}: message '${id}' is defined twice`);
    out.set(id, parsePattern(dedent(body), `${name}:${start} (${id})`));
    id = null;
  };
  lines.forEach((line, i) => {
    if (/^\s/.test(line) && line.trim() && id !== null) { body.push(line); return; }
    if (!line.trim() || line.startsWith('#')) { if (!line.trim() && id !== null) body.push(''); return; }
    const m = /^([a-zA-Z][a-zA-Z0-9_-]*)\s*=\s?(.*)$/.exec(line);
    if (!m) throw new Error(`${name}:${i + 1}: expected 'id = text', found '${line.slice(0, 40)}'`);
    finish();
    id = m[1]; body = [m[2]]; start = i + 1;
  });
  finish();
  return out;
}

// A message's lines as one text: the continuation lines' common indent taken off, blank
// lines at the end dropped.
function dedent(body) {
  const first = body[0].trim();
  let rest = body.slice(1);
  while (rest.length && !rest[rest.length - 1].trim()) rest.pop();
  const indent = Math.min(...rest.filter((l) => l.trim()).map((l) => /^ */.exec(l)[0].length));
  rest = rest.map((l) => l.slice(Number.isFinite(indent) ? indent : 0));
  return [first, ...rest].filter((l, i) => i > 0 || l !== '').join('\n');
}

function parsePattern(text, where) {
  let i = 0;
  const fail = (what) => { throw new Error(`${where}: ${what} at character ${i + 1} of '${text.slice(0, 60)}'`); };
  const ws = () => { while (i < text.length && /\s/.test(text[i])) i++; };
  function pattern(stopAtVariant) {
    const parts = [];
    let buf = '';
    while (i < text.length) {
      const c = text[i];
      if (c === '{') {
        if (buf) { parts.push(buf); buf = ''; }
        i++; parts.push(placeable());
      } else if (c === '}') {
        if (stopAtVariant) break;
        fail("a '}' with no '{'");
      } else if (stopAtVariant && c === '\n' && /^\n\s*(\*?\[|\})/.test(text.slice(i))) {
        break;
      } else { buf += c; i++; }
    }
    if (buf) parts.push(buf);
    return parts;
  }
  function placeable() {
    ws();
    let p;
    if (text[i] === '"') {
      const m = /^"((?:[^"\\]|\\.)*)"/.exec(text.slice(i));
      if (!m) fail('an unclosed string literal');
      i += m[0].length; p = m[1].replace(/\\(.)/g, '$1');
    } else if (text[i] === '$') {
      const m = /^\$([a-zA-Z][a-zA-Z0-9_-]*)/.exec(text.slice(i));
      if (!m) fail('a bad variable name');
      i += m[0].length; p = { v: m[1] };
    } else fail("expected '$name' or a \"string\"");
    ws();
    if (text.startsWith('->', i)) {
      i += 2;
      const variants = [];
      let def = -1;
      for (;;) {
        ws();
        if (text[i] === '}') break;
        const star = text[i] === '*';
        if (star) i++;
        if (text[i] !== '[') fail("expected a variant '[key]'");
        const close = text.indexOf(']', i);
        if (close < 0) fail("an unclosed '['");
        const key = text.slice(i + 1, close).trim();
        i = close + 1;
        while (text[i] === ' ') i++;
        if (star) def = variants.length;
        const val = pattern(true);
        // A variant's text: its own spaces at the ends dropped.
        if (typeof val[0] === 'string') val[0] = val[0].replace(/^\s+/, '');
        const last = val.length - 1;
        if (typeof val[last] === 'string') val[last] = val[last].replace(/\s+$/, '');
        variants.push([key, val]);
      }
      if (def < 0) fail('a select expression with no default variant (*)');
      p = { v: p.v, variants, def };
      if (!p.v) fail('a select expression on a literal');
    }
    ws();
    if (text[i] !== '}') fail("expected '}'");
    i++;
    return p;
  }
  const parts = pattern(false);
  return parts;
}

// ---- formatting ---------------------------------------------------------------------------

const pluralRules = new Map();
function plural(lang, n) {
  if (!pluralRules.has(lang)) pluralRules.set(lang, new Intl.PluralRules(lang));
  return pluralRules.get(lang).select(n);
}
const numberFormats = new Map();
function number(lang, n) {
  if (!numberFormats.has(lang)) numberFormats.set(lang, new Intl.NumberFormat(lang, { useGrouping: false }));
  return numberFormats.get(lang).format(n);
}

// A pattern with its arguments, in `lang`: a missing argument shows as `{$name}`.
export function formatPattern(parts, args, lang) {
  let s = '';
  for (const p of parts) {
    if (typeof p === 'string') { s += p; continue; }
    const v = args ? args[p.v] : undefined;
    if (!p.variants) {
      s += v === undefined || v === null ? `{$${p.v}}` : typeof v === 'number' ? number(lang, v) : String(v);
      continue;
    }
    const n = typeof v === 'number' ? v : Number(v);
    let hit = p.variants.find(([k]) => k === String(v));
    if (!hit && Number.isFinite(n)) hit = p.variants.find(([k]) => k === plural(lang, n));
    s += formatPattern((hit || p.variants[p.def])[1], args, lang);
  }
  return s;
}

// ---- the loaded catalogue -------------------------------------------------------------------

const state = { lang: 'en', main: new Map(), en: new Map(), warned: new Set() };

async function fetchFtl(lang) {
  const res = await fetch(`/locales/${lang}.ftl`);
  if (!res.ok) throw new Error(`/locales/${lang}.ftl: HTTP ${res.status}`);
  return parseFtl(await res.text(), `${lang}.ftl`);
}

// Loads `lang`'s catalogue (and English, once, as the fallback) and makes it the one `t`
// reads. A language we do not have is English.
export async function loadLang(lang) {
  const l = normLang(lang) || 'en';
  const [en, main] = await Promise.all([
    state.en.size ? state.en : fetchFtl('en'),
    l === 'en' ? null : fetchFtl(l),
  ]);
  state.en = en;
  state.main = main || en;
  state.lang = l;
  return l;
}

// A catalogue given directly (tests; a page that has the text already).
export function useCatalogue(lang, main, en) {
  state.lang = lang; state.main = main; state.en = en || main;
}

export function currentLang() { return state.lang; }
export function has(id) { return state.main.has(id) || state.en.has(id); }

// The message `id` with its arguments in the current language; English when the language
// lacks it (a console warning, once per id); the id itself when no catalogue has it.
export function t(id, args) {
  let parts = state.main.get(id), lang = state.lang;
  if (!parts) {
    parts = state.en.get(id); lang = 'en';
    if (!state.warned.has(id)) {
      state.warned.add(id);
      console.warn(parts ? `i18n: '${id}' is missing in ${state.lang}; English shown` : `i18n: no message '${id}'`);
    }
    if (!parts) return id;
  }
  return formatPattern(parts, args, lang);
}

// ---- the page ------------------------------------------------------------------------------

// The static text of a page from the catalogue: data-i18n (the text), data-i18n-ph (the
// placeholder), data-i18n-title, data-i18n-aria (the aria-label).
export function translatePage(root) {
  const each = (sel, f) => root.querySelectorAll(sel).forEach(f);
  each('[data-i18n]', (e) => { e.textContent = t(e.dataset.i18n); });
  each('[data-i18n-ph]', (e) => { e.placeholder = t(e.dataset.i18nPh); });
  each('[data-i18n-title]', (e) => { e.title = t(e.dataset.i18nTitle); });
  each('[data-i18n-aria]', (e) => { e.setAttribute('aria-label', t(e.dataset.i18nAria)); });
  if (root.documentElement) root.documentElement.lang = state.lang;
}

// The header's quick switch: English and the last other language chosen; it shows the
// language it switches to, in that language's own name.
export function langButton(btn, settings) {
  if (!btn) return;
  const to = settings.lang === 'en' ? settings.otherLang || 'zh-Hans' : 'en';
  const name = LANGS.find(([c]) => c === to)[1];
  btn.textContent = name;
  btn.lang = to;
  btn.title = t('switchLang');
  btn.setAttribute('aria-label', `${t('switchLang')}: ${name}`);
}

// A text the server wrote in every language (a ruling's account, a game's end): `o.texts`
// by language code, else the older `text_zh`/`textZh` for Chinese, else `o.text` (English).
export function rulingText(o) {
  if (!o) return '';
  const l = state.lang;
  return (o.texts && o.texts[l]) || (l.startsWith('zh') && (o.text_zh || o.textZh)) || o.text || '';
}
