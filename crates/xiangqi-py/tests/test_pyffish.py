"""Random games compared move by move with Fairy-Stockfish (pyffish, a test-only oracle):
the legal moves and check at every ply, and the outcome at checkmate and stalemate.

pyffish numbers ranks 1-10 where we number them 0-9; everything else is the same FEN.
XIANGQI_PY_SEED sets the seed (default fixed); the seed is printed on failure.
"""

import os
import random

import pyffish as sf
import pytest

import xiangqi

VARIANT = "xiangqi"
SEED = int(os.environ.get("XIANGQI_PY_SEED", "20261201"))
GAMES = int(os.environ.get("XIANGQI_PY_GAMES", "60"))


def to_sf(uci: str) -> str:
    """h2e2 -> h3e3 (pyffish counts ranks from 1)."""
    return f"{uci[0]}{int(uci[1]) + 1}{uci[2]}{int(uci[3]) + 1}"


def sf_moves(fen: str) -> set:
    return set(sf.legal_moves(VARIANT, fen, []))


def choose(board: xiangqi.Board, rng: random.Random):
    """A move that mates when there is one (most of the time), else a capture half of the
    time, else any: games then end in mate or stalemate often enough to compare."""
    moves = list(board.legal_moves)
    if rng.random() < 0.9:
        for m in moves:
            board.push(m)
            done = board.is_checkmate() or board.is_stalemate()
            board.pop()
            if done:
                return m
    captures = [m for m in moves if board.is_capture(m)]
    if captures and rng.random() < 0.5:
        return rng.choice(captures)
    return rng.choice(moves)


def compare(board: xiangqi.Board, where: str) -> bool:
    """Compares one position; returns whether the side to move has no legal move."""
    fen = board.fen()
    ours = {to_sf(m.uci()) for m in board.legal_moves}
    theirs = sf_moves(fen)
    assert ours == theirs, f"{where}: {fen}: only ours {sorted(ours - theirs)}, only pyffish {sorted(theirs - ours)}"
    assert len(board.legal_moves) == len(theirs)
    assert board.is_check() == sf.gives_check(VARIANT, fen, []), f"{where}: check differs in {fen}"
    assert bool(board.checkers()) == board.is_check()
    if theirs:
        return False
    # No legal move: a loss for the side to move, in check (mate) or not (stalemate).
    assert sf.game_result(VARIANT, fen, []) == -sf.VALUE_MATE, f"{where}: {fen}"
    outcome = board.outcome(move_limit=None)
    assert outcome is not None, f"{where}: {fen}"
    assert outcome.winner == (not board.turn)
    want = xiangqi.Termination.CHECKMATE if board.is_check() else xiangqi.Termination.STALEMATE
    assert outcome.termination == want, f"{where}: {fen}"
    return True


def test_random_games_against_pyffish():
    rng = random.Random(SEED)
    ends = {"mate": 0, "stalemate": 0}
    plies = 0
    for g in range(GAMES):
        board = xiangqi.Board()
        for ply in range(300):
            where = f"seed {SEED} game {g} ply {ply}"
            if compare(board, where):
                ends["mate" if board.is_check() else "stalemate"] += 1
                break
            m = choose(board, rng)
            assert m in board.legal_moves
            assert board.push(m) == m
            plies += 1
    assert plies > GAMES * 20
    assert ends["mate"] > 0, ends


def vector_terminals(path, limit=300):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            fen, check, moves = (x.strip() for x in line.split("|"))
            if not moves:
                out.append((fen, check == "1"))
            if len(out) >= limit:
                break
    return out


def test_mates_and_stalemates_against_pyffish(vectors_file):
    """Terminal positions (from the committed oracle vectors), asked of pyffish afresh."""
    positions = vector_terminals(vectors_file)
    kinds = {True: 0, False: 0}
    for fen, check in positions:
        board = xiangqi.Board(fen)
        assert compare(board, fen)
        assert board.is_checkmate() == check and board.is_stalemate() == (not check)
        kinds[check] += 1
    assert kinds[True] > 10 and kinds[False] > 10, kinds


def test_positions_from_random_games_against_pyffish_with_move_lists():
    """The same games given to pyffish as start FEN plus moves (its other entry point)."""
    rng = random.Random(SEED + 1)
    for g in range(5):
        board = xiangqi.Board()
        sf_list = []
        for _ in range(80):
            ours = sorted(to_sf(m.uci()) for m in board.legal_moves)
            assert ours == sorted(sf.legal_moves(VARIANT, xiangqi.STARTING_FEN, sf_list))
            if not ours:
                break
            m = rng.choice(list(board.legal_moves))
            board.push(m)
            sf_list.append(to_sf(m.uci()))
        assert sf.get_fen(VARIANT, xiangqi.STARTING_FEN, sf_list) == board.fen()


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
