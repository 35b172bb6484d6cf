// The board shared by the app's pages: square names, FEN reading and writing, and the SVG
// drawing of the grid and the pieces (no game state: the callers pass what to draw).

export const SVGNS = 'http://www.w3.org/2000/svg';
export const CELL = 60, MARGIN = 50;

export const ROLE_ZH = {
  red: { k: '帥', a: '仕', b: '相', n: '傌', r: '俥', c: '炮', p: '兵' },
  black: { k: '將', a: '士', b: '象', n: '馬', r: '車', c: '砲', p: '卒' },
};
// Simplified characters, as mainland boards and books print them.
export const ROLE_ZH_SIMPLIFIED = {
  red: { k: '帅', a: '仕', b: '相', n: '马', r: '车', c: '炮', p: '兵' },
  black: { k: '将', a: '士', b: '象', n: '马', r: '车', c: '炮', p: '卒' },
};
export const ROLE_EN = { k: 'K', a: 'A', b: 'E', n: 'H', r: 'R', c: 'C', p: 'P' };
// The piece sets of the settings: traditional characters, simplified ones, WXF letters.
export const PIECE_SETS = ['chinese', 'simplified', 'letters'];

export function sqName(f, r) { return 'abcdefghi'[f] + r; }
export function sqParse(s) { return { f: s.charCodeAt(0) - 97, r: +s.slice(1) }; }

// The board of a FEN as a Map from square name to piece letter (upper case: Red). The letters
// are the ones the server writes (k a b n r c p); `h` (horse) and `e` (elephant), which the
// server reads too, become `n` and `b`. What does not fit the board (a 10th point, an 11th
// rank, an unknown letter) is left out: the server, which judges FENs, names the fault.
const LETTER = { h: 'n', e: 'b', H: 'N', E: 'B' };
export function parseFen(fen) {
  const board = new Map();
  const rows = String(fen).trim().split(/\s+/)[0].split('/');
  rows.forEach((row, i) => {
    const r = 9 - i;
    if (r < 0) return;
    let f = 0;
    for (const ch of row) {
      if (ch >= '0' && ch <= '9') f += +ch;
      else {
        const p = LETTER[ch] || ch;
        if (f <= 8 && /^[kabnrcpKABNRCP]$/.test(p)) board.set(sqName(f, r), p);
        f += 1;
      }
    }
  });
  return { board, turn: (String(fen).trim().split(/\s+/)[1] || 'w') === 'b' ? 'black' : 'red' };
}
export function boardToFen(board, turn) {
  const rows = [];
  for (let r = 9; r >= 0; r--) {
    let row = '', empty = 0;
    for (let f = 0; f < 9; f++) {
      const p = board.get(sqName(f, r));
      if (p) { if (empty) row += empty; empty = 0; row += p; } else empty++;
    }
    if (empty) row += empty;
    rows.push(row);
  }
  return rows.join('/') + ' ' + (turn === 'black' ? 'b' : 'w') + ' - - 0 1';
}

export function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
export function xyOf(sq, flipped) {
  const { f, r } = typeof sq === 'string' ? sqParse(sq) : sq;
  const ff = flipped ? 8 - f : f;
  const rr = flipped ? r : 9 - r;
  return [MARGIN + ff * CELL, MARGIN + rr * CELL];
}

// The files' numbers as each notation has them: WXF and Chinese count each player's files
// from that player's right (Red's along Red's edge: 9…1 or 九…一 from a to i; Black's along
// Black's edge: 1…9 from a to i); ICCS letters the files a-i and numbers the ranks 0-9.
const ZH_FILES = ['九', '八', '七', '六', '五', '四', '三', '二', '一'];
export function fileLabels(notation) {
  if (notation === 'iccs') return null;
  const red = notation === 'chinese' ? ZH_FILES : ['9', '8', '7', '6', '5', '4', '3', '2', '1'];
  return { red, black: ['1', '2', '3', '4', '5', '6', '7', '8', '9'] };
}

// The board: grid, palaces, river, point marks and the coordinates of `notation` (default
// ICCS). Its colours come from style.css (the board theme).
export function drawGrid(svg, flipped, notation) {
  const xy = (sq) => xyOf(sq, flipped);
  const defs = el('defs', {}, svg);
  const wood = el('linearGradient', { id: 'wood', x1: 0, y1: 0, x2: 1, y2: 1 }, defs);
  el('stop', { offset: '0', class: 'board-a' }, wood);
  el('stop', { offset: '1', class: 'board-b' }, wood);
  const disc = el('radialGradient', { id: 'disc', cx: '.4', cy: '.35', r: '.75' }, defs);
  el('stop', { offset: '0', class: 'disc-a' }, disc);
  el('stop', { offset: '1', class: 'disc-b' }, disc);
  const glow = el('radialGradient', { id: 'checkglow' }, defs);
  el('stop', { offset: '.45', 'stop-color': 'rgba(220,20,20,.85)' }, glow);
  el('stop', { offset: '1', 'stop-color': 'rgba(220,20,20,0)' }, glow);
  const mk = el('marker', { id: 'ah', viewBox: '0 0 10 10', refX: '5', refY: '5', markerWidth: '3', markerHeight: '3', orient: 'auto-start-reverse' }, defs);
  el('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }, mk);

  el('rect', { x: 0, y: 0, width: 580, height: 640, rx: 10, class: 'b-bg' }, svg);
  const g = el('g', {}, svg);
  const x0 = MARGIN, y0 = MARGIN, x8 = MARGIN + 8 * CELL, y9 = MARGIN + 9 * CELL;
  el('rect', { x: x0 - 6, y: y0 - 6, width: 8 * CELL + 12, height: 9 * CELL + 12, class: 'b-edge' }, g);
  for (let i = 0; i < 10; i++) el('line', { x1: x0, y1: y0 + i * CELL, x2: x8, y2: y0 + i * CELL, class: 'b-line' }, g);
  for (let f = 0; f < 9; f++) {
    const x = x0 + f * CELL;
    if (f === 0 || f === 8) el('line', { x1: x, y1: y0, x2: x, y2: y9, class: 'b-line' }, g);
    else {
      el('line', { x1: x, y1: y0, x2: x, y2: y0 + 4 * CELL, class: 'b-line' }, g);
      el('line', { x1: x, y1: y0 + 5 * CELL, x2: x, y2: y9, class: 'b-line' }, g);
    }
  }
  // palaces
  for (const [a, b] of [[[3, 0], [5, 2]], [[5, 0], [3, 2]], [[3, 7], [5, 9]], [[5, 7], [3, 9]]]) {
    const [xa, ya] = xy({ f: a[0], r: a[1] }), [xb, yb] = xy({ f: b[0], r: b[1] });
    el('line', { x1: xa, y1: ya, x2: xb, y2: yb, class: 'b-line' }, g);
  }
  // river
  const ry = y0 + 4.5 * CELL;
  const left = flipped ? '漢 界' : '楚 河', right = flipped ? '楚 河' : '漢 界';
  el('text', { x: x0 + 2 * CELL, y: ry + 10, 'text-anchor': 'middle', class: 'b-river' }, g).textContent = left;
  el('text', { x: x0 + 6 * CELL, y: ry + 10, 'text-anchor': 'middle', class: 'b-river' }, g).textContent = right;
  // point marks for cannons and soldiers
  const marks = [[1, 2], [7, 2], [1, 7], [7, 7]];
  for (const f of [0, 2, 4, 6, 8]) { marks.push([f, 3]); marks.push([f, 6]); }
  for (const [f, r] of marks) {
    const [x, y] = xy({ f, r });
    const d = 5, l = 10;
    for (const sx of [-1, 1]) {
      if ((f === 0 && sx === -1) || (f === 8 && sx === 1)) continue;
      for (const sy of [-1, 1]) {
        el('path', { d: `M${x + sx * d},${y + sy * (d + l)} L${x + sx * d},${y + sy * d} L${x + sx * (d + l)},${y + sy * d}`, class: 'b-line', 'stroke-width': 1.3 }, g);
      }
    }
  }
  // coordinates
  const labels = fileLabels(notation);
  // Red's edge is at the bottom unless the board is flipped.
  const redY = flipped ? 18 : 633, blackY = flipped ? 633 : 18;
  for (let f = 0; f < 9; f++) {
    const [x] = xy({ f, r: 0 });
    if (!labels) {
      el('text', { x, y: 633, 'text-anchor': 'middle', class: 'b-coord', 'data-edge': 'file', 'data-file': f }, g).textContent = 'abcdefghi'[f];
    } else {
      el('text', { x, y: redY, 'text-anchor': 'middle', class: 'b-coord', 'data-edge': 'red', 'data-file': f }, g).textContent = labels.red[f];
      el('text', { x, y: blackY, 'text-anchor': 'middle', class: 'b-coord', 'data-edge': 'black', 'data-file': f }, g).textContent = labels.black[f];
    }
  }
  if (!labels) {
    for (let r = 0; r < 10; r++) {
      const [, y] = xy({ f: 0, r });
      el('text', { x: 18, y: y + 4, 'text-anchor': 'middle', class: 'b-coord', 'data-edge': 'rank', 'data-rank': r }, g).textContent = r;
    }
  }
}

// A piece drawn at (x, y) in piece set `set` (PIECE_SETS; a boolean `true` is 'letters').
export function pieceGroup(ch, x, y, parent, set) {
  const letters = set === true || set === 'letters';
  const red = ch === ch.toUpperCase();
  const side = red ? 'red' : 'black';
  const role = ch.toLowerCase();
  const g = el('g', { class: 'pc ' + side, transform: `translate(${x},${y})`, 'data-piece': ch }, parent);
  el('circle', { r: 27, class: 'pc-body' }, g);
  el('circle', { r: 22.5, class: 'pc-ring' }, g);
  const txt = el('text', { x: 0, y: letters ? 1 : 0, class: 'pc-text' + (letters ? ' letter' : '') }, g);
  txt.textContent = letters ? ROLE_EN[role] : (set === 'simplified' ? ROLE_ZH_SIMPLIFIED : ROLE_ZH)[side][role];
  return g;
}

// The board as drawn, as a PNG (twice the drawing's size): a copy of the SVG with the styles
// the page gives it (style.css, the themes) written on each element, without the points'
// click layer or the keyboard's cursor, painted on a canvas.
const PNG_STYLES = [
  'fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity',
  'font-family', 'font-size', 'font-weight', 'text-anchor', 'dominant-baseline', 'stop-color', 'stop-opacity',
  'paint-order',
];
export async function boardPng(svg) {
  const copy = svg.cloneNode(true);
  const from = [svg, ...svg.querySelectorAll('*')], to = [copy, ...copy.querySelectorAll('*')];
  from.forEach((e, i) => {
    const cs = getComputedStyle(e);
    to[i].setAttribute('style', PNG_STYLES.map((k) => `${k}:${cs.getPropertyValue(k)}`).join(';'));
  });
  for (const e of copy.querySelectorAll('#hit, [data-cursor]')) e.remove();
  const [w, h] = [580, 640];
  copy.setAttribute('width', w); copy.setAttribute('height', h);
  copy.setAttribute('xmlns', SVGNS);
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(copy)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise((ok, bad) => { img.onload = ok; img.onerror = () => bad(new Error('the board could not be drawn')); img.src = url; });
    const canvas = document.createElement('canvas');
    canvas.width = 2 * w; canvas.height = 2 * h;
    canvas.getContext('2d').drawImage(img, 0, 0, 2 * w, 2 * h);
    return await new Promise((ok) => canvas.toBlob(ok, 'image/png'));
  } finally { URL.revokeObjectURL(url); }
}

// Saves `blob` as a file named `name` (a download).
export function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// The FEN after the UCI move `uci` from `fen` (piece moved, side to move switched; the
// counters are not kept: only the board and the turn matter to the callers).
export function fenAfter(fen, uci) {
  const p = parseFen(fen);
  const from = uci.slice(0, 2), to = uci.slice(2, 4);
  const piece = p.board.get(from);
  if (piece) { p.board.delete(from); p.board.set(to, piece); }
  return boardToFen(p.board, p.turn === 'red' ? 'black' : 'red');
}
