"""Speed of the xiangqi package against pyffish (Fairy-Stockfish) and cchess, in one run.

    python crates/xiangqi-py/bench/bench.py [--positions 100000] [--games 10000]
        [--pyffish-positions 5000] [--pyffish-games 50] [--cchess-positions 2000]
        [--cchess-games 20] [--seed 1] [--records DIR]

Three tasks, each timed in CPU time of this process (time.process_time: the machine may be
shared; nothing here runs on other threads) over the same inputs for every library:

1. legal moves of N positions (FENs from random games): from the FEN to the list of moves.
   xiangqi: Board(fen).legal_moves as Move objects, and as UCI strings (.uci()); pyffish:
   legal_moves("xiangqi", fen, []) (strings); cchess: ChessBoard(fen) and its moves filtered
   to the legal ones (as its own no_moves() does), as (from, to) tuples.
2. playing out G random games from the start: at each ply the legal moves, a random one
   played; a game ends when the side to move has none or after 200 plies (xiangqi also
   judges every position: outcome() with the default rules, ending the game by them).
   pyffish keeps the FEN (get_fen after each move).
3. reading the public PGN files of the record set (records/pgn-*/): xiangqi.read_games on
   each file; cchess.read_from_pgn (one game per file; files it raises on are counted).
   pyffish has no record reader.

pyffish and cchess are slow from Python (pyffish sets up its position from the FEN on every
call): they run only the first positions and games of tasks 1 and 2 (--pyffish-positions,
... --cchess-games), the same inputs, and their time is scaled to the whole by item count.
Reading: cchess reads one game per file and raises on most of the files (several games, WXF
or Chinese moves): it is compared per game on the files it reads. Not a test: nothing is asserted
but that the libraries agree on the number of legal moves.
"""

import argparse
import os
import pathlib
import random
import sys
import time

import xiangqi

try:
    import pyffish as sf
except ImportError:  # pragma: no cover
    sf = None
try:
    import cchess
except ImportError:  # pragma: no cover
    cchess = None

VARIANT = "xiangqi"
REPO = pathlib.Path(__file__).resolve().parents[3]


def positions(n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        b = xiangqi.Board()
        for _ in range(rng.randrange(20, 200)):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
            out.append(b.fen())
    return out[:n]


def timed(fn, *args):
    t = time.process_time()
    r = fn(*args)
    return time.process_time() - t, r


def legal_xiangqi_moves(fens):
    total = 0
    Board = xiangqi.Board
    for f in fens:
        total += len(list(Board(f).legal_moves))
    return total


def legal_xiangqi_uci(fens):
    total = 0
    Board = xiangqi.Board
    for f in fens:
        total += len(Board(f).legal_moves.uci())
    return total


def legal_pyffish(fens):
    total = 0
    lm = sf.legal_moves
    for f in fens:
        total += len(lm(VARIANT, f, []))
    return total


def cchess_legal(board):
    return [m for m in board.create_moves() if board.is_valid_move_t(m) and not board.is_checked_move(*m)]


def legal_cchess(fens):
    total = 0
    for f in fens:
        total += len(cchess_legal(cchess.ChessBoard(f)))
    return total


def games_xiangqi(n, seed):
    rng = random.Random(seed)
    plies = 0
    for _ in range(n):
        b = xiangqi.Board()
        for _ in range(200):
            moves = list(b.legal_moves)
            if not moves or b.outcome() is not None:
                break
            b.push(rng.choice(moves))
            plies += 1
    return plies


def games_pyffish(n, seed):
    rng = random.Random(seed)
    plies = 0
    start = sf.start_fen(VARIANT)
    for _ in range(n):
        fen = start
        for _ in range(200):
            moves = sf.legal_moves(VARIANT, fen, [])
            if not moves:
                break
            fen = sf.get_fen(VARIANT, fen, [rng.choice(moves)])
            plies += 1
    return plies


def games_cchess(n, seed):
    rng = random.Random(seed)
    plies = 0
    for _ in range(n):
        b = cchess.ChessBoard(cchess.FULL_INIT_FEN)
        for _ in range(200):
            moves = cchess_legal(b)
            if not moves:
                break
            b.move(*rng.choice(moves))
            b.next_turn()
            plies += 1
    return plies


def read_xiangqi(files):
    games = 0
    for f in files:
        games += len(xiangqi.read_games(f, errors="skip"))
    return games


def read_cchess(files):
    """The files cchess reads without raising."""
    ok = []
    for f in files:
        try:
            cchess.read_from_pgn(str(f))
            ok.append(f)
        except Exception:
            pass
    return ok


def row(task, lib, n, secs, base=None, note=""):
    per = secs / n * 1e6 if n else float("nan")
    ratio = f"{secs / base:8.1f}x" if base else "       -"
    print(f"{task:<14} {lib:<22} {n:>8} {secs:>9.3f} s {per:>10.2f} us {ratio}  {note}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=100_000)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--pyffish-positions", type=int, default=5000)
    ap.add_argument("--pyffish-games", type=int, default=50)
    ap.add_argument("--cchess-positions", type=int, default=2000)
    ap.add_argument("--cchess-games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    shared = pathlib.Path(os.environ.get("XIANGQI_SHARED", REPO / ".." / "shared"))
    ap.add_argument("--records", type=pathlib.Path, default=shared / "data" / "records")
    a = ap.parse_args()

    print(f"python {sys.version.split()[0]}, xiangqi {xiangqi.__version__}", end="")
    if sf:
        print(f", pyffish {sf.version()}", end="")
    print(f", cchess {'yes' if cchess else 'missing'}")
    print(f"{'task':<14} {'library':<22} {'items':>8} {'time':>11} {'per item':>13} {'vs xiangqi':>9}")
    fens = positions(a.positions, a.seed)
    ncc = max(1, min(len(fens), a.cchess_positions))
    nsf = max(1, min(len(fens), a.pyffish_positions))

    t_x, n_x = timed(legal_xiangqi_moves, fens)
    t_xu, n_xu = timed(legal_xiangqi_uci, fens)
    row("legal moves", "xiangqi (Move objects)", len(fens), t_x)
    row("legal moves", "xiangqi (.uci() str)", len(fens), t_xu, t_x)
    assert n_x == n_xu
    if sf:
        t_s, n_s = timed(legal_pyffish, fens[:nsf])
        n_xs = legal_xiangqi_moves(fens[:nsf])
        row("legal moves", "pyffish (scaled)", len(fens), t_s * len(fens) / nsf, t_x,
            f"(ran {nsf}: {t_s:.2f} s; {n_s} moves, xiangqi {n_xs})")
    if cchess:
        t_c, n_c = timed(legal_cchess, fens[:ncc])
        n_xc = legal_xiangqi_moves(fens[:ncc])
        scaled = t_c * len(fens) / ncc
        row("legal moves", "cchess (scaled)", len(fens), scaled, t_x,
            f"(ran {ncc}: {t_c:.2f} s; {n_c} moves, xiangqi {n_xc})")

    t_g, p_g = timed(games_xiangqi, a.games, a.seed)
    row("random games", "xiangqi", a.games, t_g, None, f"({p_g} plies)")
    if sf:
        gsf = max(1, min(a.games, a.pyffish_games))
        t_gs, p_gs = timed(games_pyffish, gsf, a.seed)
        row("random games", "pyffish (scaled)", a.games, t_gs * a.games / gsf, t_g,
            f"(ran {gsf}: {t_gs:.2f} s, {p_gs} plies)")
    if cchess:
        gcc = max(1, min(a.games, a.cchess_games))
        t_gc, p_gc = timed(games_cchess, gcc, a.seed)
        row("random games", "cchess (scaled)", a.games, t_gc * a.games / gcc, t_g,
            f"(ran {gcc}: {t_gc:.2f} s, {p_gc} plies)")

    files = sorted(p for d in ("pgn-chinese", "pgn-iccs", "pgn-wxf") for p in (a.records / d).glob("*.pgn"))
    if files:
        t_r, games = timed(read_xiangqi, files)
        row("read PGN", "xiangqi", len(files), t_r, None, f"({games} games)")
        if cchess:
            _, ok = timed(read_cchess, files)
            if ok:
                t_rc, _ = timed(read_cchess, ok)
                t_rx, g_x = timed(read_xiangqi, ok)
                # Per game: cchess reads the first game of each file, xiangqi all of them.
                row("read PGN/game", "xiangqi (cchess's)", g_x, t_rx, None,
                    f"(the {len(ok)} of {len(files)} files cchess reads)")
                row("read PGN/game", "cchess", len(ok), t_rc, None,
                    f"(one game a file; {t_rc / len(ok) / (t_rx / g_x):.1f}x xiangqi's time per game)")
        print("read PGN       pyffish                has no record reader")


if __name__ == "__main__":
    main()
