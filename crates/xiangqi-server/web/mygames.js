// "Your games": the ongoing games of this browser, its turn first, in the lobby dialog, and a
// badge on the Lobby button with how many are waiting for its move. Logged in: the account's
// games (GET /api/account/playing); always: the seats this browser holds (the live page keeps
// their links in localStorage), read from each game's public state (GET /api/board/game/{id}).
import { whoami } from '/account.js';
import { leftText, tcText } from '/online.js';

const $ = (id) => document.getElementById(id);
const KEY = 'xiangqi.seats';
const OVER = (status) => !['created', 'started'].includes(status);

function seats() {
  try { return JSON.parse(localStorage.getItem(KEY) || '{}'); } catch { return {}; }
}
function forget(id) {
  const s = seats();
  delete s[id];
  try { localStorage.setItem(KEY, JSON.stringify(s)); } catch { /* storage off */ }
}

// One browser-held seat's game as the list shows it, or null once it is over.
async function seatGame(id, seat) {
  const res = await fetch(`/api/board/game/${encodeURIComponent(id)}`, { cache: 'no-store' });
  if (res.status === 404) { forget(id); return null; }
  if (!res.ok) return null;
  const f = await res.json();
  const st = f.state;
  if (OVER(st.status)) { forget(id); return null; }
  const moves = st.moves ? st.moves.split(' ').length : 0;
  const first = f.initialFen.split(' ')[1] === 'b' ? 'black' : 'red';
  const turn = moves % 2 === 0 ? first : (first === 'red' ? 'black' : 'red');
  const color = seat.color;
  const other = color === 'red' ? 'black' : 'red';
  let ms = null;
  if (st.deadline) ms = turn === color ? st.deadline - Date.now() : f.daysPerTurn * 86400000;
  else if (st.rtime != null) ms = color === 'red' ? st.rtime : st.btime;
  return {
    id, url: `/live/${id}#seat=${seat.token}`, opponent: f[other].name, isMyTurn: turn === color,
    ms, days: f.daysPerTurn, limit: f.clock ? f.clock.initial / 1000 : null, increment: f.clock ? f.clock.increment / 1000 : 0,
  };
}

export function setupMyGames(ctx) {
  const { t } = ctx;
  let games = [];

  async function gather() {
    const held = seats();
    const out = new Map();
    if (await whoami()) {
      const res = await fetch('/api/account/playing', { cache: 'no-store' });
      if (res.ok) {
        for (const g of (await res.json()).nowPlaying) {
          const seat = held[g.gameId];
          out.set(g.gameId, {
            id: g.gameId, url: seat ? `/live/${g.gameId}#seat=${seat.token}` : `/live/${g.gameId}`,
            opponent: g.opponent.username, isMyTurn: g.isMyTurn,
            ms: g.secondsLeft == null ? null : g.secondsLeft * 1000, days: g.daysPerTurn,
          });
        }
      }
    }
    await Promise.all(Object.entries(held).map(async ([id, seat]) => {
      if (out.has(id) || !seat || !seat.color) return;
      try {
        const g = await seatGame(id, seat);
        if (g) out.set(id, g);
      } catch { /* unreachable now: shown next time */ }
    }));
    games = [...out.values()].sort((a, b) => (b.isMyTurn - a.isMyTurn) || ((a.ms ?? Infinity) - (b.ms ?? Infinity)));
    render();
  }

  function render() {
    const mine = games.filter((g) => g.isMyTurn).length;
    const badge = $('turn-badge');
    badge.textContent = mine ? String(mine) : '';
    badge.classList.toggle('hidden', !mine);
    badge.title = `${mine} ${t('yourTurnCount')}`;
    const body = $('my-games').tBodies[0];
    body.replaceChildren();
    if (!games.length) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.className = 'meta';
      td.textContent = t('noOngoingGames');
      tr.append(td);
      body.append(tr);
      return;
    }
    for (const g of games) {
      const tr = document.createElement('tr');
      tr.dataset.testid = 'my-game';
      tr.dataset.turn = g.isMyTurn ? 'mine' : 'theirs';
      const a = document.createElement('a');
      a.href = g.url;
      a.textContent = g.opponent;
      const cells = [a, g.isMyTurn ? t('yourTurn') : t('theirTurn'),
        g.days ? tcText(null, 0, t, g.days) : tcText(g.limit ?? null, g.increment, t),
        g.ms == null ? '' : t('timeLeft', { t: leftText(g.ms, t) })];
      for (const c of cells) {
        const td = document.createElement('td');
        td.append(c);
        tr.append(td);
      }
      body.append(tr);
    }
  }

  gather();
  setInterval(gather, 5000);
  return { refresh: gather, render };
}
