"""Writes cchess-trees.txt: the move tree of every XQF, CBR and CBL game in shared/data/records
as the Python `cchess` library (walker8088/cchess, run beside the project, never a dependency)
reads it, one game a line: `<file>[#<game>] <tree>`, where a tree is the comma-separated list
of the moves that may follow (main move first), each written `<iccs>[*](<tree after it>)`,
`*` marking a move with a comment.

    python3 -m venv .venv && .venv/bin/pip install cchess==1.25.5
    .venv/bin/python crates/xiangqi-record/tests/data/cchess_trees.py ../shared/data/records \
        > crates/xiangqi-record/tests/data/cchess-trees.txt
"""
import glob
import os
import sys

from cchess.read_cbr import read_from_cbl, read_from_cbr
from cchess.read_xqf import read_from_xqf

sys.setrecursionlimit(100000)


def tree(children):
    return ','.join(
        c.to_iccs() + ('*' if c.annote else '') + '(' + tree(c.get_children()) + ')'
        for c in children)


def first_moves(game):
    return [] if game.first_move is None else game.first_move.get_siblings(include_me=True)


def main(records):
    for path in sorted(glob.glob(os.path.join(records, 'xqf', '*.xqf'))):
        print(os.path.basename(path), tree(first_moves(read_from_xqf(path))))
    for path in sorted(glob.glob(os.path.join(records, 'other', '*.cbr'))):
        print(os.path.basename(path), tree(first_moves(read_from_cbr(path))))
    for path in sorted(glob.glob(os.path.join(records, 'other', '*.cbl'))):
        for i, game in enumerate(read_from_cbl(path)['games']):
            print('%s#%d' % (os.path.basename(path), i + 1), tree(first_moves(game)))


if __name__ == '__main__':
    main(sys.argv[1])
