"""Typed use of the package: tests/test_typing.py checks it with mypy --strict."""

import xiangqi
import xiangqi.engine
import xiangqi.svg
import xiangqi.tablebase

b: xiangqi.Board = xiangqi.Board()
m: xiangqi.Move = b.push_uci("h2e2")
sq: int = m.to_square + xiangqi.E0
o = b.outcome()
if o is not None:
    text: str = o.explain(lang="zh")
games = xiangqi.read_games(b"[Event \"x\"]\n\n1. h2e2 *\n")
moves = games[0].mainline_moves()
info = xiangqi.engine.Engine().analyse(b, depth=2)[0]
svg: str = xiangqi.svg.board(b, lastmove=m)
import tempfile
from typing import List, Optional

folder: str = tempfile.mkdtemp()
made: List[str] = xiangqi.tablebase.generate_tablebase(["KRK"], folder)
with xiangqi.tablebase.open_tablebase(folder) as tb:
    krk = xiangqi.Board("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")
    dtm: int = tb.probe_dtm(krk)
    best: xiangqi.Move = tb.probe_moves(krk)[0][0]
    wdl: Optional[int] = tb.get_wdl(b)
print(len(b.legal_moves), sq, moves, info["score"], len(svg), made, dtm, best, wdl)
