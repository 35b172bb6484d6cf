"""The project's engine, in-process (no subprocess, no UCI pipe).

>>> import xiangqi, xiangqi.engine
>>> engine = xiangqi.engine.Engine(hash_mb=16, threads=1)
>>> info = engine.analyse(xiangqi.Board(), depth=6)[0]
>>> info["pv"][0] in xiangqi.Board().legal_moves
True

``analyse`` and ``play`` release the GIL while the engine searches on its own threads, so
other Python threads go on meanwhile; Ctrl-C (``KeyboardInterrupt``) stops a search.
"""

from ._xiangqi import Engine, PlayResult, Score

__all__ = ["Engine", "PlayResult", "Score"]
