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
