// The board by keyboard alone, and what a screen reader says: once the board is reached by
// the keyboard (Tab; a click leaves the arrow keys to stepping through the game), the arrow
// keys move a cursor over its points (up is up on the screen, as the board is
// drawn), Enter or Space picks the piece there or drops the picked one (the same as a click),
// and Escape lets the arrow keys step through the game again. The cursor's point and what
// stands on it, and every move played, are said in a polite live region (#sr-live), in the
// page's language and notation.
import { el, sqName, sqParse, parseFen } from '/board.js';

// Says `text` to screen readers (the live region is visually hidden).
export function announce(text) {
  const live = document.getElementById('sr-live');
  if (!live) return;
  // The same text twice in a row is said again only if the region changes.
  live.textContent = live.textContent === text ? text + '\u00a0' : text;
}

// `opts`: `flipped()` (the board drawn from Black's side), `fen()` (the position shown),
// `pick(sq)` (a click on point `sq`), `t` and `lang()` (texts), `redraw()`.
export function keyboardBoard(svg, opts) {
  // `keys`: the board was reached by the keyboard (Tab), not by a click: only then do the
  // arrow keys move the cursor (after a click they step through the game, as elsewhere).
  const K = { cursor: null, keys: false, pointerAt: 0 };
  const focused = () => document.activeElement === svg;

  function describe(sq) {
    const ch = parseFen(opts.fen() || '').board.get(sq);
    if (!ch) return `${sq}`;
    const side = ch === ch.toUpperCase() ? 'red' : 'black';
    // Chinese names the sides' pieces apart (Red's 帅 仕 相 兵, Black's 将 士 象 卒): role-x is
    // Red's piece, role-black-x Black's.
    const role = (side === 'red' ? 'role-' : 'role-black-') + ch.toLowerCase();
    return `${sq} · ${opts.t(side)} ${opts.t(role)}`;
  }

  function move(dx, dy) {
    const fl = opts.flipped();
    const { f, r } = sqParse(K.cursor || start());
    // On the screen: x grows to the right, y downwards; Red's rank 0 is at the bottom unless
    // the board is flipped.
    const nf = Math.max(0, Math.min(8, f + (fl ? -dx : dx)));
    const nr = Math.max(0, Math.min(9, r + (fl ? dy : -dy)));
    K.cursor = sqName(nf, nr);
    opts.redraw();
    announce(describe(K.cursor));
  }

  const start = () => (opts.flipped() ? 'e9' : 'e0');
  svg.addEventListener('pointerdown', () => {
    K.pointerAt = performance.now();
    if (K.keys) { K.keys = false; opts.redraw(); }
  }, true);
  svg.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !K.keys) return;
    const dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (dirs[e.key]) move(...dirs[e.key]);
    else if (e.key === 'Enter' || e.key === ' ') opts.pick(K.cursor);
    else if (e.key === 'Escape') svg.blur();
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  // Focused from the keyboard: the cursor shows, where it was or on the king's file.
  svg.addEventListener('focus', () => {
    // (A click focuses the board too: its pointerdown comes just before.)
    if (performance.now() - K.pointerAt < 500) return;
    K.keys = true;
    if (!K.cursor) K.cursor = start();
    opts.redraw();
    announce(describe(K.cursor));
  });
  // (Only a drawn cursor is redrawn away: a redraw on every blur would replace the element
  // being clicked, the move list's say, between its mousedown and its click.)
  svg.addEventListener('blur', () => { if (K.keys) { K.keys = false; opts.redraw(); } });

  return {
    // Draws the cursor (when the board has the focus); called at the end of each render.
    draw(xy) {
      if (!focused() || !K.cursor || !K.keys) return;
      const [x, y] = xy(K.cursor);
      el('rect', { x: x - 30, y: y - 30, width: 60, height: 60, rx: 6, class: 'kb-cursor', 'data-cursor': K.cursor }, svg);
    },
    cursor: () => K.cursor,
  };
}
