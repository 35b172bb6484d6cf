"""Typed use of the package: tests/test_typing.py checks it with mypy --strict."""

import xiangqi
import xiangqi.engine
import xiangqi.svg

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
print(len(b.legal_moves), sq, moves, info["score"], len(svg))
