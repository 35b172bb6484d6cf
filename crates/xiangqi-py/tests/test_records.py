"""Every record file of the shared record set read through xiangqi.read_games (PGN in three
notations and several encodings, XQF, DhtmlXQ, CBF, CBR, CBL), and PGN written back."""

import io

import pytest

import xiangqi

DIRS = ["pgn-chinese", "pgn-iccs", "pgn-wxf", "xqf", "other"]
NOT_RECORDS = {"wukong-puzzle-games-list.txt", "walker-uci-test-moves.txt"}
# A tag header followed by a move tree drawn as a text diagram: its game is broken.
BROKEN = {"hbsxcjp-cchess-01-cc-tree.txt"}


def expected_format(d, name):
    if d == "xqf":
        return "XQF"
    ext = name.rsplit(".", 1)[-1]
    if ext in ("cbl", "cbr", "cbf"):
        return ext.upper()
    if "dhtmlxq" in name:
        return "DhtmlXQ"
    return "PGN"


def nodes(node):
    """Every node below `node`, depth first."""
    out = []
    for child in node.variations:
        out.append(child)
        out.extend(nodes(child))
    return out


def shape(node):
    """The tree's moves and comments (whitespace normalised: PGN keeps the words, not the
    line ends of an XQF comment)."""
    return [(c.move.uci(), " ".join(c.comment.split()), shape(c)) for c in node.variations]


def all_files(records_dir):
    files = []
    for d in DIRS:
        files.extend(sorted((records_dir / d).iterdir()))
    return files


def test_every_record_file(records_dir):
    files = all_files(records_dir)
    assert len(files) == 92
    games = variations = comments = 0
    for path in files:
        name, d = path.name, path.parent.name
        if name in NOT_RECORDS:
            with pytest.raises(xiangqi.RecordError, match="not a record format"):
                xiangqi.read_games(path)
            continue
        if name in BROKEN:
            with pytest.raises(xiangqi.RecordError, match=r"game 1, line 14: '开始'"):
                xiangqi.read_games(path)
            assert xiangqi.read_games(path, errors="skip") == []
            continue
        read = xiangqi.read_games(path, errors="skip")
        assert read, path
        # str paths, bytes and file objects read the same.
        assert len(xiangqi.read_games(str(path), errors="skip")) == len(read)
        assert len(xiangqi.read_games(path.read_bytes(), errors="skip")) == len(read)
        with open(path, "rb") as f:
            assert len(xiangqi.read_games(f, errors="skip")) == len(read)
        for g in read:
            assert g.format == expected_format(d, name), path
            assert isinstance(g.headers, dict) and "Result" in g.headers
            assert g.result in ("1-0", "0-1", "1/2-1/2", "*")
            # The main line replays legally from the start board.
            b = g.board()
            assert b.move_stack == []
            for m in g.mainline_moves():
                assert m in b.legal_moves, (path, b.fen(), m)
                b.push(m)
            assert g.end().board() == b
            assert g.end().board().move_stack == g.mainline_moves()
            # Every node of the tree: its move is legal on its parent's board.
            for n in nodes(g):
                parent = n.parent.board()
                assert n.move in parent.legal_moves, (path, parent.fen(), n.move)
                assert n.board().peek() == n.move and n.ply() == parent.ply() + 1
                variations += len(n.variations) > 1
                comments += bool(n.comment)
            variations += len(g.variations) > 1
            # Written as PGN in each notation and read back: the same tree and headers.
            for notation in ["wxf", "chinese", "iccs"]:
                text = xiangqi.write_pgn(g, notation=notation)
                again = xiangqi.read_games(text.encode())
                assert len(again) == 1, (path, notation)
                assert shape(again[0]) == shape(g), (path, notation)
                assert again[0].board() == g.board()
                assert again[0].result == g.result
            games += 1
    assert games > 500, games
    assert variations > 10 and comments > 10, (variations, comments)


def test_tree_and_headers(records_dir):
    g = xiangqi.read_game(records_dir / "pgn-wxf" / "wukong-xqdb-international-multi.pgn")
    assert g.headers["Red"] == "ZHAO GuoRong" and g.headers["Black"] == "KE YongQing"
    first = g.variations[0]
    assert first.move.uci() == "h2e2" and first.wxf() == "C2.5" and first.chinese() == "炮二平五"
    assert first.parent.headers == g.headers and first.game().headers == g.headers
    assert first.is_mainline() and g.next().move == first.move
    assert [n.move for n in g.mainline()] == g.mainline_moves()
    assert repr(first) == "<GameNode h2e2 at ply 1>"


def test_variations_and_comments_from_pgn():
    pgn = """[Event "test"]
[Red "A"]
[Black "B"]

{before} 1. C2.5 {centre} H8+7 (1... C8.5 {same} 2. H2+3) 2. H2+3 $1 R9.8 1-0
"""
    g = xiangqi.read_games(io.BytesIO(pgn.encode()))[0]
    assert g.comment == "before" and g.result == "1-0" and g.format == "PGN"
    c25 = g.variations[0]
    assert c25.comment == "centre" and len(c25.variations) == 2
    main, alt = c25.variations
    assert main.wxf() == "H8+7" and alt.wxf() == "C8.5" and alt.comment == "same"
    assert not alt.is_mainline() and alt.variations[0].wxf() == "H2+3"
    assert main.variations[0].nags == [1]
    assert [m.uci() for m in g.mainline_moves()] == ["h2e2", "h9g7", "h0g2", "i9h9"]
    text = xiangqi.write_pgn(g, notation="chinese")
    assert "炮二平五" in text and "{centre}" in text and "(1... 炮8平5 {same}" in text
    assert xiangqi.write_pgn([g, g]).count('[Event "test"]') == 2


def test_game_from_board_and_errors():
    b = xiangqi.Board()
    for m in ["h2e2", "h9g7"]:
        b.push_uci(m)
    g = xiangqi.Game.from_board(b, headers={"Event": "casual", "Red": "me"})
    assert g.format is None and g.headers["Event"] == "casual" and g.result == "*"
    text = xiangqi.write_pgn(g, notation="iccs")
    assert '[Format "ICCS"]' in text and "1. h2e2 h9g7" in text
    back = xiangqi.read_game(text.encode())
    assert back.mainline_moves() == b.move_stack
    with pytest.raises(ValueError, match="not a result"):
        xiangqi.Game.from_board(b, headers={"Result": "win"})
    # An illegal main-line move: the message names the game, line, move and ply.
    bad = b'[Event "x"]\n\n1. h2e2 h9g7 2. h2e2 *\n'
    with pytest.raises(xiangqi.RecordError, match=r"<bytes>: PGN game 1, line 3: move 'h2e2' \(ply 3\)"):
        xiangqi.read_games(bad)
    # A variation with an illegal move: cut there with a warning, or refused when strict.
    lenient = b'[Event "x"]\n\n1. h2e2 (1. a0a5) h9g7 *\n'
    g = xiangqi.read_games(lenient)[0]
    assert len(g.variations) == 1 and g.warnings and "a0a5" in g.warnings[0]
    with pytest.raises(xiangqi.RecordError):
        xiangqi.read_games(lenient, strict=True)
    with pytest.raises(FileNotFoundError):
        xiangqi.read_games("/no/such/file.pgn")
    with pytest.raises(ValueError, match="errors must be"):
        xiangqi.read_games(lenient, errors="ignore")
    with pytest.raises(ValueError, match="not a notation"):
        xiangqi.write_pgn(g, notation="san")
    with pytest.raises(ValueError, match="takes bytes, a path or a file object"):
        xiangqi.read_games(42)
