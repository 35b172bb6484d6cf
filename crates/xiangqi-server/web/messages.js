// The server's messages as the app shows them: shortened (a 12,000-character move is not
// echoed whole), with control characters made visible, and in the UI's language. The server
// writes English; the Chinese UI translates the messages it knows by their shape below and
// keeps an unknown message's English (shortened all the same). Callers put the result in
// the page with textContent, never as HTML.

// Control characters as \xNN; line breaks and tabs as spaces; a quoted span of more than
// 32 characters cut to its first 24; the whole at most `max` characters.
export function cleanText(text, max = 240) {
  let s = String(text ?? '');
  s = s.replace(/[\t\n\r]+/g, ' ');
  s = s.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, (c) => (c === '\ufffd' ? '\\ufffd' : '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0')));
  // (An opening quote follows a space, a bracket or the start; "Red's" holds no quote.)
  s = s.replace(/(^|[\s(:（])(['"“])([^'"”]{33,}?)(['"”])(?=$|[\s),.:;）：，])/gu, (m, pre, a, inner, b) => `${pre}${a}${[...inner].slice(0, 24).join('')}…${b}`);
  const chars = [...s];
  if (chars.length > max) s = chars.slice(0, max).join('') + '…';
  return s;
}

const SIDE_ZH = { red: '红方', black: '黑方', Red: '红方', Black: '黑方' };
const PIECE_ZH = {
  general: '将帅', advisor: '士仕', elephant: '象相', horse: '马', chariot: '车', cannon: '炮', soldier: '兵卒',
  generals: '将帅', advisors: '士仕', elephants: '象相', horses: '马', chariots: '车', cannons: '炮', soldiers: '兵卒',
};
const REASON_ZH = {
  checkmate: '将死', stalemate: '困毙', 'perpetual-check': '长将', 'perpetual-chase': '长捉', repetition: '重复局面',
  'move-limit': '自然限着', 'insufficient-material': '双方无进攻子力', resignation: '认输', agreement: '协议和棋', time: '超时',
};
const side = (w) => SIDE_ZH[w] || w;

// [English pattern, Chinese text (a string with $1.. or a function of the match)], tried in
// order; the details of a frame (a FEN's fault, a record's line) are translated again.
const ZH = [
  [/^bad FEN '(.*)': (.*)$/s, (m) => `FEN 有误（'${m[1]}'）：${zh(m[2])}`],
  [/^empty FEN$/, 'FEN 为空'],
  [/^FEN has (\d+) ranks \(expected 10\)$/, 'FEN 有 $1 行（应为 10 行）'],
  [/^rank (\d+) has (\d+) files$/, '第 $1 行有 $2 列（应为 9 列）'],
  [/^unknown letter '(.*)' in rank (\d+)$/, '第 $2 行有不认识的字母“$1”'],
  [/^side to move '(.*)' is not w, r or b$/, '走子方“$1”不是 w、r 或 b'],
  [/^field (\d+) is '(.*)' \(expected '-'\)$/, '第 $1 个字段是“$2”（应为“-”）'],
  [/^no-capture ply count '(.*)' is not a number$/, '未吃子步数“$1”不是数字'],
  [/^move number '(.*)' is not a number$/, '回合数“$1”不是数字'],
  [/^FEN has (\d+) fields \(at most 6\)$/, 'FEN 有 $1 个字段（最多 6 个）'],
  [/^(red|black) has no general$/i, (m) => `${side(m[1])}没有将帅`],
  [/^(red|black) general on (\w+) is outside its palace$/i, (m) => `${side(m[1])}的将帅在 ${m[2]}，不在九宫内`],
  [/^(red|black) (\w+) on (\w+) can never stand there$/i, (m) => `${side(m[1])}的${PIECE_ZH[m[2]] || m[2]}不可能在 ${m[3]}`],
  [/^(red|black) has (\w+) (\w+) \(at most (\d+)\)$/i, (m) => `${side(m[1])}的${PIECE_ZH[m[3]] || m[3]}太多（最多 ${m[4]} 个）`],
  [/^the generals face each other on an open file \((\w+) and (\w+)\)$/, '将帅照面（$1 与 $2）'],
  [/^the side not to move is in check \((\w+) general attacked from (\w+)\)$/i, (m) => `不走棋的一方正被将军（${side(m[1])}的将帅受 ${m[2]} 攻击）`],
  [/^'(.*)' is not a (\w+) move: .*$/s, '“$1”不是着法'],
  [/^'(.*)' is not a move: .*$/s, '“$1”不是着法'],
  [/^illegal move (.*): the piece cannot move (that way|there)$/s, '着法 $1 不合规则：棋子不能这样走'],
  [/^illegal move (.*): no piece on the from-square$/s, '着法 $1 不合规则：起点没有棋子'],
  [/^illegal move (.*): the piece on the from-square is not the side to move's$/s, '着法 $1 不合规则：起点的棋子不是走棋一方的'],
  [/^illegal move (.*): it would leave the general attacked or facing the other general$/s, '着法 $1 不合规则：走后己方将帅被将军或与对方将帅照面'],
  [/^illegal move (.*): no such piece on that file$/s, '着法 $1 不合规则：那一路上没有这样的棋子'],
  [/^illegal move (.*): no such piece among like pieces on one file$/s, '着法 $1 不合规则：同一路上没有这样的棋子'],
  [/^illegal move (.*): no such soldier among those stacked on files$/s, '着法 $1 不合规则：没有这样的兵（卒）'],
  [/^illegal move (.*): (.*)$/s, '着法 $1 不合规则'],
  [/^ambiguous move (.*): it fits .*$/s, '着法 $1 有歧义：不止一个棋子能这样走'],
  [/^the move is empty$/, '着法为空'],
  [/^'(.*)' \((\d+) characters\) is too long to be a move$/s, '“$1”（$2 个字符）太长，不是着法'],
  [/^no game with id (\d+)$/, '没有第 $1 号棋局'],
  [/^the game is over \(\S+ (\S+)\)$/, (m) => `对局已结束（${REASON_ZH[m[1]] || m[1]}）`],
  [/^the game has (\d+) moves, not (\d+): reload it$/, '棋局已有变化，请重新载入'],
  [/^it is the computer's turn/, '现在轮到电脑走棋'],
  [/^not a record format this program reads: it starts with "(.*)"$/s, '不是本程序能读的棋谱格式：开头是“$1”'],
  [/^not a record format this program reads: it is binary data of no known record format \(it starts with the bytes (.*)\)$/, '不是本程序能读的棋谱格式：这是未知格式的二进制数据（开头字节 $1）'],
  [/^not a record format this program reads: the input is empty$/, '没有内容可读'],
  [/^nothing to import: the request body is empty$/, '没有可导入的内容'],
  [/^no game could be imported$/, '没有能导入的棋局'],
  [/^the file holds (\d+) games; import at most 500 at once$/, '文件中有 $1 盘棋，一次最多导入 500 盘'],
  [/^PGN game (\d+), line (\d+): (.*)$/s, (m) => `PGN 第 ${m[1]} 局第 ${m[2]} 行：${zh(m[3])}`],
  [/^'(.*)' is not a move, result or annotation$/s, '“$1”不是着法、结果或注释'],
  [/^move '(.*)' \(ply (\d+)\): (.*)$/s, (m) => `第 ${m[2]} 步“${m[1]}”：${zh(m[3])}`],
  [/^unreadable tag: (.*)$/s, '无法读取的标签：$1'],
  [/^bad variation: (.*)$/s, '变着有误：$1'],
  [/^(Red|Black)'s move (\d+): (.*)$/s, (m) => `第 ${m[2]} 回合${side(m[1])}：${zh(m[3])}`],
  [/^game (\d+): imported as far as (Red|Black)'s move (\d+): (.*); the (\d+) later plies of the record were left out$/s,
    (m) => `第 ${m[1]} 局只导入到第 ${m[3]} 回合${side(m[2])}：${zh(m[4])}；棋谱其后的 ${m[5]} 步未导入`],
  [/^the rules end the game after (Red|Black)'s move (\d+) \((\S+)\)$/, (m) => `对局按规则在第 ${m[2]} 回合${side(m[1])}走后结束（${REASON_ZH[m[3]] || m[3]}）`],
  [/^a game has at most (\d+) plies$/, '一盘棋最多 $1 步'],
  [/^Failed to fetch$|^NetworkError/, '无法连接服务器'],
];

function zh(msg) {
  for (const [re, out] of ZH) {
    const m = re.exec(msg);
    if (!m) continue;
    return typeof out === 'function' ? out(m) : msg.replace(re, out);
  }
  return msg;
}

// A message of the server (or the network) for the page, in `lang` ('en' or 'zh').
export function messageText(msg, lang) {
  const s = String(msg ?? '');
  return cleanText(lang === 'zh' ? zh(s) : s);
}
