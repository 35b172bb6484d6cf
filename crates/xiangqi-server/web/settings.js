// The app's settings, remembered in localStorage ('xiangqi.settings'), the settings dialog,
// and the themes: light or dark (or as the system says), three boards and three piece styles.
// The themes are attributes on <html> (data-theme, data-board, data-pieces) that style.css
// reads. Moved out of app.js.

import { PIECE_SETS, COORDS } from '/board.js';
import { browserLang, normLang, t } from '/i18n.js';

export const THEMES = ['auto', 'light', 'dark'];
export const BOARDS = ['wood', 'jade', 'paper'];
export const PIECE_STYLES = ['classic', 'flat', 'ink'];

const KEY = 'xiangqi.settings';

function stored() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || '{}');
    return v && typeof v === 'object' ? v : {};
  } catch { return {}; }
}

// The language of a first visit: the one the server read from the browser's Accept-Language
// (`<html data-accept-lang>`), else the browser's own list.
function firstLang() {
  const root = typeof document === 'undefined' ? null : document.documentElement;
  return normLang(root && root.dataset.acceptLang) || browserLang();
}

// The notation of a first visit, by its language: Chinese readers write 炮二平五, Vietnamese
// ones P2-5, the others WXF's C2.5 (changed in the settings, and kept once chosen).
function firstNotation(lang) {
  return lang && lang.startsWith('zh') ? 'chinese' : lang === 'vi' ? 'vi' : 'wxf';
}

// The first visit's language, read once.
const FIRST_LANG = firstLang();

// The settings object the whole app shares (read and changed in place).
export const settings = Object.assign(
  {
    lang: FIRST_LANG, notation: firstNotation(FIRST_LANG), pieces: 'chinese',
    hints: true, sound: true, name: '', theme: 'auto', board: 'wood', pieceStyle: 'classic', animate: true,
    notify: false, moveSpeed: 'normal', explorer: false, coords: 'outside',
  },
  stored(),
);
// A value from an older or edited store that is not one of the choices falls back.
// The language: the browser's (Accept-Language) on the first visit, then the one chosen; an
// older store's 'zh' is Simplified Chinese. `otherLang`: the last language other than English
// (the header's quick switch goes between it and English).
settings.lang = normLang(settings.lang) || 'en';
settings.otherLang = normLang(settings.otherLang) || (settings.lang !== 'en' ? settings.lang : (FIRST_LANG !== 'en' ? FIRST_LANG : 'zh-Hans'));
if (!['wxf', 'chinese', 'iccs', 'vi'].includes(settings.notation)) settings.notation = 'wxf';
if (!THEMES.includes(settings.theme)) settings.theme = 'auto';
if (!BOARDS.includes(settings.board)) settings.board = 'wood';
if (!PIECE_STYLES.includes(settings.pieceStyle)) settings.pieceStyle = 'classic';
if (!PIECE_SETS.includes(settings.pieces)) settings.pieces = 'chinese';
if (!COORDS.includes(settings.coords)) settings.coords = 'outside';
// How long a move's slide takes, in ms, by the speed setting.
export const MOVE_SPEEDS = { fast: 90, normal: 180, slow: 360 };
if (!(settings.moveSpeed in MOVE_SPEEDS)) settings.moveSpeed = 'normal';

export function saveSettings() {
  try { localStorage.setItem(KEY, JSON.stringify(settings)); } catch { /* storage full or off */ }
}

const darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

// Puts the chosen themes on <html>.
export function applyTheme() {
  const root = document.documentElement;
  const dark = settings.theme === 'dark' || (settings.theme === 'auto' && darkQuery && darkQuery.matches);
  root.dataset.theme = dark ? 'dark' : 'light';
  root.dataset.board = settings.board;
  root.dataset.pieces = settings.pieceStyle;
  const meta = document.querySelector('meta[name=color-scheme]');
  if (meta) meta.content = dark ? 'dark' : 'light';
}
if (darkQuery && darkQuery.addEventListener) darkQuery.addEventListener('change', () => applyTheme());

// Whether moves are animated: the setting, and never when the system asks for less motion.
export function animating() {
  const reduce = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  return settings.animate !== false && !reduce;
}

const $ = (id) => document.getElementById(id);

// The settings dialog: filled from the settings when opened, read back when closed; then
// `changed()` (the app redraws; it loads a newly chosen language first).
export function setupSettingsDialog(changed) {
  const fields = [
    ['set-notation', 'notation'], ['set-pieces', 'pieces'], ['set-lang', 'lang'], ['set-theme', 'theme'],
    ['set-board', 'board'], ['set-piece-style', 'pieceStyle'], ['set-move-speed', 'moveSpeed'], ['set-coords', 'coords'],
  ];
  const checks = [['set-hints', 'hints'], ['set-sound', 'sound'], ['set-animate', 'animate'], ['set-notify', 'notify']];
  // Notifications need the browser's permission: asked when the box is ticked (a click).
  const notify = $('set-notify');
  if (notify) {
    notify.addEventListener('change', () => {
      if (notify.checked && typeof Notification !== 'undefined' && Notification.permission === 'default') {
        Notification.requestPermission().catch(() => {});
      }
    });
  }
  $('btn-settings').addEventListener('click', () => {
    for (const [id, k] of fields) if ($(id)) $(id).value = settings[k];
    for (const [id, k] of checks) if ($(id)) $(id).checked = k === 'notify' ? !!settings[k] : settings[k] !== false;
    $('dlg-settings').showModal();
  });
  $('dlg-settings').addEventListener('close', () => {
    for (const [id, k] of fields) if ($(id)) settings[k] = $(id).value;
    for (const [id, k] of checks) if ($(id)) settings[k] = $(id).checked;
    if (settings.lang !== 'en') settings.otherLang = settings.lang;
    saveSettings();
    applyTheme();
    changed();
  });
}

// Phones: the header's navigation folds into a menu (style.css shows the ☰ button on narrow
// screens); the button opens and closes it, and a choice in it closes it.
function setupMenu() {
  const btn = $('btn-menu');
  const top = btn && btn.closest('.top');
  if (!top) return;
  // (Its aria-label is the catalogue's ariaMenu, set with the page's static text.)
  const set = (open) => { top.classList.toggle('open', open); btn.setAttribute('aria-expanded', open ? 'true' : 'false'); };
  btn.addEventListener('click', () => set(!top.classList.contains('open')));
  $('nav-main').addEventListener('click', (e) => { if (e.target.closest('button, a')) set(false); });
}

applyTheme();
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setupMenu); else setupMenu();
