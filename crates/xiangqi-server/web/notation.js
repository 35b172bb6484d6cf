// Writing a move in the notations players read: ICCS (H2-E2), WXF (C2.5) and Chinese
// (炮二平五), as the rules core writes them (docs/NOTATION.md: files counted from the mover's
// right, front/rear markers for like pieces on one file, advisors and elephants by file, soldiers
// stacked on two files by an ordinal across them).
// The live game page uses it: its stream gives the moves in UCI only.
import { parseFen, sqName, sqParse } from '/board.js';

const WXF_LETTER = { k: 'K', a: 'A', b: 'E', n: 'H', r: 'R', c: 'C', p: 'P' };
const ZH_PIECE = {
  red: { k: '帅', a: '仕', b: '相', n: '马', r: '车', c: '炮', p: '兵' },
  black: { k: '将', a: '士', b: '象', n: '马', r: '车', c: '炮', p: '卒' },
};
const ZH_NUM = ['', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

// The move `uci` from the position `fen` as { iccs, wxf, chinese }.
export function moveNames(fen, uci) {
  const iccs = uci.slice(0, 2).toUpperCase() + '-' + uci.slice(2, 4).toUpperCase();
  const { board } = parseFen(fen);
  const ch = board.get(uci.slice(0, 2));
  if (!ch) return { iccs, wxf: iccs, chinese: iccs };
  const from = sqParse(uci.slice(0, 2)), to = sqParse(uci.slice(2, 4));
  const side = ch === ch.toUpperCase() ? 'red' : 'black';
  const role = ch.toLowerCase();
  const fileNo = (f) => (side === 'red' ? 9 - f : f + 1);
  const zn = (k) => (side === 'red' ? ZH_NUM[k] : String(k));
  const fwd = side === 'red' ? to.r - from.r : from.r - to.r;
  const op = fwd > 0 ? '+' : fwd < 0 ? '-' : '.';
  const zop = fwd > 0 ? '进' : fwd < 0 ? '退' : '平';
  const num = 'abn'.includes(role) || fwd === 0 ? fileNo(to.f) : Math.abs(fwd);
  // The like pieces on a file, the front one (nearest the opponent) first.
  const stackOn = (f) => {
    const ranks = [];
    for (let r = 0; r < 10; r++) if (board.get(sqName(f, r)) === ch) ranks.push(r);
    return side === 'red' ? ranks.reverse() : ranks;
  };
  const stack = stackOn(from.f);
  const n = stack.length, i = stack.indexOf(from.r);
  const P = WXF_LETTER[role], Z = ZH_PIECE[side][role], file = fileNo(from.f);
  let head, zhead;
  const stackedFiles = role === 'p' ? [0, 1, 2, 3, 4, 5, 6, 7, 8].filter((f) => stackOn(f).length >= 2).length : 0;
  if (n === 1 || role === 'a' || role === 'b') {
    // Alone on its file; two advisors or elephants on a file are told apart by the move.
    head = P + file; zhead = Z + zn(file);
  } else if (stackedFiles >= 2) {
    // Soldiers stacked on two files: WXF file then position; Chinese an ordinal across the
    // stacked files, from the mover's right, each file front first (一兵, 二兵, ...).
    head = file + (n === 2 ? ['+', '-'][i] : ['+', String(file), '-'][i]);
    const files = [0, 1, 2, 3, 4, 5, 6, 7, 8].filter((f) => stackOn(f).length >= 2)
      .sort((a, b) => fileNo(a) - fileNo(b));
    const across = files.flatMap((f) => stackOn(f).map((r) => sqName(f, r)));
    zhead = ZH_NUM[across.indexOf(uci.slice(0, 2)) + 1] + Z;
  } else if (n === 2) {
    head = P + ['+', '-'][i]; zhead = ['前', '后'][i] + Z;
  } else if (n === 3) {
    head = ['P+', P + file, 'P-'][i]; zhead = ['前', '中', '后'][i] + Z;
  } else {
    head = (n === 4 ? ['++', 'P+', 'P-', '--'] : ['++', 'P+', P + file, 'P-', '--'])[i];
    zhead = ZH_NUM[i + 1] + Z;
  }
  return { iccs, wxf: head + op + num, chinese: zhead + zop + zn(num) };
}

// Chinese notation in Traditional characters, as Taiwanese and Hong Kong sites print it: Red's
// 帥 俥 傌 炮, Black's 將 車 馬 砲, 進 and 後 (炮二平五, 傌八進七; 砲8平5, 馬2進3). Black's moves
// are the ones written with Arabic numerals.
const HANT = {
  red: { 帅: '帥', 车: '俥', 马: '傌', 进: '進', 后: '後' },
  black: { 将: '將', 车: '車', 马: '馬', 炮: '砲', 进: '進', 后: '後' },
};
export function chineseHant(s) {
  const map = HANT[/[1-9]/.test(s) ? 'black' : 'red'];
  return [...String(s)].map((c) => map[c] || c).join('');
}

// WXF as Vietnamese players write moves: the piece's initial (Tg Tướng, S Sĩ, T Tượng, X Xe,
// P Pháo, M Mã, B Binh/Tốt), the file, then '.' forward (tiến), '/' back (thoái) or '-'
// sideways (bình); t/s (trước/sau) for the front and rear of two like pieces on a file:
// C2.5 -> P2-5, H8+7 -> M8.7, R9-1 -> X9/1, C+.5 -> Pt-5.
const VI_PIECE = { K: 'Tg', A: 'S', E: 'T', B: 'T', H: 'M', N: 'M', R: 'X', C: 'P', P: 'B' };
const VI_OP = { '+': '.', '-': '/', '.': '-', '=': '-' };
export function wxfVi(s) {
  const m = /^(.*)([+\-.=])(\d)$/.exec(String(s));
  if (!m) return s;
  const head = [...m[1]].map((c, i) => (VI_PIECE[c] && !(i > 0 && c === 'P' && /[+-]/.test(m[1][0])) ? VI_PIECE[c]
    : c === '+' ? 't' : c === '-' ? 's' : c)).join('');
  return head + VI_OP[m[2]] + m[3];
}

// A move as the settings show it: `names` holds { iccs, wxf, chinese } (and maybe uci);
// `notation` is 'iccs', 'wxf', 'chinese' or 'vi'; Chinese is in Traditional characters for
// zh-Hant.
export function shownMove(names, notation, lang) {
  if (!names) return '?';
  if (notation === 'vi') return names.wxf ? wxfVi(names.wxf) : names.iccs || names.uci;
  if (notation === 'chinese' && names.chinese) return lang === 'zh-Hant' ? chineseHant(names.chinese) : names.chinese;
  return names[notation] || names.iccs || names.uci;
}
