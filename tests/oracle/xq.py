"""A small, independent model of a Xiangqi placement for the oracle scripts.

It only holds pieces, reads and writes FEN placements, applies moves and knows which points a
piece may ever stand on. It never decides legality: that is what Fairy-Stockfish (pyffish) is
asked for. Squares are numbered like the Rust core: index = rank * 9 + file, Red at rank 0.
"""

import re

FILES = "abcdefghi"
VARIANT = "xiangqi"
START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
# How many of each role a side starts with (and so may have at most).
MAX_COUNT = {"k": 1, "a": 2, "b": 2, "n": 2, "r": 2, "c": 2, "p": 5}
ROLES = "kabnrcp"
SYNONYMS = {"e": "b", "h": "n"}


def sq(file, rank):
    return rank * 9 + file


def file_of(s):
    return s % 9


def rank_of(s):
    return s // 9


def name(s):
    return f"{FILES[file_of(s)]}{rank_of(s)}"


def is_red(piece):
    return piece.isupper()


def relative_rank(piece, s):
    """The rank counted from the piece's own side (0 = its back rank)."""
    return rank_of(s) if is_red(piece) else 9 - rank_of(s)


def can_stand_on(piece, s):
    """Whether the piece can ever stand on square s (RULES.md §2 movement limits)."""
    role = piece.lower()
    f, rel = file_of(s), relative_rank(piece, s)
    in_palace = 3 <= f <= 5 and rel <= 2
    if role == "k":
        return in_palace
    if role == "a":
        return (f, rel) in {(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)}
    if role == "b":
        return (f, rel) in {(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)}
    if role == "p":
        return rel >= 5 or (rel in (3, 4) and f % 2 == 0)
    return True


def standable(piece):
    return [s for s in range(90) if can_stand_on(piece, s)]


class Board:
    """90 points, each None or a FEN letter (upper case Red)."""

    def __init__(self, cells=None):
        self.cells = list(cells) if cells is not None else [None] * 90

    def copy(self):
        return Board(self.cells)

    @staticmethod
    def from_placement(placement):
        rows = placement.split("/")
        if len(rows) != 10:
            raise ValueError(f"placement has {len(rows)} ranks: {placement!r}")
        b = Board()
        for i, row in enumerate(rows):
            rank = 9 - i
            f = 0
            for c in row:
                if c.isdigit():
                    f += int(c)
                else:
                    letter = SYNONYMS.get(c.lower(), c.lower())
                    if letter not in ROLES or f >= 9:
                        raise ValueError(f"bad placement {placement!r}")
                    b.cells[sq(f, rank)] = letter.upper() if c.isupper() else letter
                    f += 1
            if f != 9:
                raise ValueError(f"rank {rank} has {f} files in {placement!r}")
        return b

    def placement(self):
        out = []
        for rank in range(9, -1, -1):
            row, empty = "", 0
            for f in range(9):
                p = self.cells[sq(f, rank)]
                if p is None:
                    empty += 1
                else:
                    if empty:
                        row += str(empty)
                        empty = 0
                    row += p
            if empty:
                row += str(empty)
            out.append(row)
        return "/".join(out)

    def fen(self, red_to_move):
        return f"{self.placement()} {'w' if red_to_move else 'b'} - - 0 1"

    def general(self, red):
        k = "K" if red else "k"
        for s, p in enumerate(self.cells):
            if p == k:
                return s
        return None

    def count(self, piece):
        return sum(1 for p in self.cells if p == piece)

    def pieces(self):
        return sum(1 for p in self.cells if p is not None)

    def between_on_file(self, a, b):
        """The occupied points strictly between a and b (same file)."""
        lo, hi = sorted((rank_of(a), rank_of(b)))
        f = file_of(a)
        return [sq(f, r) for r in range(lo + 1, hi) if self.cells[sq(f, r)] is not None]

    def generals_facing(self):
        r, b = self.general(True), self.general(False)
        return (
            r is not None
            and b is not None
            and file_of(r) == file_of(b)
            and not self.between_on_file(r, b)
        )

    def play(self, frm, to):
        """Moves the piece on frm to to; returns the captured piece or None."""
        captured = self.cells[to]
        self.cells[to] = self.cells[frm]
        self.cells[frm] = None
        return captured


_FSF_MOVE = re.compile(r"^([a-i])(10|[1-9])([a-i])(10|[1-9])$")


def parse_fsf_move(m):
    """Fairy-Stockfish UCI move (ranks 1-10) -> (from, to) square indices."""
    g = _FSF_MOVE.match(m)
    if not g:
        raise ValueError(f"unexpected Fairy-Stockfish move {m!r}")
    return (
        sq(FILES.index(g.group(1)), int(g.group(2)) - 1),
        sq(FILES.index(g.group(3)), int(g.group(4)) - 1),
    )


def fsf_to_ours(m):
    """'b3b10' (Fairy-Stockfish, ranks 1-10) -> 'b2b9' (ours, ranks 0-9)."""
    frm, to = parse_fsf_move(m)
    return name(frm) + name(to)
