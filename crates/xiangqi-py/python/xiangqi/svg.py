"""Boards as SVG pictures, for Jupyter and web pages.

>>> import xiangqi, xiangqi.svg
>>> board = xiangqi.Board()
>>> move = board.push_uci("h2e2")
>>> picture = xiangqi.svg.board(board, lastmove=move, arrows=[(xiangqi.H9, xiangqi.G7)])
>>> picture.startswith("<svg")
True

``Board._repr_svg_`` uses this, so a board shows itself as a picture in a notebook.
"""

from typing import Iterable, Optional, Sequence, Tuple, Union

from ._xiangqi import Board, Move

__all__ = ["board", "Svg"]

_CHINESE = {
    "K": "帅", "A": "仕", "B": "相", "N": "马", "R": "车", "C": "炮", "P": "兵",
    "k": "将", "a": "士", "b": "象", "n": "马", "r": "车", "c": "炮", "p": "卒",
}
_FILES = "abcdefghi"

Arrow = Union[Move, Tuple[int, int], Sequence[int]]


class Svg(str):
    """SVG text that Jupyter shows as a picture."""

    def _repr_svg_(self) -> str:
        return str(self)


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def board(
    board: Optional[Board] = None,
    *,
    lastmove: Optional[Move] = None,
    arrows: Iterable[Arrow] = (),
    size: int = 400,
    flipped: bool = False,
    coordinates: bool = True,
) -> Svg:
    """The board as SVG: lines, river, palaces and pieces (Chinese characters, Red in red).

    ``board`` ``None`` draws an empty board. ``lastmove`` marks its two points; ``arrows``
    are ``Move`` objects or ``(from_square, to_square)`` pairs. ``flipped`` puts Black at the
    bottom; ``coordinates`` writes the files a-i and ranks 0-9 in the margin. ``size`` is the
    width in pixels.
    """
    cell = 40.0
    margin = 36.0
    width = margin * 2 + cell * 8
    height = margin * 2 + cell * 9
    scale = size / width

    def xy(square: int) -> Tuple[float, float]:
        file, rank = square % 9, square // 9
        if flipped:
            file, rank = 8 - file, 9 - rank
        return margin + file * cell, margin + (9 - rank) * cell

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" '
        f'width="{size:g}" height="{height * scale:g}" viewBox="0 0 {width:g} {height:g}">',
        "<defs>",
        '<marker id="arrowhead" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="4" '
        'markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#15781b" '
        'fill-opacity="0.8"/></marker>',
        "</defs>",
        f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="#f0d9a8"/>',
    ]
    left, right = margin, margin + 8 * cell
    top, bottom = margin, margin + 9 * cell
    lines = []
    for r in range(10):
        y = margin + r * cell
        lines.append(f'<line x1="{left:g}" y1="{y:g}" x2="{right:g}" y2="{y:g}"/>')
    for f in range(9):
        x = margin + f * cell
        if f in (0, 8):
            lines.append(f'<line x1="{x:g}" y1="{top:g}" x2="{x:g}" y2="{bottom:g}"/>')
        else:
            lines.append(f'<line x1="{x:g}" y1="{top:g}" x2="{x:g}" y2="{top + 4 * cell:g}"/>')
            lines.append(f'<line x1="{x:g}" y1="{top + 5 * cell:g}" x2="{x:g}" y2="{bottom:g}"/>')
    for y0 in (top, top + 7 * cell):
        x0, x1 = margin + 3 * cell, margin + 5 * cell
        lines.append(f'<line x1="{x0:g}" y1="{y0:g}" x2="{x1:g}" y2="{y0 + 2 * cell:g}"/>')
        lines.append(f'<line x1="{x1:g}" y1="{y0:g}" x2="{x0:g}" y2="{y0 + 2 * cell:g}"/>')
    out.append('<g stroke="#5b3a1a" stroke-width="1.2">' + "".join(lines) + "</g>")
    out.append(
        f'<rect x="{left - 3:g}" y="{top - 3:g}" width="{8 * cell + 6:g}" height="{9 * cell + 6:g}" '
        'fill="none" stroke="#5b3a1a" stroke-width="2"/>'
    )
    river_y = top + 4.5 * cell
    out.append(
        f'<text x="{margin + 2 * cell:g}" y="{river_y:g}" font-size="{cell * 0.5:g}" fill="#5b3a1a" '
        f'text-anchor="middle" dominant-baseline="central">楚 河</text>'
        f'<text x="{margin + 6 * cell:g}" y="{river_y:g}" font-size="{cell * 0.5:g}" fill="#5b3a1a" '
        f'text-anchor="middle" dominant-baseline="central">漢 界</text>'
    )
    if coordinates:
        for f in range(9):
            x = margin + f * cell
            name = _FILES[8 - f] if flipped else _FILES[f]
            out.append(
                f'<text x="{x:g}" y="{height - 5:g}" font-size="12" fill="#5b3a1a" '
                f'text-anchor="middle">{name}</text>'
            )
        for r in range(10):
            y = margin + r * cell
            name = str(r) if flipped else str(9 - r)
            out.append(
                f'<text x="9" y="{y:g}" font-size="12" fill="#5b3a1a" text-anchor="middle" '
                f'dominant-baseline="central">{name}</text>'
            )
    if lastmove is not None:
        for sq in (lastmove.from_square, lastmove.to_square):
            x, y = xy(sq)
            h = cell * 0.5
            out.append(
                f'<rect class="lastmove" x="{x - h:g}" y="{y - h:g}" width="{cell:g}" height="{cell:g}" '
                'fill="#cdd26a" fill-opacity="0.6"/>'
            )
    if board is not None:
        for sq, piece in sorted(board.piece_map().items()):
            x, y = xy(sq)
            red = piece.color
            colour = "#c0392b" if red else "#1a1a1a"
            symbol = piece.symbol()
            out.append(
                f'<g class="piece {symbol}"><circle cx="{x:g}" cy="{y:g}" r="{cell * 0.44:g}" '
                f'fill="#fbeed5" stroke="{colour}" stroke-width="2"/>'
                f'<text x="{x:g}" y="{y:g}" font-size="{cell * 0.5:g}" fill="{colour}" '
                'text-anchor="middle" dominant-baseline="central" '
                'font-family="Noto Serif CJK SC, Noto Sans CJK SC, serif">'
                f"{_escape(_CHINESE[symbol])}</text></g>"
            )
    for arrow in arrows:
        if isinstance(arrow, Move):
            a, b = arrow.from_square, arrow.to_square
        else:
            a, b = arrow
        (x0, y0), (x1, y1) = xy(int(a)), xy(int(b))
        out.append(
            f'<line class="arrow" x1="{x0:g}" y1="{y0:g}" x2="{x1:g}" y2="{y1:g}" stroke="#15781b" '
            'stroke-opacity="0.8" stroke-width="6" stroke-linecap="round" marker-end="url(#arrowhead)"/>'
        )
    out.append("</svg>")
    return Svg("".join(out))
