#!/usr/bin/env python3
"""A quick sanity match: xiangqi-engine against Fairy-Stockfish (Debian's fairy-stockfish).

Not the real match runner: a handful of games at a fixed time per move, to see roughly where
the engine stands. The games are refereed by pyffish (Fairy-Stockfish's Python binding, run
beside the project only): legal moves, checkmate/stalemate, and its repetition rules.

Fairy-Stockfish numbers ranks 1-10; our engine 0-9. Moves are converted at the boundary.

usage: sanity_match.py ENGINE [--games N] [--movetime MS] [--fs-nodes N] [--maxplies N]
       [--our-option NAME=VALUE] [--opp-option NAME=VALUE] [--opponent-is-ours --fs OTHER]
       [--opening-plies N]
"""
import argparse
import random
import re
import subprocess
import sys

import pyffish

VARIANT = "xiangqi"
MOVE_RE = re.compile(r"^([a-i])(\d+)([a-i])(\d+)$")


def to_fs(m):
    f1, r1, f2, r2 = MOVE_RE.match(m).groups()
    return f"{f1}{int(r1) + 1}{f2}{int(r2) + 1}"


def from_fs(m):
    f1, r1, f2, r2 = MOVE_RE.match(m).groups()
    return f"{f1}{int(r1) - 1}{f2}{int(r2) - 1}"


class Uci:
    def __init__(self, cmd, options):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        for k, v in options.items():
            self.send(f"setoption name {k} value {v}")
        self.send("isready")
        self.wait("readyok")

    def send(self, s):
        self.p.stdin.write(s + "\n")
        self.p.stdin.flush()

    def wait(self, prefix):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            if line.startswith(prefix):
                return line.strip()

    def go(self, moves, go):
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send("go " + go)
        return self.wait("bestmove").split()[1]

    def close(self):
        self.send("quit")
        self.p.wait(timeout=10)


def random_opening(plies, seed):
    rng = random.Random(seed)
    fen = pyffish.start_fen(VARIANT)
    moves = []
    for _ in range(plies):
        legal = sorted(pyffish.legal_moves(VARIANT, fen, moves))
        moves.append(rng.choice(legal))
    return moves


def play(ours, fs, ours_red, our_go, fs_go, maxplies, fs_is_ours=False, opening=()):
    fen = pyffish.start_fen(VARIANT)
    moves_fs = list(opening)
    for ply in range(len(moves_fs), maxplies):
        legal = pyffish.legal_moves(VARIANT, fen, moves_fs)
        if not legal:
            r = pyffish.game_result(VARIANT, fen, moves_fs)
            return r, "no legal move", ply
        end, r = pyffish.is_optional_game_end(VARIANT, fen, moves_fs)
        if end:
            return r, "rule (repetition/move limit)", ply
        red_to_move = ply % 2 == 0
        if red_to_move == ours_red:
            m = ours.go([from_fs(x) for x in moves_fs], our_go)
            m = to_fs(m) if m != "(none)" else m
        else:
            if fs_is_ours:
                m = fs.go([from_fs(x) for x in moves_fs], fs_go)
                m = to_fs(m) if m != "(none)" else m
            else:
                m = fs.go(moves_fs, fs_go)
        if m not in legal:
            return (-32000 if red_to_move == ours_red else 32000) * (1 if ours_red else -1) * (1 if red_to_move else -1), f"illegal move {m}", ply
        moves_fs.append(m)
    return 0, "adjudicated draw at ply limit", maxplies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("engine")
    ap.add_argument("--fs", default="/usr/games/fairy-stockfish")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--fs-nodes", type=int, default=0, help="limit Fairy-Stockfish by nodes instead of time")
    ap.add_argument("--nodes", type=int, default=0, help="limit both sides by nodes (A/B tests)")
    ap.add_argument("--fs-skill", type=int, default=20)
    ap.add_argument("--maxplies", type=int, default=300)
    ap.add_argument("--our-option", action="append", default=[], help="NAME=VALUE")
    ap.add_argument("--opp-option", action="append", default=[], help="NAME=VALUE (opponent)")
    ap.add_argument("--opponent-is-ours", action="store_true",
                    help="the --fs program is another build of xiangqi-engine (A/B test)")
    ap.add_argument("--opening-plies", type=int, default=0,
                    help="start each pair of games from random legal moves (seeded by the pair)")
    a = ap.parse_args()
    our_opts = dict(o.split("=", 1) for o in a.our_option)
    ours = Uci([a.engine], our_opts)
    fs_opts = {} if a.opponent_is_ours else {"UCI_Variant": VARIANT, "Skill Level": a.fs_skill}
    fs_opts.update(dict(o.split("=", 1) for o in a.opp_option))
    fs = Uci([a.fs], fs_opts)
    fs_go = f"nodes {a.fs_nodes}" if a.fs_nodes else f"movetime {a.movetime}"
    our_go = f"movetime {a.movetime}"
    if a.nodes:
        fs_go = our_go = f"nodes {a.nodes}"
    w = d = l = 0
    for g in range(a.games):
        ours_red = g % 2 == 0
        fs.send("ucinewgame")
        ours.send("ucinewgame")
        opening = random_opening(a.opening_plies, g // 2)
        r, why, plies = play(ours, fs, ours_red, our_go, fs_go, a.maxplies, a.opponent_is_ours, opening)
        # pyffish results are from the side to move's view at the end; turn into Red's view.
        red_score = r if plies % 2 == 0 else -r
        ours_score = red_score if ours_red else -red_score
        res = "win" if ours_score > 0 else "loss" if ours_score < 0 else "draw"
        w, d, l = w + (res == "win"), d + (res == "draw"), l + (res == "loss")
        print(f"game {g + 1}: ours as {'red' if ours_red else 'black'}: {res} ({why}, {plies} plies)", flush=True)
    opp = "another xiangqi-engine" if a.opponent_is_ours else "fairy-stockfish"
    print(f"score: +{w} ={d} -{l} (ours {our_opts} vs {opp} {fs_opts}, {fs_go}, ours {our_go})")
    ours.close()
    fs.close()


if __name__ == "__main__":
    sys.exit(main())
