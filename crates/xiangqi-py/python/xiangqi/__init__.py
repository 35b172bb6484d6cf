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
from ._xiangqi import (  # noqa: F401,E402  the squares A0 .. I9
    A0, B0, C0, D0, E0, F0, G0, H0, I0,
    A1, B1, C1, D1, E1, F1, G1, H1, I1,
    A2, B2, C2, D2, E2, F2, G2, H2, I2,
    A3, B3, C3, D3, E3, F3, G3, H3, I3,
    A4, B4, C4, D4, E4, F4, G4, H4, I4,
    A5, B5, C5, D5, E5, F5, G5, H5, I5,
    A6, B6, C6, D6, E6, F6, G6, H6, I6,
    A7, B7, C7, D7, E7, F7, G7, H7, I7,
    A8, B8, C8, D8, E8, F8, G8, H8, I8,
    A9, B9, C9, D9, E9, F9, G9, H9, I9,
)

# Type aliases, as python-chess has them.
Color = bool
Square = int
PieceType = int

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
    "engine", "svg", "Color", "Square", "PieceType",
    "A0", "B0", "C0", "D0", "E0", "F0", "G0", "H0", "I0",
    "A1", "B1", "C1", "D1", "E1", "F1", "G1", "H1", "I1",
    "A2", "B2", "C2", "D2", "E2", "F2", "G2", "H2", "I2",
    "A3", "B3", "C3", "D3", "E3", "F3", "G3", "H3", "I3",
    "A4", "B4", "C4", "D4", "E4", "F4", "G4", "H4", "I4",
    "A5", "B5", "C5", "D5", "E5", "F5", "G5", "H5", "I5",
    "A6", "B6", "C6", "D6", "E6", "F6", "G6", "H6", "I6",
    "A7", "B7", "C7", "D7", "E7", "F7", "G7", "H7", "I7",
    "A8", "B8", "C8", "D8", "E8", "F8", "G8", "H8", "I8",
    "A9", "B9", "C9", "D9", "E9", "F9", "G9", "H9", "I9",
]

