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
// The piece sets of the settings: traditional characters, simplified ones, WXF letters, and
// Western symbols for beginners (a crown, a shield, an elephant, a knight, a tower, a cannon
// and a pawn, drawn here as paths: no font needed).
export const PIECE_SETS = ['chinese', 'simplified', 'letters', 'western'];
// The Western symbols, in a box of about ±15 around the piece's centre. Each is a list of
// [kind, attributes]: 'fill' shapes take the side's colour, 'cut' shapes the disc's.
const WESTERN = {
  // General: a crown of three points on a band.
  k: [['fill', { d: 'M-13,8 L-15,-9 L-7,-1 L0,-14 L7,-1 L15,-9 L13,8 Z' }], ['fill', { d: 'M-13,10.5 H13 V15 H-13 Z' }],
    ['cut', { d: 'M-2.4,1 a2.4,2.4 0 1,0 4.8,0 a2.4,2.4 0 1,0 -4.8,0 Z' }]],
  // Advisor: a shield crossed by its diagonal steps.
  a: [['fill', { d: 'M0,-15 L13,-9 C13,3 8,10 0,15 C-8,10 -13,3 -13,-9 Z' }],
    ['cutline', { d: 'M-6,-6 L6,6 M6,-6 L-6,6' }]],
  // Elephant: a head with two ears and a trunk.
  b: [['fill', { d: 'M-5,-11 C-14,-13 -17,-3 -14,3 C-12,7 -8,6 -6,4 Z M5,-11 C14,-13 17,-3 14,3 C12,7 8,6 6,4 Z' }],
    ['fill', { d: 'M0,-12 C6,-12 8,-6 7,0 C6,4 4,5 3,7 C2,10 3,13 6,13 L6,16 C0,16 -2,12 -3,8 C-6,5 -8,2 -7,-4 C-6,-9 -4,-12 0,-12 Z' }],
    ['cut', { d: 'M-4.6,-4 a1.6,1.6 0 1,0 3.2,0 a1.6,1.6 0 1,0 -3.2,0 Z M1.4,-4 a1.6,1.6 0 1,0 3.2,0 a1.6,1.6 0 1,0 -3.2,0 Z' }]],
  // Horse: a knight's head.
  n: [['fill', { d: 'M-9,15 L10,15 C11,6 10,-3 6,-8 C3,-12 -1,-13 -3,-13 L-4,-17 L-7,-12 C-10,-10 -12,-6 -13,-2 L-13,2 C-11,4 -8,4 -6,2 L-2,0 C-1,3 -4,6 -7,9 C-9,11 -9,13 -9,15 Z' }],
    ['cut', { d: 'M-3.5,-6.5 a1.6,1.6 0 1,0 3.2,0 a1.6,1.6 0 1,0 -3.2,0 Z' }]],
  // Chariot: a tower with battlements.
  r: [['fill', { d: 'M-11,15 H11 V11 H8 V-4 H11 V-14 H6 V-10 H2 V-14 H-2 V-10 H-6 V-14 H-11 V-4 H-8 V11 H-11 Z' }],
    ['cutline', { d: 'M-8,-4 H8' }]],
  // Cannon: a barrel on a wheel.
  c: [['fill', { d: 'M-15,-2 L8,-12 L11,-6 L-12,4 Z' }], ['fill', { d: 'M-6,8 a7,7 0 1,0 14,0 a7,7 0 1,0 -14,0 Z' }],
    ['cut', { d: 'M-1.2,8 a2.2,2.2 0 1,0 4.4,0 a2.2,2.2 0 1,0 -4.4,0 Z' }], ['fill', { d: 'M-14,13.5 H15 V16 H-14 Z' }]],
  // Soldier: a pawn.
  p: [['fill', { d: 'M-5,-9 a5,5 0 1,0 10,0 a5,5 0 1,0 -10,0 Z' }], ['fill', { d: 'M-4,-3 H4 L6,10 H-6 Z' }], ['fill', { d: 'M-10,10 H10 V15 H-10 Z' }]],
};

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

// Where the coordinates go (Settings): in the margin around the grid, small on the board
// beside the edge points (the margin shrinks and the board grows), or nowhere (likewise).
export const COORDS = ['outside', 'inside', 'none'];
// The part of the drawing shown: the whole of it, or without most of the outer margin.
export function viewBoxOf(coords) { return coords === 'inside' || coords === 'none' ? [18, 18, 544, 604] : [0, 0, 580, 640]; }

// The board: grid, palaces, river, point marks and the coordinates of `notation` (default
// ICCS) placed as `coords` says (COORDS; default outside). Sets the SVG's viewBox. Its colours
// come from style.css (the board theme).
export function drawGrid(svg, flipped, notation, coords = 'outside') {
  if (!COORDS.includes(coords)) coords = 'outside';
  const vb = viewBoxOf(coords);
  svg.setAttribute('viewBox', vb.join(' '));
  const xy = (sq) => xyOf(sq, flipped);
  const defs = el('defs', {}, svg);
  const wood = el('linearGradient', { id: 'wood', x1: 0, y1: 0, x2: 1, y2: 1 }, defs);
  el('stop', { offset: '0', class: 'board-a' }, wood);
  el('stop', { offset: '1', class: 'board-b' }, wood);
  const disc = el('radialGradient', { id: 'disc', cx: '.4', cy: '.35', r: '.75' }, defs);
  el('stop', { offset: '0', class: 'disc-a' }, disc);
  el('stop', { offset: '1', class: 'disc-b' }, disc);
  const glow = el('radialGradient', { id: 'checkglow' }, defs);
  el('stop', { offset: '.45', 'stop-color': 'rgba(213,94,0,.85)' }, glow);
  el('stop', { offset: '1', 'stop-color': 'rgba(213,94,0,0)' }, glow);
  const mk = el('marker', { id: 'ah', viewBox: '0 0 10 10', refX: '5', refY: '5', markerWidth: '3', markerHeight: '3', orient: 'auto-start-reverse' }, defs);
  el('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }, mk);

  el('rect', { x: vb[0], y: vb[1], width: vb[2], height: vb[3], rx: 10, class: 'b-bg' }, svg);
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
  if (coords === 'none') return;
  const labels = fileLabels(notation);
  // Inside: small, diagonally beside each edge point on the side away from the board, clear
  // of a piece standing there (a piece's disc has a radius of 27; the label's nearest corner
  // is about 29 away).
  const inside = coords === 'inside';
  const cls = 'b-coord' + (inside ? ' inside' : '');
  const at = (f, r, edge) => {
    const [x, y] = xy({ f, r });
    if (!inside) return edge === 'rank' ? [18, y + 4] : [x, edge === 'top' ? 18 : 633];
    if (edge === 'rank') return [x - 24, y + 29];
    return edge === 'top' ? [x + 24, y - 22] : [x + 24, y + 29];
  };
  // Red's edge is at the bottom unless the board is flipped.
  for (let f = 0; f < 9; f++) {
    if (!labels) {
      const [x, y] = at(f, flipped ? 9 : 0, 'bottom');
      el('text', { x, y, 'text-anchor': 'middle', class: cls, 'data-edge': 'file', 'data-file': f }, g).textContent = 'abcdefghi'[f];
    } else {
      const [xr, yr] = at(f, 0, flipped ? 'top' : 'bottom');
      el('text', { x: xr, y: yr, 'text-anchor': 'middle', class: cls, 'data-edge': 'red', 'data-file': f }, g).textContent = labels.red[f];
      const [xb, yb] = at(f, 9, flipped ? 'bottom' : 'top');
      el('text', { x: xb, y: yb, 'text-anchor': 'middle', class: cls, 'data-edge': 'black', 'data-file': f }, g).textContent = labels.black[f];
    }
  }
  if (!labels) {
    for (let r = 0; r < 10; r++) {
      const [x, y] = at(flipped ? 8 : 0, r, 'rank');
      el('text', { x, y, 'text-anchor': 'middle', class: cls, 'data-edge': 'rank', 'data-rank': r }, g).textContent = r;
    }
  }
}

// A piece drawn at (x, y) in piece set `set` (PIECE_SETS; a boolean `true` is 'letters').
// A Western symbol carries its WXF letter as its accessible name (`aria-label` is not read
// from inside the board's SVG, but tests and the PNG keep it).
export function pieceGroup(ch, x, y, parent, set) {
  const letters = set === true || set === 'letters';
  const red = ch === ch.toUpperCase();
  const side = red ? 'red' : 'black';
  const role = ch.toLowerCase();
  const g = el('g', { class: 'pc ' + side, transform: `translate(${x},${y})`, 'data-piece': ch }, parent);
  el('circle', { r: 27, class: 'pc-body' }, g);
  el('circle', { r: 22.5, class: 'pc-ring' }, g);
  if (set === 'western' && WESTERN[role]) {
    const sym = el('g', { class: 'pc-sym', 'data-symbol': ROLE_EN[role] }, g);
    for (const [kind, attrs] of WESTERN[role]) el('path', { ...attrs, class: 'pc-sym-' + kind }, sym);
    return g;
  }
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
  'paint-order', 'stroke-linecap',
];
export async function boardPng(svg) {
  const canvas = await rasterize(svg, 2);
  return await new Promise((ok) => canvas.toBlob(ok, 'image/png'));
}

// The board as drawn, on a canvas `scale` times the size of its viewBox (PNG and GIF): the
// styles the page gives each element are written on a copy, which the browser paints.
export async function rasterize(svg, scale) {
  const copy = svg.cloneNode(true);
  const from = [svg, ...svg.querySelectorAll('*')], to = [copy, ...copy.querySelectorAll('*')];
  from.forEach((e, i) => {
    const cs = getComputedStyle(e);
    to[i].setAttribute('style', PNG_STYLES.map((k) => `${k}:${cs.getPropertyValue(k)}`).join(';'));
  });
  for (const e of copy.querySelectorAll('#hit, [data-cursor]')) e.remove();
  const vb = (svg.getAttribute('viewBox') || '0 0 580 640').split(/[\s,]+/).map(Number);
  const [w, h] = [vb[2], vb[3]];
  copy.setAttribute('width', w); copy.setAttribute('height', h);
  copy.setAttribute('xmlns', SVGNS);
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(copy)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise((ok, bad) => { img.onload = ok; img.onerror = () => bad(new Error('the board could not be drawn')); img.src = url; });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(scale * w); canvas.height = Math.round(scale * h);
    canvas.getContext('2d').drawImage(img, 0, 0, canvas.width, canvas.height);
    return canvas;
  } finally { URL.revokeObjectURL(url); }
}

// The last move's points and the general in check are told apart by shape as well as by
// colour, so that they read for colour-blind players too (colours from Okabe and Ito's
// palette, which keeps blue and vermillion apart under every common colour-vision deficiency):
// the last move a filled square with a solid outline (blue), the check a glow with a dotted
// ring (vermillion); a premove is dashed (style.css).
export function markLast(hl, x, y) {
  el('rect', { x: x - 29, y: y - 29, width: 58, height: 58, rx: 8, class: 'hl-last' }, hl);
}

export function markCheck(hl, x, y) {
  el('circle', { cx: x, cy: y, r: 40, class: 'hl-check' }, hl);
  el('circle', { cx: x, cy: y, r: 33, class: 'hl-check-ring' }, hl);
}

// A position drawn on `svg` for a picture (the GIF's frames): the grid, the last move's two
// points marked, the pieces; no game state needed.
export function drawPosition(svg, fen, { last = null, flipped = false, notation = 'wxf', set = 'chinese', coords = 'outside' } = {}) {
  svg.textContent = '';
  drawGrid(svg, flipped, notation, coords);
  const hl = el('g', {}, svg);
  if (last) {
    for (const sq of [last.slice(0, 2), last.slice(2, 4)]) {
      const [x, y] = xyOf(sq, flipped);
      markLast(hl, x, y);
    }
  }
  const pieces = el('g', {}, svg);
  for (const [sq, ch] of parseFen(fen).board) {
    const [x, y] = xyOf(sq, flipped);
    pieceGroup(ch, x, y, pieces, set);
  }
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
