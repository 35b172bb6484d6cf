// What the board does when it comes to show the next move: the piece slides from its square
// (a short animation, none under prefers-reduced-motion or with the setting off, none for a
// piece dragged there) and the move, capture or check sound plays (sound.js; muted by the
// sound setting). app.js's render calls `moveShown` after each drawing; only a drawing that
// shows the move after the one shown before does anything.
import { play } from '/sound.js';
import { animating, settings, MOVE_SPEEDS } from '/settings.js';

// The slide's length at the normal speed (the setting makes it shorter or longer).
export const MOVE_MS = MOVE_SPEEDS.normal;
let last = null;
let dragged = null;
// The slide under way: a drawing of the same position while it runs (the live page draws
// again when the legal moves come) carries it on where it was, instead of cutting it short.
let sliding = null;

// The move `uci` was dropped on its square by a drag: it is not animated.
export function droppedMove(uci) { dragged = uci; }

// `shown`: { game, view, fenBefore, fen, move } for the drawing just made; `pieceAt(sq)` the
// drawn piece on a square, `xy(sq)` a square's point; `sound: false` when the caller plays
// the sounds itself (the live page).
export function moveShown(shown, pieceAt, xy, { sound = true } = {}) {
  const prev = last;
  last = shown;
  if (sliding && prev && prev.game === shown.game && prev.view === shown.view && prev.fen === shown.fen) {
    const gone = performance.now() - sliding.start;
    const g = pieceAt(sliding.to);
    if (gone < sliding.timing.duration && g && g.animate) g.animate(sliding.frames, { ...sliding.timing, delay: -gone });
    return;
  }
  sliding = null;
  if (!prev || prev.game !== shown.game || shown.view !== prev.view + 1 || !shown.move) return;
  if (prev.fen !== shown.fenBefore) return;
  const m = shown.move;
  if (sound) play(m.check ? 'check' : m.capture ? 'capture' : 'move');
  const wasDragged = dragged === m.uci;
  dragged = null;
  if (!animating() || wasDragged) return;
  const g = pieceAt(m.uci.slice(2, 4));
  if (!g || !g.animate) return;
  const [x1, y1] = xy(m.uci.slice(0, 2)), [x2, y2] = xy(m.uci.slice(2, 4));
  const frames = [{ transform: `translate(${x1}px, ${y1}px)` }, { transform: `translate(${x2}px, ${y2}px)` }];
  const timing = { duration: MOVE_SPEEDS[settings.moveSpeed] || MOVE_MS, easing: 'cubic-bezier(.3,.7,.4,1)' };
  g.animate(frames, timing);
  sliding = { to: m.uci.slice(2, 4), frames, timing, start: performance.now() };
  (window.xiangqiAnimated ||= []).push(m.uci);
}

// Forgets the drawing shown (a new page state: nothing to animate from).
export function resetShown() { last = null; }
