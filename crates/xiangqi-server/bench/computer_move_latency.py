#!/usr/bin/env python3
"""Latency of the computer move (POST /api/games/{id}/computer-move) against a running server.

usage: computer_move_latency.py URL LEVEL [MOVES] [GAMES]

For each of GAMES games (computer mode, the human plays Black so the computer moves first) it
asks for MOVES computer moves, answering each with the human's first legal move in sorted
order (deterministic), and prints every latency and the median, mean and max in ms.
"""
import json
import statistics
import sys
import time
import urllib.request


def call(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())


def main():
    base, level = sys.argv[1].rstrip("/"), int(sys.argv[2])
    moves = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    games = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    times = []
    for _ in range(games):
        g = call(f"{base}/api/games", {"mode": "computer", "human": "black", "level": level})
        gid = g["id"]
        for _ in range(moves):
            t = time.perf_counter()
            r = call(f"{base}/api/games/{gid}/computer-move", {})
            times.append((time.perf_counter() - t) * 1000)
            if r["outcome"] or not r["legal"]:
                break
            r = call(f"{base}/api/games/{gid}/moves", {"move": r["legal"][0]})
            if r["outcome"]:
                break
    print("level", level, "moves", len(times))
    print("each ms:", " ".join(f"{t:.0f}" for t in times))
    print(f"median {statistics.median(times):.1f} ms, mean {statistics.mean(times):.1f} ms, "
          f"max {max(times):.1f} ms")


if __name__ == "__main__":
    main()
