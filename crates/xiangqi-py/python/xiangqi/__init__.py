"""Xiangqi (Chinese chess) for Python, in python-chess's style.

The rules (legal moves, checkmate and stalemate as losses, perpetual check and perpetual
chase with explanations, the move limit), WXF and Chinese notation, game records in every
common format, and an in-process engine, all from the Rust crates of the ``xiangqi`` project.

>>> import xiangqi
>>> board = xiangqi.Board()
>>> len(board.legal_moves)
44
>>> board.push_chinese("炮二平五")
Move.from_uci('h2e2')
>>> board.wxf(board.parse_uci("h9g7"))
'H2+3'

Squares are numbered 0 (``a0``) to 89 (``i9``), ``rank * 9 + file``, Red at rank 0.
"""

from ._xiangqi import (  # noqa: F401
    __version__,
    RED,
    BLACK,
    COLORS,
    COLOR_NAMES,
    GENERAL,
    ADVISOR,
    ELEPHANT,
    HORSE,
    CHARIOT,
    CANNON,
    SOLDIER,
    PIECE_TYPES,
    PIECE_NAMES,
    SQUARES,
    SQUARE_NAMES,
    FILE_NAMES,
    RANK_NAMES,
    STARTING_FEN,
    InvalidFenError,
    InvalidMoveError,
    IllegalMoveError,
    AmbiguousMoveError,
    RecordError,
    square,
    square_name,
    square_file,
    square_rank,
    parse_square,
    piece_name,
    Move,
    Piece,
    Board,
    LegalMoveGenerator,
    Outcome,
    Termination,
    Game,
    GameNode,
    read_games,
    read_game,
    write_pgn,
)
from . import _xiangqi as _native

# The square constants A0 .. I9.
globals().update({name.upper(): i for i, name in enumerate(SQUARE_NAMES)})

from . import engine, svg  # noqa: E402,F401

__all__ = [
    "RED", "BLACK", "COLORS", "COLOR_NAMES",
    "GENERAL", "ADVISOR", "ELEPHANT", "HORSE", "CHARIOT", "CANNON", "SOLDIER",
    "PIECE_TYPES", "PIECE_NAMES", "SQUARES", "SQUARE_NAMES", "FILE_NAMES", "RANK_NAMES",
    "STARTING_FEN",
    "InvalidFenError", "InvalidMoveError", "IllegalMoveError", "AmbiguousMoveError",
    "RecordError",
    "square", "square_name", "square_file", "square_rank", "parse_square", "piece_name",
    "Move", "Piece", "Board", "LegalMoveGenerator", "Outcome", "Termination",
    "Game", "GameNode", "read_games", "read_game", "write_pgn",
    "engine", "svg",
] + [name.upper() for name in SQUARE_NAMES]

del _native
