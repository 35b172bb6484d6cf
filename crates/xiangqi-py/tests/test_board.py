"""The python-chess-style API: boards, moves, squares, outcomes and their explanations,
notation round trips, every exception type, SVG."""

import copy
import random

import pytest

import xiangqi
import xiangqi.svg

CHASE_FEN = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1"
CHASE_MOVES = "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2".split()


def random_boards(n, seed=7, plies=60):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        b = xiangqi.Board()
        for _ in range(rng.randrange(plies)):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
        out.append(b)
    return out


def test_start_position():
    b = xiangqi.Board()
    assert b.fen() == xiangqi.STARTING_FEN
    assert b.turn == xiangqi.RED and b.turn is True
    assert len(b.legal_moves) == 44 and bool(b.legal_moves)
    assert xiangqi.Move.from_uci("h2e2") in b.legal_moves
    assert xiangqi.Move.from_uci("h2h8") not in b.legal_moves
    assert "h2e2" not in b.legal_moves  # only Move objects are members
    assert sorted(b.legal_moves.uci()) == sorted(m.uci() for m in b.legal_moves)
    p = b.piece_at(xiangqi.E0)
    assert p == xiangqi.Piece(xiangqi.GENERAL, xiangqi.RED)
    assert p.symbol() == "K" and p.chinese() == "帅" and p.name() == "general"
    assert b.piece_at(xiangqi.parse_square("e9")).chinese() == "将"
    assert b.piece_at(xiangqi.E4) is None
    assert b.pieces(xiangqi.CANNON, xiangqi.RED) == [xiangqi.B2, xiangqi.H2]
    assert len(b.piece_map()) == 32
    assert not b.is_check() and b.checkers() == []
    assert b.outcome() is None and not b.is_game_over()
    assert str(b).splitlines()[0] == "r n b a k a b n r"
    assert repr(b) == f"Board('{xiangqi.STARTING_FEN}')"


def test_squares():
    assert xiangqi.SQUARES == list(range(90))
    assert xiangqi.square_name(0) == "a0" and xiangqi.square_name(89) == "i9"
    assert xiangqi.parse_square("e0") == 4 == xiangqi.E0
    assert xiangqi.square(4, 9) == xiangqi.E9
    assert xiangqi.square_file(xiangqi.H2) == 7 and xiangqi.square_rank(xiangqi.H2) == 2
    assert [xiangqi.parse_square(n) for n in xiangqi.SQUARE_NAMES] == xiangqi.SQUARES
    for bad in ["j0", "a10", "", "e"]:
        with pytest.raises(ValueError, match="not a square"):
            xiangqi.parse_square(bad)
    with pytest.raises(ValueError, match="not a square"):
        xiangqi.square_name(90)


def test_moves():
    m = xiangqi.Move.from_uci("h2e2")
    assert m.from_square == xiangqi.H2 and m.to_square == xiangqi.E2
    assert m.uci() == "h2e2" == str(m) and m.iccs() == "H2-E2"
    assert xiangqi.Move.from_uci("H2-E2") == m == xiangqi.Move(xiangqi.H2, xiangqi.E2)
    assert hash(m) == hash(xiangqi.Move(xiangqi.H2, xiangqi.E2))
    assert len({m, xiangqi.Move.from_uci("h2e2")}) == 1
    assert repr(m) == "Move.from_uci('h2e2')"


def test_push_pop_peek_copy_equality():
    b = xiangqi.Board()
    assert b.push_uci("h2e2") == xiangqi.Move.from_uci("h2e2")
    assert b.push_wxf("H8+7") == xiangqi.Move.from_uci("h9g7")
    assert b.push_chinese("马二进三") == xiangqi.Move.from_uci("h0g2")
    assert b.push(xiangqi.Move.from_uci("i9h9")).uci() == "i9h9"
    assert [m.uci() for m in b.move_stack] == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert b.peek().uci() == "i9h9" and b.ply() == 4
    c = b.copy()
    assert c == b and hash(c) == hash(b) and c.zobrist_hash() == b.zobrist_hash()
    assert copy.copy(b) == b and copy.deepcopy(b) == b
    assert c.pop().uci() == "i9h9"
    assert c != b and len(b.move_stack) == 4 and len(c.move_stack) == 3
    assert b.copy(stack=False).move_stack == [] and b.copy(stack=False) == b
    assert b.root() == xiangqi.Board()
    # Transpositions are equal boards with one hash.
    t1, t2 = xiangqi.Board(), xiangqi.Board()
    for m in ["c3c4", "g6g5", "g3g4", "c6c5"]:
        t1.push_uci(m)
    for m in ["g3g4", "c6c5", "c3c4", "g6g5"]:
        t2.push_uci(m)
    assert t1 == t2 and hash(t1) == hash(t2) and t1.move_stack != t2.move_stack
    for _ in range(4):
        b.pop()
    assert b == xiangqi.Board()
    with pytest.raises(IndexError):
        b.pop()
    with pytest.raises(IndexError):
        b.peek()
    assert b.variation_text("wxf") == []


def test_check_and_checkers():
    b = xiangqi.Board("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1")
    assert b.is_check() and b.checkers() == [xiangqi.E1]
    assert b.gives_check(xiangqi.Move.from_uci("e9f9")) is False
    b2 = xiangqi.Board("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")
    assert b2.gives_check(xiangqi.Move.from_uci("e1d1"))


def test_perpetual_chase_outcome_and_explanations():
    b = xiangqi.Board(CHASE_FEN)
    for m in CHASE_MOVES[:-1]:
        b.push_uci(m)
        assert b.outcome() is None
    assert "goes on" in b.explain()
    b.push_uci(CHASE_MOVES[-1])
    o = b.outcome()
    assert o.winner == xiangqi.BLACK and o.termination == xiangqi.Termination.PERPETUAL_CHASE
    assert o.termination.value == "perpetual-chase" and str(o.termination) == "perpetual-chase"
    assert o.result() == "0-1" and b.is_game_over()
    en = o.explain()
    assert en.startswith("Red loses by perpetual chase") and "chariot" in en
    zh = o.explain(lang="zh")
    assert zh.startswith("红方长捉") and "炮" in zh
    assert b.explain("zh") == zh
    # Other rules: no chase rule makes it a drawn repetition; five repetitions are needed for 5.
    o2 = b.outcome(chase_rule=False)
    assert o2.winner is None and o2.termination == xiangqi.Termination.REPETITION
    assert b.outcome(repetitions=5) is None
    assert b.outcome(3, 120) == b.outcome() and b.outcome(5, None) is None
    assert o == b.outcome() and hash(o) == hash(b.outcome())
    with pytest.raises(ValueError, match="not a language"):
        o.explain(lang="fr")
    with pytest.raises(ValueError, match="repetitions"):
        b.outcome(repetitions=1)


def test_every_termination_name_matches_the_rust_reason():
    names = {t.value for t in [
        xiangqi.Termination.CHECKMATE, xiangqi.Termination.STALEMATE,
        xiangqi.Termination.PERPETUAL_CHECK, xiangqi.Termination.PERPETUAL_CHASE,
        xiangqi.Termination.REPETITION, xiangqi.Termination.MOVE_LIMIT,
        xiangqi.Termination.INSUFFICIENT_MATERIAL, xiangqi.Termination.RESIGNATION,
        xiangqi.Termination.AGREEMENT, xiangqi.Termination.TIME]}
    assert names == {"checkmate", "stalemate", "perpetual-check", "perpetual-chase", "repetition",
                     "move-limit", "insufficient-material", "resignation", "agreement", "time"}


def test_checkmate_and_move_limit():
    # Black mated by two chariots.
    b = xiangqi.Board("3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1")
    assert not b.is_checkmate()
    b.push_uci("a0a9")
    assert b.is_checkmate()
    o = b.outcome()
    assert o.termination == xiangqi.Termination.CHECKMATE and o.winner == xiangqi.RED
    assert "checkmate" in o.explain().lower()
    # The move limit: 120 plies without capture by default, changeable, or none.
    b = xiangqi.Board("3k5/9/9/9/9/9/9/9/4A4/R3K4 w - - 110 60")
    shuffle = ["a0a1", "d9d8", "a1a0", "d8d9"]
    for i in range(10):
        b.push_uci(shuffle[i % 4])
    assert b.outcome(move_limit=None, repetitions=100) is None
    o = b.outcome(repetitions=100)
    assert o is not None and o.termination == xiangqi.Termination.MOVE_LIMIT and o.winner is None


def test_notation_round_trips():
    seen = 0
    for b in random_boards(120):
        for m in b.legal_moves:
            w, c = b.wxf(m), b.chinese(m)
            assert b.parse_wxf(w) == m, (b.fen(), m, w)
            assert b.parse_chinese(c) == m, (b.fen(), m, c)
            assert b.parse_move(w) == m and b.parse_move(c) == m and b.parse_move(m.uci()) == m
            assert xiangqi.Move.from_uci(m.uci()) == m == b.parse_uci(m.iccs())
            seen += 1
        # The stack written and read back in each notation replays the same game.
        for notation, push in [("wxf", "push_wxf"), ("chinese", "push_chinese"), ("uci", "push_uci")]:
            again = b.root()
            for text in b.variation_text(notation):
                getattr(again, push)(text)
            assert again.move_stack == b.move_stack and again == b
    assert seen > 2000
    b = xiangqi.Board()
    assert b.wxf(xiangqi.Move.from_uci("h2e2")) == "C2.5"
    assert b.chinese(xiangqi.Move.from_uci("h2e2")) == "炮二平五"
    assert b.push_chinese("炮二平五").uci() == "h2e2"
    assert b.chinese(xiangqi.Move.from_uci("b7e7")) == "炮2平5"


def test_every_exception_type():
    for cls in [xiangqi.InvalidFenError, xiangqi.InvalidMoveError, xiangqi.IllegalMoveError,
                xiangqi.AmbiguousMoveError, xiangqi.RecordError]:
        assert issubclass(cls, ValueError)
    with pytest.raises(xiangqi.InvalidFenError, match="bad FEN 'xx'"):
        xiangqi.Board("xx")
    with pytest.raises(xiangqi.InvalidFenError, match="general"):
        xiangqi.Board("9/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
    b = xiangqi.Board()
    with pytest.raises(xiangqi.InvalidFenError):
        b.set_fen("rnbakabnr/9/1c5c1 w - - 0 1")
    assert b == xiangqi.Board()  # a failed set_fen changes nothing
    with pytest.raises(xiangqi.InvalidMoveError, match="'zz'"):
        b.push_uci("zz")
    with pytest.raises(xiangqi.InvalidMoveError):
        xiangqi.Move.from_uci("h2h2")
    with pytest.raises(xiangqi.InvalidMoveError):
        b.push_wxf("X9.9")
    with pytest.raises(xiangqi.InvalidMoveError):
        b.push_chinese("你好")
    with pytest.raises(xiangqi.InvalidMoveError):
        b.parse_move("hello")
    with pytest.raises(xiangqi.IllegalMoveError, match=r"illegal move h2h8: .* \(in rnbakabnr"):
        b.push_uci("h2h8")
    with pytest.raises(xiangqi.IllegalMoveError, match="e5e4"):
        b.push(xiangqi.Move.from_uci("e5e4"))
    with pytest.raises(xiangqi.IllegalMoveError):
        b.push_wxf("R1+9")
    with pytest.raises(xiangqi.IllegalMoveError):
        b.wxf(xiangqi.Move.from_uci("a0a9"))
    with pytest.raises(xiangqi.IllegalMoveError):
        b.push_chinese("车一进九")
    # Two red chariots on one file: "R9+1" fits both (WXF needs + or - in front).
    amb = xiangqi.Board("3k5/9/9/9/9/R8/9/R8/9/4K4 w - - 0 1")
    with pytest.raises(xiangqi.AmbiguousMoveError, match="ambiguous move R9\\+1: it fits"):
        amb.push_wxf("R9+1")
    with pytest.raises(xiangqi.AmbiguousMoveError):
        amb.push_chinese("车九进一")
    assert amb.push_wxf("R++1").uci() == "a4a5"
    with pytest.raises(xiangqi.RecordError, match="not a record format"):
        xiangqi.read_games(b"hello, world")
    with pytest.raises(xiangqi.RecordError, match="empty"):
        xiangqi.read_games(b"")
    assert b == xiangqi.Board() and b.move_stack == []  # nothing was played by the failures
    with pytest.raises(ValueError, match="notation"):
        b.variation_text("klingon")
    for t in [0, 8, -2**63]:
        with pytest.raises(ValueError, match="piece type"):
            xiangqi.Piece(t, xiangqi.RED)
    with pytest.raises(OverflowError):
        xiangqi.Move(2**70, 0)
    with pytest.raises(ValueError, match="not a square"):
        b.piece_at(-1)


def test_svg():
    b = xiangqi.Board()
    m = b.push_uci("h2e2")
    svg = xiangqi.svg.board(b, lastmove=m, arrows=[(xiangqi.H9, xiangqi.G7), xiangqi.Move.from_uci("b9c7")])
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count('class="piece') == 32 and svg.count('class="lastmove"') == 2
    assert svg.count('class="arrow"') == 2 and "炮" in svg and "帅" in svg
    assert svg._repr_svg_() == svg
    r = b._repr_svg_()
    assert r.startswith("<svg") and r.count('class="lastmove"') == 2
    assert xiangqi.svg.board(None).count('class="piece') == 0
    flipped = xiangqi.svg.board(b, flipped=True, size=200)
    assert 'width="200"' in flipped and flipped != svg
