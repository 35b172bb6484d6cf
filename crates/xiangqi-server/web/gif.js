// A game as an animated GIF (GIF89a, written here: one palette for the whole game, LZW by
// the format's rules, each frame only the rectangle that changed since the one before).
// The frames are the board as the page draws it (board.js), one a position.

import { drawPosition, rasterize, SVGNS } from '/board.js';

// The palette: the 255 most common colours of the sample (at 5 bits a channel), and each of
// the 32,768 5-bit colours mapped to its nearest palette entry. Index 255 is never used
// (kept free: a frame's unchanged pixels need no transparency since frames are rectangles).
function palette(samples) {
  const counts = new Uint32Array(32768);
  for (const d of samples) {
    for (let i = 0; i < d.length; i += 4) counts[((d[i] >> 3) << 10) | ((d[i + 1] >> 3) << 5) | (d[i + 2] >> 3)]++;
  }
  const used = [];
  for (let c = 0; c < 32768; c++) if (counts[c]) used.push(c);
  used.sort((a, b) => counts[b] - counts[a]);
  const chosen = used.slice(0, 255);
  const rgb = new Uint8Array(256 * 3);
  chosen.forEach((c, i) => {
    rgb[3 * i] = ((c >> 10) << 3) | 4; rgb[3 * i + 1] = (((c >> 5) & 31) << 3) | 4; rgb[3 * i + 2] = ((c & 31) << 3) | 4;
  });
  const map = new Uint8Array(32768);
  for (let c = 0; c < 32768; c++) {
    const r = (c >> 10) << 3, g = ((c >> 5) & 31) << 3, b = (c & 31) << 3;
    let best = 0, bestD = Infinity;
    for (let i = 0; i < chosen.length; i++) {
      const dr = rgb[3 * i] - r, dg = rgb[3 * i + 1] - g, db = rgb[3 * i + 2] - b;
      const dd = 2 * dr * dr + 4 * dg * dg + 3 * db * db;
      if (dd < bestD) { bestD = dd; best = i; }
    }
    map[c] = best;
  }
  return { rgb, map };
}

function indexed(d, map) {
  const out = new Uint8Array(d.length / 4);
  for (let i = 0, j = 0; i < d.length; i += 4, j++) out[j] = map[((d[i] >> 3) << 10) | ((d[i + 1] >> 3) << 5) | (d[i + 2] >> 3)];
  return out;
}

// A growable byte buffer.
class Bytes {
  constructor() { this.a = new Uint8Array(1 << 16); this.n = 0; }
  byte(b) { if (this.n === this.a.length) { const a = new Uint8Array(this.a.length * 2); a.set(this.a); this.a = a; } this.a[this.n++] = b; }
  word(w) { this.byte(w & 255); this.byte((w >> 8) & 255); }
  bytes(arr) { for (const b of arr) this.byte(b); }
  done() { return this.a.slice(0, this.n); }
}

// The LZW data of `pixels` (8-bit indices) in 255-byte sub-blocks, code size 8.
function lzw(pixels, out) {
  const MIN = 8, CLEAR = 1 << MIN, EOI = CLEAR + 1;
  const table = new Int32Array(4096 * 256);
  let block = [], acc = 0, nbits = 0, size, next;
  const flushBlock = () => { out.byte(block.length); out.bytes(block); block = []; };
  const emit = (code) => {
    acc |= code << nbits; nbits += size;
    while (nbits >= 8) { block.push(acc & 255); acc >>>= 8; nbits -= 8; if (block.length === 255) flushBlock(); }
  };
  const reset = () => { table.fill(-1); size = MIN + 1; next = EOI + 1; };
  out.byte(MIN);
  reset();
  emit(CLEAR);
  let prefix = pixels[0];
  for (let i = 1; i < pixels.length; i++) {
    const k = pixels[i];
    const key = (prefix << 8) | k;
    const code = table[key];
    if (code >= 0) { prefix = code; continue; }
    emit(prefix);
    if (next < 4096) {
      table[key] = next++;
      if (next > (1 << size) && size < 12) size++;
    } else {
      emit(CLEAR);
      reset();
    }
    prefix = k;
  }
  emit(prefix);
  emit(EOI);
  if (nbits > 0) block.push(acc & 255);
  if (block.length) flushBlock();
  out.byte(0);
}

// Frames of indexed pixels (w×h each) with their delays (hundredths of a second) as a GIF
// that loops for ever.
export function encodeGif(w, h, rgb, frames, delays) {
  const out = new Bytes();
  out.bytes([...'GIF89a'].map((c) => c.charCodeAt(0)));
  out.word(w); out.word(h);
  out.byte(0xf7); out.byte(0); out.byte(0); // a global table of 256 colours
  out.bytes(rgb);
  out.bytes([0x21, 0xff, 11, ...[...'NETSCAPE2.0'].map((c) => c.charCodeAt(0)), 3, 1, 0, 0, 0]);
  let prev = null;
  frames.forEach((px, n) => {
    // The rectangle that differs from the frame before (the whole first frame).
    let x0 = 0, y0 = 0, x1 = w - 1, y1 = h - 1;
    if (prev) {
      x0 = w; y0 = h; x1 = -1; y1 = -1;
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          if (px[y * w + x] !== prev[y * w + x]) { if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y; }
        }
      }
      if (x1 < 0) { x0 = 0; y0 = 0; x1 = 0; y1 = 0; } // the same picture: one pixel
    }
    const fw = x1 - x0 + 1, fh = y1 - y0 + 1;
    const sub = new Uint8Array(fw * fh);
    for (let y = 0; y < fh; y++) sub.set(px.subarray((y0 + y) * w + x0, (y0 + y) * w + x0 + fw), y * fw);
    // Graphic control: keep the frame under the next one (disposal 1), the delay.
    out.bytes([0x21, 0xf9, 4, 0x04]); out.word(delays[n]); out.byte(0); out.byte(0);
    out.byte(0x2c); out.word(x0); out.word(y0); out.word(fw); out.word(fh); out.byte(0);
    lzw(sub, out);
    prev = px;
  });
  out.byte(0x3b);
  return out.done();
}

// The game as a GIF: `positions` is [{ fen, last }] from the start; the board drawn as the
// page draws it (settings: flipped, notation, piece set, coordinates), at `scale` of its
// size. One second a move, three on the last position.
export async function gameGif(positions, opts = {}, scale = 0.75) {
  const host = document.createElement('div');
  host.style.cssText = 'position:fixed;left:-10000px;top:0;width:580px;height:640px;pointer-events:none';
  const svg = document.createElementNS(SVGNS, 'svg');
  host.append(svg);
  document.body.append(host);
  try {
    const pictures = [];
    let w = 0, h = 0;
    for (const p of positions) {
      drawPosition(svg, p.fen, { ...opts, last: p.last || null });
      const canvas = await rasterize(svg, scale);
      w = canvas.width; h = canvas.height;
      pictures.push(canvas.getContext('2d').getImageData(0, 0, w, h).data);
    }
    const pal = palette([pictures[0], pictures[pictures.length - 1]]);
    const frames = pictures.map((d) => indexed(d, pal.map));
    const delays = positions.map((_, i) => (i === positions.length - 1 ? 300 : 100));
    return new Blob([encodeGif(w, h, pal.rgb, frames, delays)], { type: 'image/gif' });
  } finally { host.remove(); }
}
