#!/usr/bin/env python3
"""FEN acceptance, Fairy-Stockfish side: checks every FEN of tests/oracle/fens.txt against
pyffish's validate_fen(fen, "xiangqi"), and that every line where our verdict (the ours
column, checked by crates/xiangqi/tests/fen_acceptance.rs) differs from Fairy-Stockfish's
names a difference documented in docs/ORACLE.md.

Exits 1 on any mismatch, printing each with its line number.
"""

import os
import sys

import pyffish as sf

import fenlist


def validate(fen):
    """pyffish's verdict, with its C++ error chatter on stderr silenced."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        return sf.validate_fen(fen, "xiangqi")
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def main():
    entries = fenlist.parse()
    docs = fenlist.documented_ids()
    problems = []
    differences = 0
    for e in entries:
        code = validate(e.fen)
        ffish_ok = code == sf.FEN_OK
        if ffish_ok != e.ffish_ok:
            problems.append(
                f"line {e.line}: pyffish says {'ok' if ffish_ok else 'err'} (code {code}), "
                f"fens.txt says {'ok' if e.ffish_ok else 'err'}: {e.fen!r}"
            )
        if e.ours_ok != e.ffish_ok:
            differences += 1
            if not e.ids:
                problems.append(
                    f"line {e.line}: ours and Fairy-Stockfish differ but no D<n> is given: {e.fen!r}"
                )
        elif e.ids:
            problems.append(
                f"line {e.line}: cites {' '.join(e.ids)} but ours and Fairy-Stockfish agree: {e.fen!r}"
            )
        for i in e.ids:
            if i not in docs:
                problems.append(f"line {e.line}: {i} is not documented in docs/ORACLE.md")
    for p in problems:
        print(p)
    print(
        f"fen acceptance (pyffish): {len(entries)} FENs, {differences} documented differences, "
        f"{len(problems)} problems"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
