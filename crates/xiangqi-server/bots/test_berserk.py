"""lichess's Bot API on our server, driven by berserk (PyPI, pinned in requirements.txt), a
client nobody here wrote: a bot account plays a whole game against a person's board-API
client, each through berserk pointed at our base URL.

Usage: python test_berserk.py SERVER_BINARY  (a debug or release `xiangqi` binary).
It starts `xiangqi serve` on a free port with a throw-away data folder, makes two accounts
and their personal API tokens over HTTP, and then everything goes through berserk:
the upgrade to a bot, the person's challenge (challenges.create), the bot's event stream
(bots.stream_incoming_events), its accept, both game streams and their moves, to the
bot's resignation; the person's event stream gets gameFinish.
"""

import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import berserk

LINE = ["h2e2", "h9g7", "h0g2", "i9h9", "b0c2", "b9c7", "i0h0", "c6c5"]


def http(base, path, body=None, headers=None):
    req = urllib.request.Request(base + path, method="POST" if body is not None else "GET")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    data = json.dumps(body).encode() if body is not None else None
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, data, timeout=10) as r:
        return json.loads(r.read()), r.headers


def account(base, name):
    v, h = http(base, "/api/account/register", {"username": name, "password": "correct horse"})
    cookie = h["Set-Cookie"].split(";")[0]
    t, _ = http(base, "/api/account/tokens", {"label": "berserk"},
                {"Cookie": cookie, "X-CSRF-Token": v["csrf"]})
    return t["token"]


def client(base, token):
    return berserk.Client(session=berserk.TokenSession(token), base_url=base)


def pump(it, q):
    try:
        for e in it:
            q.put(e)
    except Exception as e:  # the stream closed when the server stopped
        q.put(e)


def stream(it):
    q = queue.Queue()
    threading.Thread(target=pump, args=(it, q), daemon=True).start()
    return q


def until(q, pred, what):
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            e = q.get(timeout=deadline - time.time())
        except queue.Empty:
            break
        if isinstance(e, Exception):
            raise AssertionError(f"{what}: the stream failed: {e!r}")
        if pred(e):
            return e
    raise AssertionError(f"no {what} within 20 s")


def main():
    binary = sys.argv[1]
    data = tempfile.mkdtemp(prefix="xiangqi-berserk-")
    server = subprocess.Popen(
        [binary, "serve", "--port", "0", "--no-fallback", "--data", data],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = None
        for line in server.stdout:
            m = re.search(r"(http://[0-9.:a-z]+)", line)
            if m:
                base = m.group(1).rstrip("/")
                break
        assert base, "the server printed no URL"
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()

        bot_token = account(base, "BerserkBot")
        person_token = account(base, "Person")
        bot = client(base, bot_token)
        person = client(base, person_token)

        bot.account.upgrade_to_bot()
        me = bot.account.get()
        assert me.get("title") == "BOT", me

        bot_events = stream(bot.bots.stream_incoming_events())
        person_events = stream(person.board.stream_incoming_events())
        time.sleep(0.3)

        c = person.challenges.create("BerserkBot", rated=False, clock_limit=300,
                                     clock_increment=3, color="white")
        cid = c["id"] if "id" in c else c["challenge"]["id"]
        got = until(bot_events, lambda e: e.get("type") == "challenge", "challenge event")
        assert got["challenge"]["id"] == cid, got
        assert got["challenge"]["challenger"]["name"] == "Person", got
        bot.bots.accept_challenge(cid)
        start = until(bot_events, lambda e: e.get("type") == "gameStart", "gameStart")
        game_id = start["game"]["gameId"]
        assert start["game"]["color"] == "black", start
        until(person_events, lambda e: e.get("type") == "gameStart", "the person's gameStart")

        bot_game = stream(bot.bots.stream_game_state(game_id))
        person_game = stream(person.board.stream_game_state(game_id))
        full = until(bot_game, lambda e: e.get("type") == "gameFull", "the bot's gameFull")
        assert full["black"].get("title") == "BOT", full
        until(person_game, lambda e: e.get("type") == "gameFull", "the person's gameFull")

        for i, mv in enumerate(LINE):
            if i % 2 == 0:
                person.board.make_move(game_id, mv)
            else:
                bot.bots.make_move(game_id, mv)
            played = " ".join(LINE[: i + 1])
            watcher = bot_game if i % 2 == 0 else person_game
            until(watcher, lambda e: e.get("type") == "gameState" and e["moves"] == played,
                  f"the state after {mv}")
        bot.bots.post_message(game_id, "good game")
        bot.bots.resign_game(game_id)
        end = until(person_game, lambda e: e.get("type") == "gameState" and e["status"] != "started",
                    "the end")
        assert end["status"] == "resign" and end["winner"] == "red", end
        fin = until(person_events, lambda e: e.get("type") == "gameFinish", "gameFinish")
        assert fin["game"]["winner"] == "red", fin
        print(f"berserk {berserk.__version__ if hasattr(berserk, '__version__') else ''}: "
              f"a bot played {len(LINE)} moves against a person and resigned: ok")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
