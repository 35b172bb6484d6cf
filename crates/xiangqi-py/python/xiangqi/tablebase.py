"""Endgame tablebases made by ``xiangqi tb generate`` (or ``generate_tablebase``), probed in
the style of python-chess's ``chess.gaviota``: values for the side to move, WDL as 1/0/-1 and
DTM in plies (positive: the side to move mates), ``probe_*`` raising ``MissingTableError``
(a ``KeyError``) for a set without a table and ``get_*`` returning a default instead.

>>> import tempfile, xiangqi, xiangqi.tablebase
>>> folder = tempfile.mkdtemp()
>>> xiangqi.tablebase.generate_tablebase(["KRK"], folder)
['KRK']
>>> with xiangqi.tablebase.open_tablebase(folder) as tb:
...     board = xiangqi.Board("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")
...     tb.probe_wdl(board), tb.probe_dtm(board), tb.probe_rules(board)
(1, 1, 'win')

Repetition counts as a draw in ``probe_wdl``/``probe_dtm``; ``probe_rules`` also applies the
Asian rule on perpetual check (``"win-by-rule"``, ``"loss-by-rule"``: docs/TABLEBASES.md).
"""

from ._xiangqi import MissingTableError, Tablebase, generate_tablebase, open_tablebase

__all__ = ["MissingTableError", "Tablebase", "generate_tablebase", "open_tablebase"]
