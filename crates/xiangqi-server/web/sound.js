// The game sounds, made with WebAudio on the spot (no sound files): a move, a capture, a
// check and the low-time warning. `play` does nothing while the sound setting is off.

let audio = null;
let isOn = () => true;

// `on` tells whether sounds are wanted (the app's setting, read at each sound).
export function soundSwitch(on) { isOn = on; }

function context() {
  if (!audio) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    audio = new Ctx();
  }
  if (audio.state === 'suspended') audio.resume().catch(() => {});
  return audio;
}

// One tone: frequency `f` Hz (gliding to `to`), `dur` seconds from `at` seconds on.
function tone(ac, f, dur, { type = 'sine', gain = 0.18, at = 0, to = null } = {}) {
  const t0 = ac.currentTime + at;
  const osc = ac.createOscillator();
  const g = ac.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(f, t0);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, t0 + dur);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.005);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(g).connect(ac.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

// A short burst of filtered noise: the wooden knock of a piece put down.
function knock(ac, { gain = 0.5, freq = 1400, dur = 0.07, at = 0 } = {}) {
  const t0 = ac.currentTime + at;
  const n = Math.ceil(ac.sampleRate * dur);
  const buf = ac.createBuffer(1, n, ac.sampleRate);
  const d = buf.getChannelData(0);
  for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / n, 4);
  const src = ac.createBufferSource();
  src.buffer = buf;
  const bp = ac.createBiquadFilter();
  bp.type = 'bandpass';
  bp.frequency.value = freq;
  bp.Q.value = 1.2;
  const g = ac.createGain();
  g.gain.value = gain;
  src.connect(bp).connect(g).connect(ac.destination);
  src.start(t0);
}

const SOUNDS = {
  move(ac) { knock(ac); tone(ac, 420, 0.06, { type: 'triangle', gain: 0.08 }); },
  capture(ac) { knock(ac, { gain: 0.7, freq: 900, dur: 0.1 }); knock(ac, { gain: 0.4, freq: 1800, at: 0.05 }); },
  check(ac) { knock(ac); tone(ac, 880, 0.12, { type: 'square', gain: 0.06, at: 0.02 }); tone(ac, 1175, 0.16, { type: 'square', gain: 0.06, at: 0.12 }); },
  lowTime(ac) { tone(ac, 660, 0.09, { gain: 0.15 }); tone(ac, 660, 0.09, { gain: 0.15, at: 0.16 }); },
};

// Plays sound `name` (move, capture, check, lowTime) unless sounds are off. Each sound played
// is noted in `window.xiangqiSounds` (the page's tests read it).
export function play(name) {
  if (!isOn() || !SOUNDS[name]) return;
  (window.xiangqiSounds ||= []).push(name);
  const ac = context();
  if (!ac) return;
  try { SOUNDS[name](ac); } catch { /* no audio output: nothing to do */ }
}
