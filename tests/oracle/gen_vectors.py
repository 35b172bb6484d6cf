#!/usr/bin/env python3
"""Generate legal-move test vectors for the Xiangqi rules core from Fairy-Stockfish (pyffish).

Each output line is one position:

    FEN | 0 or 1 (side to move in check) | legal moves, sorted, in our a0..i9 coordinates

Positions come from five sources (kinds), mixed so that endgames, checks, checkmates,
stalemates and flying-general pins are well represented:

  game    random games from the start position, each with its own bias towards captures
          (0 to 100 %) and length (up to 400 plies), every position recorded;
  ending  random games from random sparse placements (2 generals and 1-8 other pieces);
  sparse  random sparse placements, attackers drawn towards one general, recorded with all
          their children (each legal move played once);
  pin     random placements with the generals on one file and exactly one piece between them
          (a flying-general pin), recorded with all their children;
  terminal  checkmates and stalemates found among the children of random attacking placements,
          then random one-piece changes of known mates and stalemates (often terminal again,
          otherwise a near miss).

Everything about legality, check and the moves comes from pyffish; xq.py only holds the
placement. Random placements are kept only if they are legal positions under RULES.md §7 (piece
counts, points each piece can reach, generals not facing, the side not to move not in check as
pyffish sees it). The output depends only on --seed and --positions (and the pyffish version);
--jobs only changes the speed.
"""

import argparse
import importlib.metadata
import multiprocessing
import os
import random
import sys
import time

import pyffish as sf

import xq

KINDS = [("game", 0.30), ("ending", 0.15), ("sparse", 0.20), ("pin", 0.15), ("terminal", 0.20)]
# Positions one task produces (terminal tasks grow a pool of mates, so they run longer).
TASK_SIZE = {"game": 200, "ending": 200, "sparse": 200, "pin": 200, "terminal": 500}
# Non-general roles drawn for random placements (weights favour the strong attackers).
ROLE_WEIGHTS = {"r": 3, "n": 3, "c": 3, "p": 3, "a": 2, "b": 2}


def legal(fen):
    return sf.legal_moves(xq.VARIANT, fen, [])


def in_check(fen):
    return bool(sf.gives_check(xq.VARIANT, fen, []))


def record(fen, check, moves, kind):
    ours = sorted(xq.fsf_to_ours(m) for m in moves)
    return (fen, 1 if check else 0, ours, kind)


# ---------------------------------------------------------------- random games


def play_line(rng, board, red, max_plies, capture_bias, kind, out, limit):
    """Plays a random game from (board, red) and appends every position to out.

    The check flag of each position after the first comes from the '+'/'#' markers of the
    SAN of the moves that led to it (one pyffish call for the whole game); one position in
    16 is cross-checked with gives_check so the two pyffish answers are known to agree.
    """
    start_fen = board.fen(red)
    line = []  # (fen, moves)
    played = []
    for _ in range(max_plies + 1):
        if len(out) + len(line) >= limit:
            break
        fen = board.fen(red)
        moves = legal(fen)
        line.append((fen, moves))
        if not moves or len(line) > max_plies:
            break
        captures = [m for m in moves if board.cells[xq.parse_fsf_move(m)[1]] is not None]
        pool = captures if captures and rng.random() < capture_bias else moves
        m = rng.choice(pool)
        frm, to = xq.parse_fsf_move(m)
        board.play(frm, to)
        red = not red
        played.append(m)
    played = played[: max(0, len(line) - 1)]
    sans = sf.get_san_moves(xq.VARIANT, start_fen, played) if played else []
    for i, (fen, moves) in enumerate(line):
        if i == 0:
            check = in_check(fen)
        else:
            check = sans[i - 1].endswith(("+", "#"))
            if rng.random() < 1 / 16 and check != in_check(fen):
                raise RuntimeError(f"pyffish SAN and gives_check disagree on check in {fen}")
        out.append(record(fen, check, moves, kind))


def task_game(rng, size):
    out = []
    while len(out) < size:
        bias = rng.choice([0.0, 0.0, 0.2, 0.5, 0.8, 1.0])
        max_plies = rng.choice([40, 80, 150, 250, 400])
        board = xq.Board.from_placement(xq.START_FEN.split()[0])
        play_line(rng, board, True, max_plies, bias, "game", out, size)
    return out


def task_ending(rng, size):
    out = []
    while len(out) < size:
        board, red = random_placement(rng, rng.randint(1, 8))
        if board is None:
            continue
        bias = rng.choice([0.0, 0.5, 0.9])
        play_line(rng, board, red, rng.choice([20, 60, 120]), bias, "ending", out, size)
    return out


# ---------------------------------------------------------------- random placements


def near(target, squares, radius):
    """The squares within `radius` (king steps) of target, or all if none are."""
    tf, tr = xq.file_of(target), xq.rank_of(target)
    close = [
        s
        for s in squares
        if max(abs(xq.file_of(s) - tf), abs(xq.rank_of(s) - tr)) <= radius
    ]
    return close or squares


def pick_piece(rng, board, red):
    roles = [r for r in ROLE_WEIGHTS if board.count(r.upper() if red else r) < xq.MAX_COUNT[r]]
    if not roles:
        return None
    role = rng.choices(roles, weights=[ROLE_WEIGHTS[r] for r in roles])[0]
    return role.upper() if red else role


def valid_for_rules(board, red):
    """The RULES.md §7 checks on a placement, with pyffish judging the opposite check."""
    for role, most in xq.MAX_COUNT.items():
        for piece in (role.upper(), role):
            if board.count(piece) > most:
                return False
    if board.general(True) is None or board.general(False) is None:
        return False
    for s, p in enumerate(board.cells):
        if p is not None and not xq.can_stand_on(p, s):
            return False
    if board.generals_facing():
        return False
    # The side that has just moved must not be in check: ask with the other side to move.
    return not in_check(board.fen(not red))


def random_placement(rng, extra, pin=False, aim=None, own_share=0.3):
    """A random legal placement with both generals and `extra` other pieces, or (None, _).

    Attacking pieces are drawn towards one general (the side to move's or the other's, at
    random) so that checks, mates and stalemates are common. With pin=True the generals stand
    on one file with exactly one piece (of either colour) between them.
    """
    board = xq.Board()
    red_to_move = rng.random() < 0.5
    rk = rng.choice(xq.standable("K"))
    if pin:
        bk = xq.sq(xq.file_of(rk), rng.choice([7, 8, 9]))
    else:
        bk = rng.choice(xq.standable("k"))
    board.cells[rk] = "K"
    board.cells[bk] = "k"
    if pin:
        lo, hi = xq.rank_of(rk), xq.rank_of(bk)
        for _ in range(20):
            piece = pick_piece(rng, board, rng.random() < 0.5)
            spots = [
                xq.sq(xq.file_of(rk), r)
                for r in range(lo + 1, hi)
                if xq.can_stand_on(piece, xq.sq(xq.file_of(rk), r))
            ]
            if spots:
                board.cells[rng.choice(spots)] = piece
                break
        else:
            return None, red_to_move
    # Whose general the attackers aim at: the side to move's ("mover"), the other's
    # ("waiting") or either.
    if aim is None:
        aim = rng.choice(["mover", "waiting"])
    target_red = red_to_move if aim == "mover" else not red_to_move
    target = rk if target_red else bk
    file_between = set()
    if pin:
        f = xq.file_of(rk)
        file_between = {xq.sq(f, r) for r in range(xq.rank_of(rk) + 1, xq.rank_of(bk))}
    for _ in range(extra):
        attacker_red = target == bk
        red = not attacker_red if rng.random() < own_share else attacker_red
        piece = pick_piece(rng, board, red)
        if piece is None:
            continue
        free = [
            s
            for s in xq.standable(piece)
            if board.cells[s] is None and s not in file_between
        ]
        if not free:
            continue
        if red == attacker_red and rng.random() < 0.7:
            free = near(target, free, rng.choice([1, 2, 3]))
        board.cells[rng.choice(free)] = piece
    if not valid_for_rules(board, red_to_move):
        return None, red_to_move
    return board, red_to_move


def expand(board, red, kind, out, limit):
    """Records the position and every child (each legal move played once)."""
    fen = board.fen(red)
    moves = legal(fen)
    out.append(record(fen, in_check(fen), moves, kind))
    for m in moves:
        if len(out) >= limit:
            return
        child = board.copy()
        child.play(*xq.parse_fsf_move(m))
        cfen = child.fen(not red)
        out.append(record(cfen, in_check(cfen), legal(cfen), kind))


def task_sparse(rng, size):
    out = []
    while len(out) < size:
        board, red = random_placement(rng, rng.choice([1, 2, 3, 3, 4, 4, 5, 6, 8]))
        if board is not None:
            expand(board, red, "sparse", out, size)
    return out


def task_pin(rng, size):
    out = []
    while len(out) < size:
        board, red = random_placement(rng, rng.choice([0, 1, 2, 3, 4, 6]), pin=True)
        if board is not None:
            expand(board, red, "pin", out, size)
    return out


def mutate(rng, board):
    """A copy of board with one random change: a piece added, removed or moved elsewhere,
    or a general moved within its palace."""
    b = board.copy()
    others = [s for s, p in enumerate(b.cells) if p is not None and p.lower() != "k"]
    what = rng.choice(["add", "add", "remove", "move", "move", "move", "general"])
    if what == "remove" and others:
        b.cells[rng.choice(others)] = None
        return b
    if what == "move" and others:
        s = rng.choice(others)
        piece = b.cells[s]
        free = [t for t in xq.standable(piece) if b.cells[t] is None]
        if free:
            b.cells[s] = None
            b.cells[rng.choice(free)] = piece
        return b
    if what == "general":
        red = rng.random() < 0.5
        s = b.general(red)
        free = [t for t in xq.standable("K" if red else "k") if b.cells[t] is None]
        if free:
            b.cells[s] = None
            b.cells[rng.choice(free)] = "K" if red else "k"
        return b
    piece = pick_piece(rng, b, rng.random() < 0.5)
    if piece is not None:
        free = [t for t in xq.standable(piece) if b.cells[t] is None]
        if free:
            b.cells[rng.choice(free)] = piece
    return b


def task_terminal(rng, size):
    """Checkmates and stalemates, and positions one change away from them.

    Mates are found by expanding random attacking placements; then each step mutates a known
    mate or stalemate (a piece added, removed or moved) and records the result, which is often
    terminal again and otherwise a near miss. Both are worth testing.
    """
    out = []
    pool = []
    while len(out) < size:
        if not pool or rng.random() < 0.08:
            board, red = random_placement(
                rng, rng.choice([2, 3, 4, 5, 6]), aim="mover", own_share=0.1
            )
            if board is None:
                continue
            first = len(out)
            expand(board, red, "terminal", out, size)
            for fen, _, moves, _ in out[first:]:
                if not moves:
                    pool.append((xq.Board.from_placement(fen.split()[0]), fen.split()[1] == "w"))
            continue
        board, red = rng.choice(pool)
        child = mutate(rng, board)
        if not valid_for_rules(child, red):
            continue
        fen = child.fen(red)
        moves = legal(fen)
        out.append(record(fen, in_check(fen), moves, "terminal"))
        if not moves:
            pool.append((child, red))
    return out


TASKS = {
    "game": task_game,
    "ending": task_ending,
    "sparse": task_sparse,
    "pin": task_pin,
    "terminal": task_terminal,
}


def run_task(args):
    seed, kind, index, size = args
    rng = random.Random(f"{seed}:{kind}:{index}")
    return TASKS[kind](rng, size)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    ap.add_argument("--positions", type=int, default=20000, help="how many positions (default 20000)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--out", required=True, help="output file")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    print(f"oracle vectors: seed {seed}", flush=True)
    t0 = time.time()

    # Each kind gets its share; tasks over-produce a little because duplicates are dropped.
    quotas = {kind: int(a.positions * share) for kind, share in KINDS}
    quotas[KINDS[0][0]] += a.positions - sum(quotas.values())
    tasks = []
    for kind, _ in KINDS:
        want = int(quotas[kind] * 1.05) + 1
        size = min(TASK_SIZE[kind], want)
        for i in range((want + size - 1) // size):
            tasks.append((seed, kind, i, size))
    seen = set()
    by_kind = {kind: [] for kind, _ in KINDS}
    extra_round = 0
    while True:
        with multiprocessing.get_context("fork").Pool(a.jobs) as pool:
            for chunk in pool.imap(run_task, tasks):
                for row in chunk:
                    key = " ".join(row[0].split()[:2])
                    if key not in seen:
                        seen.add(key)
                        by_kind[row[3]].append(row)
        rows = []
        for kind, _ in KINDS:
            rows += by_kind[kind][: quotas[kind]]
        # A kind that fell short (too many duplicates) is made up from the others' surplus.
        for kind, _ in KINDS:
            rows += by_kind[kind][quotas[kind] :][: max(0, a.positions - len(rows))]
        if len(rows) >= a.positions:
            break
        extra_round += 1
        tasks = [(seed, "sparse", 10000 * extra_round + i, TASK_SIZE["sparse"]) for i in range(4)]
    rows = rows[: a.positions]

    stats = {k: 0 for k, _ in KINDS}
    checks = mates = stalemates = 0
    for fen, check, moves, kind in rows:
        stats[kind] += 1
        checks += check
        mates += bool(check and not moves)
        stalemates += bool(not check and not moves)
    version = importlib.metadata.version("pyffish")
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(f"# Xiangqi legal-move vectors from Fairy-Stockfish (pyffish {version}), variant xiangqi.\n")
        f.write(f"# Made by tests/oracle/gen_vectors.py --seed {seed} --positions {a.positions}\n")
        f.write("# Columns: FEN | side to move in check (1) or not (0) | legal moves, sorted, a0..i9\n")
        f.write(
            "# Kinds: "
            + ", ".join(f"{k} {n}" for k, n in stats.items())
            + f"; checks {checks}, checkmates {mates}, stalemates {stalemates}\n"
        )
        for fen, check, moves, _ in rows:
            f.write(f"{fen} | {check} | {' '.join(moves)}\n")
    print(
        f"oracle vectors: wrote {len(rows)} positions to {a.out} in {time.time() - t0:.1f} s "
        f"(" + ", ".join(f"{k} {n}" for k, n in stats.items())
        + f"; checks {checks}, checkmates {mates}, stalemates {stalemates})",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
