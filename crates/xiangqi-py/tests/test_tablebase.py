"""xiangqi.tablebase: tables generated here, probed through the binding and checked against
the rules of the Board (its legal moves and mates), not against the generator's own checks."""

import random

import pytest

import xiangqi
import xiangqi.tablebase as xtb


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("tables")
    made = xtb.generate_tablebase(["KRKA", "KHKA"], str(d), threads=2)
    # The sets their captures lead to come first.
    assert made == ["KRK", "KRKA", "KHK", "KHKA"]
    return d


def random_boards(n, seed, black_advisor=True):
    """Legal positions of a chariot or horse and general against a general and an advisor."""
    rng = random.Random(seed)
    palace_red = [(f, r) for f in range(3, 6) for r in range(0, 3)]
    palace_black = [(f, r) for f in range(3, 6) for r in range(7, 10)]
    advisor_black = [(3, 9), (5, 9), (4, 8), (3, 7), (5, 7)]
    out = []
    while len(out) < n:
        pieces = {}
        pieces[rng.choice(palace_red)] = "K"
        pieces.setdefault(rng.choice(palace_black), "k")
        if black_advisor:
            pieces.setdefault(rng.choice(advisor_black), "a")
        pieces.setdefault((rng.randrange(9), rng.randrange(10)), rng.choice("RN"))
        if len(pieces) != (4 if black_advisor else 3):
            continue
        rows = []
        for r in range(9, -1, -1):
            row, empty = "", 0
            for f in range(9):
                p = pieces.get((f, r))
                if p is None:
                    empty += 1
                else:
                    row += (str(empty) if empty else "") + p
                    empty = 0
            rows.append(row + (str(empty) if empty else ""))
        fen = "/".join(rows) + " " + rng.choice("wb") + " - - 0 1"
        try:
            out.append(xiangqi.Board(fen))
        except xiangqi.InvalidFenError:
            continue  # the side not to move in check, generals facing
    return out


def test_values_agree_with_the_moves_of_the_board(folder):
    """A win of d plies has a move to a loss of d-1 and none faster; a loss has only moves to
    wins, the slowest d-1; a mated position has no legal move; a draw has a move to a draw
    and none to a loss."""
    kinds = set()
    with xtb.open_tablebase(str(folder)) as tb:
        for board in random_boards(400, 20261206):
            wdl, dtm = tb.probe_wdl(board), tb.probe_dtm(board)
            kids = []
            for m in list(board.legal_moves):
                board.push(m)
                kids.append(tb.probe_dtm(board) if tb.probe_wdl(board) else None)
                board.pop()
            fen = board.fen()
            if wdl == 1:
                kinds.add("win")
                assert dtm > 0 and dtm % 2 == 1, fen
                assert -(dtm - 1) in kids, fen
                assert not any(k is not None and k <= 0 and -k < dtm - 1 for k in kids), fen
            elif wdl == -1:
                kinds.add("loss")
                assert dtm <= 0 and dtm % 2 == 0, fen
                if dtm == 0:
                    assert not kids and (board.is_checkmate() or board.is_stalemate()), fen
                else:
                    assert all(k is not None and k > 0 for k in kids), fen
                    assert max(kids) == -dtm - 1, fen
            else:
                kinds.add("draw")
                assert dtm == 0, fen
                assert None in kids and not any(k is not None and k <= 0 for k in kids), fen
            # The moves, best first, begin with the value of the position itself.
            moves = tb.probe_moves(board)
            assert len(moves) == len(kids)
            if wdl != 0 and kids:
                assert moves[0][1] == dtm, fen
            assert tb.probe_rules(board) in ("win", "draw", "loss", "win-by-rule", "loss-by-rule")
    assert kinds == {"win", "draw", "loss"}


def test_a_known_mate_and_the_rule_words(folder):
    tb = xtb.Tablebase(folder)  # a path-like works too
    board = xiangqi.Board("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")
    assert tb.probe_wdl(board) == 1
    assert tb.probe_rules(board) == "win"
    best, dtm = tb.probe_moves(board)[0]
    assert dtm == tb.probe_dtm(board)
    board.push(best)
    assert tb.probe_dtm(board) == -(dtm - 1)
    # A bare general against a bare general is drawn by rule: no table needed.
    assert tb.probe_wdl(xiangqi.Board("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")) == 0


def test_a_set_without_a_table(folder):
    tb = xtb.open_tablebase([str(folder)])
    board = xiangqi.Board("3k5/9/9/9/9/9/9/9/4C4/4K4 w - - 0 1")  # KCK: not generated
    with pytest.raises(xtb.MissingTableError) as e:
        tb.probe_wdl(board)
    assert isinstance(e.value, KeyError) and "KCK" in str(e.value)
    assert tb.get_wdl(board) is None and tb.get_dtm(board, 7) == 7
    assert tb.get_wdl(xiangqi.Board("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")) == 1
    assert "KRKA" in tb.sets() and tb.max_pieces == 4


def test_generating_again_skips_and_bad_input_is_named(folder, tmp_path):
    assert xtb.generate_tablebase(["KRK"], str(folder)) == []
    with pytest.raises(ValueError, match="KZK"):
        xtb.generate_tablebase(["KZK"], str(tmp_path))
    with pytest.raises(OSError, match="no-such-folder"):
        xtb.open_tablebase(str(tmp_path / "no-such-folder"))
    other = tmp_path / "more"
    xtb.generate_tablebase(["KCK"], str(other))
    tb = xtb.open_tablebase(str(folder))
    board = xiangqi.Board("3k5/9/9/9/9/9/9/9/4C4/4K4 w - - 0 1")
    assert tb.get_wdl(board) is None
    tb.add_directory(str(other))
    assert tb.probe_wdl(board) == 0  # a cannon alone cannot mate
    tb.close()
    with pytest.raises(ValueError, match="closed"):
        tb.probe_wdl(board)
    assert "closed" in repr(tb)


def test_the_module_example_runs():
    import doctest

    r = doctest.testmod(xtb)
    assert r.attempted >= 3 and r.failed == 0
