"""The in-process engine: analysis, play, multipv, mate scores, the GIL released while it
searches, and its argument errors."""

import _thread
import threading

import pytest

import xiangqi
from xiangqi.engine import Engine, PlayResult, Score


@pytest.fixture(scope="module")
def engine():
    return Engine(hash_mb=16, threads=1)


def test_analyse_start_position(engine):
    b = xiangqi.Board()
    infos = engine.analyse(b, depth=6)
    assert len(infos) == 1
    info = infos[0]
    assert info["depth"] == 6 and info["multipv"] == 1 and info["nodes"] > 0
    assert isinstance(info["score"], Score) and info["score"].cp is not None
    assert info["score"].turn == xiangqi.RED and abs(info["score"].cp) < 300
    # The principal variation is a legal line.
    line = b.copy()
    for m in info["pv"]:
        line.push(m)
    assert len(info["pv"]) >= 2
    assert b.move_stack == []  # analysis does not change the board


def test_multipv_lines_are_distinct(engine):
    infos = engine.analyse(xiangqi.Board(), depth=5, multipv=3)
    assert [i["multipv"] for i in infos] == [1, 2, 3]
    firsts = [i["pv"][0] for i in infos]
    assert len(set(firsts)) == 3
    scores = [i["score"].cp for i in infos]
    assert scores == sorted(scores, reverse=True)


def test_mate_score_and_play(engine):
    # Red mates in one with the chariot: a0a9.
    b = xiangqi.Board("3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1")
    info = engine.analyse(b, depth=4)[0]
    assert info["score"].mate == 1 and info["score"].is_mate()
    assert info["score"].pov(xiangqi.BLACK).mate == -1
    assert info["score"].score(mate_score=100000) == 99999
    played = engine.play(b, depth=4)
    # a0a9 mates, and so does a0d0 (the black general cannot step to e9, facing Red's).
    assert isinstance(played, PlayResult) and played.move.uci() in ("a0a9", "a0d0")
    b.push(played.move)
    assert b.is_checkmate()
    # No legal move: one line with no moves, scored as mated now, and no move to play.
    (info,) = engine.analyse(b, depth=3)
    assert info["pv"] == [] and info["score"].mate == 0 and info["score"].turn == xiangqi.BLACK
    assert engine.play(b, depth=3).move is None


def test_limits_nodes_and_time(engine):
    b = xiangqi.Board()
    b.push_uci("h2e2")
    r = engine.play(b, nodes=5000)
    assert r.move in b.legal_moves
    r = engine.play(b, time=0.05)
    assert r.move in b.legal_moves
    assert engine.analyse(b, time=0.05)[0]["time"] >= 0


def test_search_releases_the_gil(engine):
    """While one thread analyses, this thread keeps running Python code."""
    done = threading.Event()
    result = {}

    def search():
        result["infos"] = engine.analyse(xiangqi.Board(), time=1.0)
        done.set()

    t = threading.Thread(target=search)
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        sum(range(1000))
    t.join()
    assert result["infos"] and ticks > 50, ticks


def test_keyboard_interrupt_stops_a_search(engine):
    """Ctrl-C during a long search raises KeyboardInterrupt at once; the engine still works."""
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            engine.analyse(xiangqi.Board(), time=60)
    finally:
        timer.cancel()
    assert engine.play(xiangqi.Board(), depth=3).move in xiangqi.Board().legal_moves


def test_engine_errors():
    e = Engine(hash_mb=1)
    b = xiangqi.Board()
    with pytest.raises(ValueError, match="give a limit"):
        e.analyse(b)
    with pytest.raises(ValueError, match="multipv"):
        e.analyse(b, depth=2, multipv=0)
    with pytest.raises(ValueError, match="time"):
        e.play(b, time=-1)
    with pytest.raises(ValueError, match="depth must be 1..110, got 0"):
        e.play(b, depth=0)
    with pytest.raises(ValueError, match="depth must be 1..110, got 111"):
        e.analyse(b, depth=111)
    with pytest.raises(ValueError, match="hash_mb"):
        Engine(hash_mb=0)
    with pytest.raises(ValueError, match="no such option"):
        e.configure({"Contempt": 3})
    e.configure({"Skill Level": 5})
    assert e.options()["Skill Level"] == 5
    with Engine() as e2:
        assert e2.play(b, depth=2).move in b.legal_moves


def test_threads_and_positional_limits():
    e = Engine(hash_mb=8, threads=2)
    b = xiangqi.Board()
    b.push_uci("h2e2")
    infos = e.analyse(b, 5)  # depth, as analyse(board, depth=None, nodes=None, time=None, multipv=1)
    assert infos[0]["depth"] == 5 and infos[0]["pv"][0] in b.legal_moves
    assert e.options()["Threads"] == 2
    assert e.play(b, None, 3000).move in b.legal_moves
