"""Type stubs of the native module (the Rust crates behind ``xiangqi``)."""

# ruff: noqa

import os
from typing import IO, Dict, Iterable, Iterator, List, Optional, Tuple, Union

__version__: str

_Color = bool
_Square = int
_PieceType = int

RED: bool
BLACK: bool
COLORS: List[bool]
COLOR_NAMES: List[str]
GENERAL: int
ADVISOR: int
ELEPHANT: int
HORSE: int
CHARIOT: int
CANNON: int
SOLDIER: int
PIECE_TYPES: List[int]
PIECE_NAMES: List[Optional[str]]
SQUARES: List[int]
SQUARE_NAMES: List[str]
FILE_NAMES: List[str]
RANK_NAMES: List[str]
STARTING_FEN: str
A0: int
B0: int
C0: int
D0: int
E0: int
F0: int
G0: int
H0: int
I0: int
A1: int
B1: int
C1: int
D1: int
E1: int
F1: int
G1: int
H1: int
I1: int
A2: int
B2: int
C2: int
D2: int
E2: int
F2: int
G2: int
H2: int
I2: int
A3: int
B3: int
C3: int
D3: int
E3: int
F3: int
G3: int
H3: int
I3: int
A4: int
B4: int
C4: int
D4: int
E4: int
F4: int
G4: int
H4: int
I4: int
A5: int
B5: int
C5: int
D5: int
E5: int
F5: int
G5: int
H5: int
I5: int
A6: int
B6: int
C6: int
D6: int
E6: int
F6: int
G6: int
H6: int
I6: int
A7: int
B7: int
C7: int
D7: int
E7: int
F7: int
G7: int
H7: int
I7: int
A8: int
B8: int
C8: int
D8: int
E8: int
F8: int
G8: int
H8: int
I8: int
A9: int
B9: int
C9: int
D9: int
E9: int
F9: int
G9: int
H9: int
I9: int

class InvalidFenError(ValueError):
    """A FEN that cannot be read or is no legal position."""

class InvalidMoveError(ValueError):
    """A malformed move text (not coordinates, WXF or Chinese notation)."""

class IllegalMoveError(ValueError):
    """A well-formed move that is not legal in the position."""

class AmbiguousMoveError(ValueError):
    """A WXF or Chinese move that fits more than one legal move."""

class RecordError(ValueError):
    """A record that cannot be read (unknown format, broken game), naming file, game and place."""

def square(file: int, rank: int) -> _Square:
    """The square on ``file`` (0-8) and ``rank`` (0-9)."""
def square_name(square: _Square) -> str:
    """``a0`` .. ``i9``."""
def square_file(square: _Square) -> int:
    """The file, 0-8."""
def square_rank(square: _Square) -> int:
    """The rank, 0-9."""
def parse_square(name: str) -> _Square:
    """The square of ``e0`` and the like (``ValueError`` for anything else)."""
def piece_name(piece_type: _PieceType) -> str:
    """``general``, ``advisor``, ..."""

class Move:
    """A move from one square to another (legal or not: that depends on a board)."""
    def __init__(self, from_square: _Square, to_square: _Square) -> None: ...
    @classmethod
    def from_uci(cls, uci: str) -> "Move":
        """Reads ``h2e2`` or ``H2-E2`` (``InvalidMoveError`` otherwise)."""
    def uci(self) -> str:
        """``h2e2``."""
    def iccs(self) -> str:
        """``H2-E2``."""
    @property
    def from_square(self) -> _Square: ...
    @property
    def to_square(self) -> _Square: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __lt__(self, other: "Move") -> bool: ...
    def __le__(self, other: "Move") -> bool: ...
    def __gt__(self, other: "Move") -> bool: ...
    def __ge__(self, other: "Move") -> bool: ...

class Piece:
    """A piece type (``GENERAL`` .. ``SOLDIER``) and colour."""
    def __init__(self, piece_type: _PieceType, color: _Color) -> None: ...
    @classmethod
    def from_symbol(cls, symbol: str) -> "Piece":
        """From a FEN letter: ``K`` Red's general, ``p`` a Black soldier."""
    @property
    def piece_type(self) -> _PieceType: ...
    @property
    def color(self) -> _Color: ...
    def symbol(self) -> str:
        """The FEN letter."""
    def chinese(self) -> str:
        """帅 将 仕 士 相 象 马 车 炮 兵 卒."""
    def name(self) -> str:
        """``general``, ``chariot``, ..."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Termination:
    """Why a game ended; ``value`` is the Rust ``Reason`` name (``"perpetual-chase"``)."""
    CHECKMATE: "Termination"
    STALEMATE: "Termination"
    PERPETUAL_CHECK: "Termination"
    PERPETUAL_CHASE: "Termination"
    REPETITION: "Termination"
    MOVE_LIMIT: "Termination"
    INSUFFICIENT_MATERIAL: "Termination"
    RESIGNATION: "Termination"
    AGREEMENT: "Termination"
    TIME: "Termination"
    @property
    def value(self) -> str: ...
    def words(self) -> str:
        """The reason in plain words: ``perpetual chase``."""

class Outcome:
    """How a game ended."""
    @property
    def winner(self) -> Optional[_Color]:
        """``RED``, ``BLACK`` or ``None`` for a draw."""
    @property
    def termination(self) -> Termination: ...
    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2``."""
    def explain(self, lang: str = "en") -> str:
        """The ruling in plain words, English (``"en"``) or Chinese (``"zh"``)."""

class LegalMoveGenerator:
    """The legal moves of a board (a live view): iterate, ``len()``, ``in``."""
    def __iter__(self) -> Iterator[Move]: ...
    def __len__(self) -> int: ...
    def __bool__(self) -> bool: ...
    def __contains__(self, move: object) -> bool: ...
    def uci(self) -> List[str]:
        """The legal moves as ``h2e2`` strings."""

class Board:
    """A position and the moves that led to it, judged by the rules of Xiangqi."""
    def __init__(self, fen: Optional[str] = None) -> None:
        """The start position, or ``fen`` (``InvalidFenError`` if it is bad)."""
    def fen(self) -> str: ...
    def board_fen(self) -> str: ...
    def set_fen(self, fen: str) -> None: ...
    def reset(self) -> None: ...
    @property
    def turn(self) -> _Color: ...
    @property
    def halfmove_clock(self) -> int: ...
    @property
    def fullmove_number(self) -> int: ...
    def ply(self) -> int: ...
    def piece_at(self, square: _Square) -> Optional[Piece]: ...
    def piece_map(self) -> Dict[_Square, Piece]: ...
    def pieces(self, piece_type: _PieceType, color: _Color) -> List[_Square]: ...
    @property
    def legal_moves(self) -> LegalMoveGenerator: ...
    def is_legal(self, move: Move) -> bool: ...
    def is_capture(self, move: Move) -> bool: ...
    def gives_check(self, move: Move) -> bool: ...
    def push(self, move: Move) -> Move:
        """Plays a legal move (``IllegalMoveError`` otherwise)."""
    def parse_uci(self, uci: str) -> Move: ...
    def push_uci(self, uci: str) -> Move: ...
    def parse_wxf(self, wxf: str) -> Move: ...
    def push_wxf(self, wxf: str) -> Move: ...
    def parse_chinese(self, text: str) -> Move: ...
    def push_chinese(self, text: str) -> Move: ...
    def parse_move(self, text: str) -> Move:
        """A move in coordinates, WXF or Chinese notation, whichever it is."""
    def pop(self) -> Move: ...
    def peek(self) -> Move: ...
    @property
    def move_stack(self) -> List[Move]: ...
    def copy(self, *, stack: bool = True) -> "Board": ...
    def root(self) -> "Board": ...
    def is_check(self) -> bool: ...
    def checkers(self) -> List[_Square]: ...
    def is_checkmate(self) -> bool: ...
    def is_stalemate(self) -> bool: ...
    def is_game_over(
        self, repetitions: int = 3, move_limit: Optional[int] = 120, chase_rule: bool = True
    ) -> bool: ...
    def outcome(
        self, repetitions: int = 3, move_limit: Optional[int] = 120, chase_rule: bool = True
    ) -> Optional[Outcome]:
        """``None`` while the game goes on, else how it ended."""
    def explain(
        self,
        lang: str = "en",
        *,
        repetitions: int = 3,
        move_limit: Optional[int] = 120,
        chase_rule: bool = True,
    ) -> str: ...
    def uci(self, move: Move) -> str: ...
    def wxf(self, move: Move) -> str: ...
    def chinese(self, move: Move) -> str: ...
    def variation_text(self, notation: str = "wxf") -> List[str]: ...
    def zobrist_hash(self) -> int: ...
    def _repr_svg_(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> "Board": ...
    def __deepcopy__(self, memo: object) -> "Board": ...

class GameNode:
    """A node of a game's move tree (read-only)."""
    @property
    def move(self) -> Optional[Move]: ...
    @property
    def comment(self) -> str: ...
    @property
    def nags(self) -> List[int]: ...
    @property
    def variations(self) -> List["GameNode"]:
        """The moves that may follow: the main line first."""
    @property
    def parent(self) -> Optional["GameNode"]: ...
    def game(self) -> "Game": ...
    def next(self) -> Optional["GameNode"]: ...
    def end(self) -> "GameNode": ...
    def mainline(self) -> List["GameNode"]: ...
    def mainline_moves(self) -> List[Move]: ...
    def is_mainline(self) -> bool: ...
    def ply(self) -> int: ...
    def board(self) -> Board: ...
    def wxf(self) -> Optional[str]: ...
    def chinese(self) -> Optional[str]: ...

class Game(GameNode):
    """A game read from a record, or made with ``Game.from_board``."""
    @property
    def headers(self) -> Dict[str, str]: ...
    @property
    def result(self) -> str: ...
    @property
    def format(self) -> Optional[str]: ...
    @property
    def warnings(self) -> List[str]: ...
    @classmethod
    def from_board(cls, board: Board, headers: Optional[Dict[str, str]] = None) -> "Game": ...

_Source = Union[bytes, bytearray, str, "os.PathLike[str]", IO[bytes], IO[str]]

def read_games(source: _Source, *, strict: bool = False, errors: str = "raise") -> List[Game]:
    """Every game of a record in any format the Rust reader knows."""
def read_game(source: _Source, *, strict: bool = False) -> Game:
    """The first game of a record."""
def write_pgn(game: Union[Game, Iterable[Game]], notation: str = "wxf") -> str:
    """PGN text with moves in ``wxf``, ``chinese`` or ``iccs``."""

class Score:
    """A score from the point of view of ``turn``: ``cp`` centipawns or ``mate`` moves."""
    @property
    def cp(self) -> Optional[int]: ...
    @property
    def mate(self) -> Optional[int]: ...
    @property
    def turn(self) -> _Color: ...
    def is_mate(self) -> bool: ...
    def pov(self, color: _Color) -> "Score": ...
    def score(self, *, mate_score: Optional[int] = None) -> Optional[int]: ...

class PlayResult:
    """The move chosen by ``Engine.play``."""
    @property
    def move(self) -> Optional[Move]: ...
    @property
    def ponder(self) -> Optional[Move]: ...
    @property
    def info(self) -> Optional[Dict[str, object]]: ...

class Engine:
    """The project's engine, in-process."""
    def __init__(self, hash_mb: int = 16, threads: int = 1) -> None: ...
    def configure(self, options: Dict[str, object]) -> None: ...
    def options(self) -> Dict[str, object]: ...
    def analyse(
        self,
        board: Board,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        time: Optional[float] = None,
        multipv: int = 1,
    ) -> List[Dict[str, object]]:
        """One dict per line (``score``, ``pv``, ``depth``, ``nodes``, ...), best first."""
    def play(
        self,
        board: Board,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        time: Optional[float] = None,
    ) -> PlayResult: ...
    def new_game(self) -> None: ...
    def quit(self) -> None: ...
    def __enter__(self) -> "Engine": ...
    def __exit__(self, _a: object, _b: object, _c: object) -> bool: ...

_Folder = Union[str, "os.PathLike[str]"]

class MissingTableError(KeyError):
    """The position's piece set has no table in the folders opened."""

class Tablebase:
    """Endgame tablebases: values for the side to move (WDL 1/0/-1, DTM in plies)."""
    def __init__(self, directory: Union[_Folder, List[_Folder]]) -> None: ...
    def add_directory(self, directory: _Folder) -> None: ...
    def sets(self) -> List[str]: ...
    @property
    def max_pieces(self) -> int: ...
    def probe_wdl(self, board: Board) -> int: ...
    def get_wdl(self, board: Board, default: Optional[int] = None) -> Optional[int]: ...
    def probe_dtm(self, board: Board) -> int: ...
    def get_dtm(self, board: Board, default: Optional[int] = None) -> Optional[int]: ...
    def probe_rules(self, board: Board) -> str:
        """``win``, ``win-by-rule``, ``draw``, ``loss-by-rule`` or ``loss``."""
    def probe_moves(self, board: Board) -> List[Tuple[Move, int]]:
        """Every legal move with the DTM of ``board`` if it is played, best first."""
    def close(self) -> None: ...
    def __enter__(self) -> "Tablebase": ...
    def __exit__(self, _a: object, _b: object, _c: object) -> bool: ...

def open_tablebase(directory: Union[_Folder, List[_Folder]]) -> Tablebase: ...
def generate_tablebase(sets: List[str], directory: _Folder, threads: int = 1) -> List[str]: ...
