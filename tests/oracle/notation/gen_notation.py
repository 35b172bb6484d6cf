#!/usr/bin/env python3
"""Notation test vectors: for random Xiangqi positions and every legal move, the move in WXF
as Fairy-Stockfish writes it (pyffish.get_san(..., NOTATION_XIANGQI_WXF)) and in Chinese as the
Python `cchess` library writes it (cchess.Move.to_text()).

Output (one position per line, tab-separated):

    FEN <TAB> uci,wxf,chinese <TAB> uci,wxf,chinese ...

with moves in our a0..i9 coordinates (pyffish numbers ranks 1-10). A `?` stands for a text the
library failed to give (pyffish raised, cchess refused the move or raised); the Rust test counts
every `?` and fails above its stated rate, and this script prints the counts. The output depends
only on --seed and --positions (and the versions of pyffish and cchess, pinned by run.sh and
named in the header).

Positions (kinds):
  game     random games from the start position (capture bias and length drawn per game);
  stacks   random placements built to put like pieces on one file: two chariots, horses,
           cannons, advisors or elephants on a file, three to five soldiers on a file, and
           soldiers stacked on two files, for both sides, with other pieces around.
"""

import argparse
import importlib.metadata
import multiprocessing
import random
import re
import sys

import pyffish as sf
import cchess

VARIANT = "xiangqi"
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
MAX = {"k": 1, "a": 2, "b": 2, "n": 2, "r": 2, "c": 2, "p": 5}
_FSF = re.compile(r"^([a-i])(10|[1-9])([a-i])(10|[1-9])$")


def ours(m):
    g = _FSF.match(m)
    return f"{g[1]}{int(g[2]) - 1}{g[3]}{int(g[4]) - 1}"


def fsf(u):
    return f"{u[0]}{int(u[1]) + 1}{u[2]}{int(u[3]) + 1}"


def can_stand(p, f, r):
    red = p.isupper()
    rel = r if red else 9 - r
    k = p.lower()
    if k == "k":
        return 3 <= f <= 5 and rel <= 2
    if k == "a":
        return 3 <= f <= 5 and rel <= 2 and (f + rel) % 2 == 1
    if k == "b":
        return rel <= 4 and rel % 2 == 0 and (f + rel) % 4 == 2
    if k == "p":
        return rel >= 5 or (rel >= 3 and f % 2 == 0)
    return True


def to_fen(board, red):
    rows = []
    for r in range(9, -1, -1):
        s, e = "", 0
        for f in range(9):
            p = board.get((f, r))
            if p is None:
                e += 1
            else:
                if e:
                    s += str(e)
                    e = 0
                s += p
        if e:
            s += str(e)
        rows.append(s)
    return "/".join(rows) + (" w" if red else " b") + " - - 0 1"


def valid(board, red):
    """Legal under RULES.md 7: counts, points, generals not facing, side not to move not in check."""
    counts = {}
    for (f, r), p in board.items():
        if not can_stand(p, f, r):
            return False
        counts[p] = counts.get(p, 0) + 1
        if counts[p] > MAX[p.lower()]:
            return False
    if counts.get("K") != 1 or counts.get("k") != 1:
        return False
    K = next(s for s, p in board.items() if p == "K")
    k = next(s for s, p in board.items() if p == "k")
    if K[0] == k[0] and not any((K[0], r) in board for r in range(K[1] + 1, k[1])):
        return False
    # The side not to move must not be in check: ask pyffish with that side to move.
    return not sf.gives_check(VARIANT, to_fen(board, not red), [])


def place(rng, board, p, squares):
    free = [s for s in squares if s not in board and can_stand(p, *s)]
    if free:
        board[rng.choice(free)] = p
        return True
    return False


ALL = [(f, r) for f in range(9) for r in range(10)]


def stacks_position(rng):
    for _ in range(1000):
        board = {}
        place(rng, board, "K", ALL)
        place(rng, board, "k", ALL)
        for side in (str.upper, str.lower):
            kind = rng.choice(["pair", "soldiers", "two", "none", "pair"])
            if kind == "pair":
                p = side(rng.choice("rncab"))
                f = rng.randrange(9)
                col = [(f, r) for r in range(10)]
                place(rng, board, p, col)
                place(rng, board, p, col)
            elif kind in ("soldiers", "two"):
                p = side("p")
                f = rng.choice([0, 2, 4, 6, 8]) if rng.random() < 0.5 else rng.randrange(9)
                n = rng.randint(3, 5) if kind == "soldiers" else rng.randint(2, 3)
                col = [(f, r) for r in range(10)]
                for _ in range(n):
                    place(rng, board, p, col)
                if kind == "two":
                    g = rng.choice([x for x in range(9) if x != f])
                    col = [(g, r) for r in range(10)]
                    for _ in range(2):
                        place(rng, board, p, col)
            for _ in range(rng.randint(0, 5)):
                place(rng, board, side(rng.choice("rncabp")), ALL)
        # counts may exceed the maximum: drop the extras
        red = rng.random() < 0.5
        if valid(board, red):
            return to_fen(board, red)
    raise RuntimeError("no valid placement found")


def game_positions(rng, n):
    out = []
    while len(out) < n:
        fen = START
        bias = rng.random()
        for _ in range(rng.randint(1, 300)):
            legal = sf.legal_moves(VARIANT, fen, [])
            if not legal:
                break
            m = rng.choice(legal)
            if rng.random() < bias:
                # Prefer a capture: try a few moves for one.
                for c in rng.sample(legal, min(8, len(legal))):
                    if sf.is_capture(VARIANT, fen, [], c):
                        m = c
                        break
            fen = sf.get_fen(VARIANT, fen, [m])
            if rng.random() < 0.15:
                out.append(fen)
        out.append(fen)
    return out[:n]


def chinese(board, u):
    """cchess's text for the move `u` (ICCS, which is our coordinates), made through its public
    API: ChessBoard.move_iccs on a copy of the board (it plays the move on the board it is
    called on), which returns None for a move cchess's own rules refuse."""
    try:
        mv = board.copy().move_iccs(u)
        return "?" if mv is None else mv.to_text()
    except Exception:
        return "?"


def vectors(fen):
    board = cchess.ChessBoard(fen)
    line = [fen]
    for m in sorted(sf.legal_moves(VARIANT, fen, []), key=ours):
        u = ours(m)
        try:
            w = sf.get_san(VARIANT, fen, m, False, sf.NOTATION_XIANGQI_WXF)
        except Exception:
            w = "?"
        line.append(f"{u},{w},{chinese(board, u)}")
    return "\t".join(line)


def task(args):
    seed, kind, n = args
    rng = random.Random(seed)
    fens = game_positions(rng, n) if kind == "game" else [stacks_position(rng) for _ in range(n)]
    return [vectors(f) for f in fens]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--jobs", type=int, default=max(1, multiprocessing.cpu_count()))
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    tasks, left = [], a.positions
    while left > 0:
        n = min(100, left)
        kind = "game" if rng.random() < 0.5 else "stacks"
        tasks.append((rng.getrandbits(64), kind, n))
        left -= n
    v = lambda p: importlib.metadata.version(p)
    positions = moves = pf_missing = cc_missing = 0
    # Written as the tasks finish (in task order), so a long run that is stopped keeps what it made.
    with open(a.out, "w", encoding="utf-8") as f, multiprocessing.Pool(a.jobs) as pool:
        f.write(f"# Notation vectors: pyffish {v('pyffish')} WXF, cchess {v('cchess')} Chinese\n")
        f.write(f"# Made by tests/oracle/notation/gen_notation.py --seed {a.seed} --positions {a.positions}\n")
        f.write("# FEN <TAB> uci,pyffish-wxf,cchess-chinese ...\n")
        for chunk in pool.imap(task, tasks, chunksize=1):
            for l in chunk:
                f.write(l + "\n")
                positions += 1
                moves += l.count("\t")
                for cell in l.split("\t")[1:]:
                    _, w, c = cell.split(",")
                    pf_missing += w == "?"
                    cc_missing += c == "?"
            f.flush()
    print(
        f"gen_notation: {positions} positions, {moves} moves -> {a.out}; no text ('?'): "
        f"pyffish {pf_missing}, cchess {cc_missing}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
