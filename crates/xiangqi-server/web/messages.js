// The server's messages as the app shows them: shortened (a 12,000-character move is not
// echoed whole), with control characters made visible, and in the UI's language. The server
// writes English; the other languages translate the messages they know by their shape below
// (catalogue ids err-*) and keep an unknown message's English (shortened all the same). Callers put the result in
// the page with textContent, never as HTML.
import { t, currentLang } from '/i18n.js';

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

// The server's messages the app knows, by their shape: [English pattern, catalogue id, how
// each group is passed (as $a1, $a2, ...): '.' as it is, 's' a side (side-red), 'p' a piece
// (piece-general), 'r' how a game ended (end-checkmate), 'm' a message translated again (a
// FEN's fault, a record's line)]. Tried in order; the first that fits is shown.
const PATTERNS = [
  [/^bad FEN '(.*)': (.*)$/s, 'err-bad-fen', '.m'],
  [/^empty FEN$/, 'err-empty-fen', ''],
  [/^FEN has (\d+) ranks \(expected 10\)$/, 'err-fen-ranks', '.'],
  [/^rank (\d+) has (\d+) files$/, 'err-rank-files', '..'],
  [/^unknown letter '(.*)' in rank (\d+)$/, 'err-unknown-letter', '..'],
  [/^side to move '(.*)' is not w, r or b$/, 'err-side-to-move', '.'],
  [/^field (\d+) is '(.*)' \(expected '-'\)$/, 'err-fen-field', '..'],
  [/^no-capture ply count '(.*)' is not a number$/, 'err-halfmove', '.'],
  [/^move number '(.*)' is not a number$/, 'err-move-number', '.'],
  [/^FEN has (\d+) fields \(at most 6\)$/, 'err-fen-fields', '.'],
  [/^(red|black) has no general$/i, 'err-no-general', 's'],
  [/^(red|black) general on (\w+) is outside its palace$/i, 'err-general-outside', 's.'],
  [/^(red|black) (\w+) on (\w+) can never stand there$/i, 'err-never-there', 'sp.'],
  [/^(red|black) has (\w+) (\w+) \(at most (\d+)\)$/i, 'err-too-many', 's.p.'],
  [/^the generals face each other on an open file \((\w+) and (\w+)\)$/, 'err-generals-face', '..'],
  [/^the side not to move is in check \((\w+) general attacked from (\w+)\)$/i, 'err-not-to-move-in-check', 's.'],
  [/^'(.*)' is not a (\w+) move: .*$/s, 'err-not-a-move', '.'],
  [/^'(.*)' is not a move: .*$/s, 'err-not-a-move', '.'],
  [/^illegal move (.*): the piece cannot move (that way|there)$/s, 'err-illegal-cannot', '.'],
  [/^illegal move (.*): no piece on the from-square$/s, 'err-illegal-empty', '.'],
  [/^illegal move (.*): the piece on the from-square is not the side to move's$/s, 'err-illegal-not-yours', '.'],
  [/^illegal move (.*): it would leave the general attacked or facing the other general$/s, 'err-illegal-self-check', '.'],
  [/^illegal move (.*): no such piece on that file$/s, 'err-illegal-no-piece-file', '.'],
  [/^illegal move (.*): no such piece among like pieces on one file$/s, 'err-illegal-no-like-piece', '.'],
  [/^illegal move (.*): no such soldier among those stacked on files$/s, 'err-illegal-no-soldier', '.'],
  [/^illegal move (.*): (.*)$/s, 'err-illegal', '.'],
  [/^ambiguous move (.*): it fits .*$/s, 'err-ambiguous', '.'],
  [/^the move is empty$/, 'err-empty-move', ''],
  [/^'(.*)' \((\d+) characters\) is too long to be a move$/s, 'err-too-long', '..'],
  [/^no game with id (\d+)$/, 'err-no-game', '.'],
  [/^the game is over \(\S+ (\S+)\)$/, 'err-game-over', 'r'],
  [/^the game has (\d+) moves, not (\d+): reload it$/, 'err-reload', '..'],
  [/^it is the computer's turn/, 'err-computer-turn', ''],
  [/^not a record format this program reads: it starts with "(.*)"$/s, 'err-not-record', '.'],
  [/^not a record format this program reads: it is binary data of no known record format \(it starts with the bytes (.*)\)$/, 'err-binary', '.'],
  [/^not a record format this program reads: the input is empty$/, 'err-input-empty', ''],
  [/^this looks like an XQF file whose header is damaged \(byte (\d+): /, 'err-looks-xqf-damaged', '.'],
  [/^this looks like an? [^.]*\.(ccm|chn) record damaged at move (\d+) \(byte (\d+): /, 'err-looks-move-damaged', '...'],
  [/^this looks like a CCBridge file \(\.cbr or \.cbl\) whose 16-byte signature is damaged \(byte (\d+): /, 'err-looks-cbr-damaged', '.'],
  [/^this looks like an? (ZIP|gzip|7-Zip|RAR)[- ](?:archive|compressed file), not a game record: unpack it/, 'err-looks-archive', '.'],
  [/^this looks like an? (PDF|Microsoft Office|PNG|JPEG|GIF) (?:document|image)(?: \(\.doc, \.xls\))?, not a game record/, 'err-looks-document', '.'],
  [/^this looks like an SGF \(Smart Game Format\) file/, 'err-looks-sgf', ''],
  [/^XQF at byte 2 \(0x2\): the header is damaged: version byte (\d+) is none XQStudio writes/, 'err-xqf-version', '.'],
  [/^nothing to import: the request body is empty$/, 'err-nothing-to-import', ''],
  [/^no game could be imported$/, 'err-none-imported', ''],
  [/^the file holds (\d+) games; import at most 500 at once$/, 'err-too-many-games', '.'],
  [/^PGN game (\d+), line (\d+): (.*)$/s, 'err-pgn-line', '..m'],
  [/^'(.*)' is not a move, result or annotation$/s, 'err-pgn-token', '.'],
  [/^move '(.*)' \(ply (\d+)\): (.*)$/s, 'err-move-ply', '..m'],
  [/^unreadable tag: (.*)$/s, 'err-bad-tag', '.'],
  [/^bad variation: (.*)$/s, 'err-bad-variation', '.'],
  [/^(Red|Black)'s move (\d+): (.*)$/s, 'err-side-move', 's.m'],
  [/^game (\d+): imported as far as (Red|Black)'s move (\d+): (.*); the (\d+) later plies of the record were left out$/s, 'err-imported-as-far', '.s.m.'],
  [/^the rules end the game after (Red|Black)'s move (\d+) \((\S+)\)$/, 'err-rules-end', 's.r'],
  [/^a game has at most (\d+) plies$/, 'err-max-plies', '.'],
  [/^Failed to fetch$|^NetworkError/, 'err-network', ''],
  // Accounts, seeks, challenges, chat and live games (the live game's own refusals).
  [/^this username is taken$/, 'err-name-taken', ''],
  [/^wrong username or password$/, 'err-wrong-login', ''],
  [/^too many log-in attempts from your address; try again in (\d+) s$/, 'err-login-attempts', '.'],
  [/^too many failed log-ins for this account; try again in (\d+) s$/, 'err-login-failures', '.'],
  [/^no such API token of this account$/, 'err-no-token', ''],
  [/^an account has at most (\d+) API tokens: revoke one first$/, 'err-too-many-tokens', '.'],
  [/^a password has at least (\d+) characters$/, 'err-password-short', '.'],
  [/^a password has at most (\d+) bytes$/, 'err-password-long', '.'],
  [/^the current password is wrong$/, 'err-current-password', ''],
  [/^a token's label has at most (\d+) characters$/, 'err-token-label', '.'],
  [/^this needs an account: log in/, 'err-needs-account', ''],
  [/^no player named '(.*)'$/, 'err-no-player-named', '.'],
  [/^you cannot block yourself$/, 'err-block-self', ''],
  [/^no such player$/, 'err-no-such-player', ''],
  [/^no speed '(.*)' \(/, 'err-no-speed', '.'],
  [/^a rated challenge needs an account: log in/, 'err-rated-challenge-account', ''],
  [/^a rated challenge names its opponent's account/, 'err-rated-challenge-opponent', ''],
  [/^you cannot challenge yourself$/, 'err-challenge-self', ''],
  [/^(.*) does not accept your challenges$/, 'err-refuses-challenges', '.'],
  [/^your games need an account: log in/, 'err-your-games-account', ''],
  [/^the game is over$/, 'err-live-over', ''],
  [/^it is not your turn$/, 'err-not-your-turn', ''],
  [/^the game can be aborted only before each side has moved$/, 'err-too-late-abort', ''],
  [/^there is no draw offer to answer$/, 'err-no-draw-offer', ''],
  [/^there is no takeback request to answer$/, 'err-no-takeback-request', ''],
  [/^there is no rematch request to answer$/, 'err-no-rematch-request', ''],
  [/^you have no move to take back$/, 'err-nothing-to-take-back', ''],
  [/^a rematch can be asked for when the game is over$/, 'err-rematch-not-over', ''],
  [/^a correspondence game cannot be claimed/, 'err-corr-claim', ''],
  [/^your opponent has not been gone long enough: wait (\d+) more seconds$/, 'err-opponent-not-gone', '.'],
  [/^no such live game$/, 'err-no-live-game', ''],
  [/^no such challenge \(or it was accepted, declined or cancelled\)$/, 'err-no-challenge', ''],
  [/^too many seeks open; try again later$/, 'err-seeks-full', ''],
  [/^too many live games open; try again later$/, 'err-games-full', ''],
  [/^too many challenges open; try again later$/, 'err-challenges-full', ''],
  [/^a rated seek can be taken only by an account: log in/, 'err-rated-seek-take', ''],
  [/^this is your own seek$/, 'err-own-seek', ''],
  [/^too many chat lines in a short time; wait (\d+) s$/, 'err-chat-too-fast', '.'],
  [/^a chat line is empty$/, 'err-chat-empty', ''],
  [/^a chat line is at most (\d+) characters \(this one has (\d+)\)$/, 'err-chat-long', '..'],
  [/^only the two players write in the players' chat$/, 'err-players-chat-only', ''],
  [/^writing in the spectators' chat needs an account: log in/, 'err-spectator-chat-account', ''],
  [/^a player writes in the players' chat while the game goes on$/, 'err-player-in-spectator-chat', ''],
  [/^a rated seek needs an account: log in/, 'err-rated-seek-account', ''],
  [/^the seek's creator has left$/, 'err-seek-creator-left', ''],
  [/^bad FEN: (.*)$/, 'err-bad-fen-short', 'm'],
  [/^the position is already decided$/, 'err-position-decided', ''],
];
// A piece's name in a message, singular or plural, as its catalogue id.
const PIECE = (w) => 'piece-' + String(w).toLowerCase().replace(/s$/, '');

// `msg` (the server's English) in the current language: a known message translated, an
// unknown one left in English.
function translate(msg) {
  for (const [re, id, kinds] of PATTERNS) {
    const m = re.exec(msg);
    if (!m) continue;
    const args = {};
    [...kinds].forEach((k, i) => {
      const g = m[i + 1] ?? '';
      args['a' + (i + 1)] = k === 's' ? t('side-' + g.toLowerCase()) : k === 'p' ? t(PIECE(g))
        : k === 'r' ? t('end-' + g) : k === 'm' ? translate(g) : g;
    });
    return t(id, args);
  }
  return msg;
}

// A message of the server (or the network) for the page, in the page's language (English as
// the server wrote it).
export function messageText(msg) {
  const s = String(msg ?? '');
  return cleanText(currentLang() === 'en' ? s : translate(s));
}
