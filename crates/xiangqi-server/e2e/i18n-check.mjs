// What the pages show that is left in English, for the tests of languages (i18n.test.mjs,
// tablebase.test.mjs): every word of three or more Latin letters that is in neither the
// chosen language's catalogue nor the names allowed in any language.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFtl } from '../web/i18n.js';
import { openingName } from '../web/openings.js';

const WEB = path.join(path.dirname(fileURLToPath(import.meta.url)), '../web');

// The words (three or more Latin letters) of a catalogue's messages: a word of the page that
// is neither in the chosen language's catalogue nor allowed is English left behind.
export function words(lang) {
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
export const ALLOWED = new Set(['english', 'ann', 'bob', 'i18nuser', 'home', 'end', 'iccs', 'wxf', 'fen', 'pgn', 'png', 'xqf', 'svg', 'pikafish']);

// What the page shows that is not in `lang`'s words: visible text nodes, and the aria-label,
// title and placeholder of visible elements.
export async function leftovers(page, lang) {
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

