#!/usr/bin/env python3
"""Random FENs for a fresh FEN-acceptance comparison (run by run.sh).

Writes one FEN a line:

    "FEN" | ffish | rules

  ffish  ok or err: pyffish's validate_fen(fen, "xiangqi"); - when not asked (see
         unsafe_for_pyffish)
  rules  ok or err when the FEN is a well-formed placement whose legality under RULES.md §7
         is known (piece counts, the points each piece can reach and generals facing judged by
         xq.py, the side not to move in check judged by pyffish), ? for the string mutations

Two halves: random placements (pieces anywhere, sometimes too many, generals missing or
doubled, either side to move), and character-level mutations of valid FENs (a character
deleted, inserted, replaced or doubled; a field dropped, doubled or changed; whitespace). Each FEN with irregular whitespace (not single spaces between
fields) is followed, at the end of the file, by the same FEN with single spaces, if not there
already, so that D5 is judged as the only difference or not.
crates/xiangqi/tests/fen_acceptance.rs (env XIANGQI_ORACLE_FEN_FUZZ) checks that our reader
agrees with the rules column and that every disagreement with Fairy-Stockfish is one of the
documented differences of docs/ORACLE.md.
"""

import argparse
import json
import os
import random
import sys

import pyffish as sf

import xq

ALPHABET = "KABNRCPEHkabnrcpeh0123456789/ -wbrWBRx+.\tQq"
START = xq.START_FEN


# pyffish 0.0.90's validate_fen writes out of bounds (heap corruption, found with valgrind) when a
# rank places a piece beyond the ninth file, e.g. rank "97NP" (97 empty points, then pieces) or
# "3a7k4" (the k on the twelfth file): it fills its board before checking the rank's width. Such
# FENs are not given to it: their ffish column is "-" (not asked), and only our side is checked.


def unsafe_for_pyffish(fen):
    """Whether some rank puts a character beyond the ninth file, counting digit runs as
    Fairy-Stockfish does (a multi-digit number is one run). Every field is looked at, split at
    spaces (a tab then stays inside its field and counts as a character, so "RNBAKABNR\\tw" is
    too wide) and split at any whitespace (so that leading whitespace, " \\t6b2/4k4/3a13N/...",
    cannot hide the board): which text pyffish takes for the board is its own affair."""
    fields = fen.split(" ") + fen.split()
    for rank in (r for field in fields for r in field.split("/")):
        files, run = 0, ""
        for c in rank:
            if c.isdigit():
                run += c
                continue
            if run:
                files += int(run)
                run = ""
            if files >= 9:
                return True
            files += 1
    return False


def quiet_validate(fen):
    """pyffish's verdict (True/False), or None for a FEN it is not safe to give it."""
    if unsafe_for_pyffish(fen):
        return None
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        return sf.validate_fen(fen, xq.VARIANT) == sf.FEN_OK
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def rules_verdict(board, red):
    """Legal under RULES.md §7? (xq.py for the placement rules, pyffish for the check.)"""
    for role, most in xq.MAX_COUNT.items():
        for piece in (role.upper(), role):
            if board.count(piece) > most:
                return False
    if board.general(True) is None or board.general(False) is None:
        return False
    for s, p in enumerate(board.cells):
        if p is not None and not xq.can_stand_on(p, s):
            return False
    if board.generals_facing():
        return False
    return not sf.gives_check(xq.VARIANT, board.fen(not red), [])


def random_board(rng):
    b = xq.Board()
    anywhere = rng.random() < 0.3
    for red in (True, False):
        k = "K" if red else "k"
        n = rng.choices([0, 1, 2], weights=[1, 18, 1])[0]
        for _ in range(n):
            spots = [s for s in (range(90) if anywhere else xq.standable(k)) if b.cells[s] is None]
            b.cells[rng.choice(spots)] = k
    for _ in range(rng.randint(0, 14)):
        red = rng.random() < 0.5
        role = rng.choice("abnrcp")
        piece = role.upper() if red else role
        if b.count(piece) >= xq.MAX_COUNT[role] and rng.random() < 0.8:
            continue
        spots = range(90) if rng.random() < 0.15 else xq.standable(piece)
        free = [s for s in spots if b.cells[s] is None]
        if free:
            b.cells[rng.choice(free)] = piece
    return b


def mutate(rng, fen):
    fields = fen.split(" ")
    what = rng.randrange(9)
    if what == 0 and fen:  # delete a character
        i = rng.randrange(len(fen))
        return fen[:i] + fen[i + 1 :]
    if what == 1:  # insert a character
        i = rng.randrange(len(fen) + 1)
        return fen[:i] + rng.choice(ALPHABET) + fen[i:]
    if what == 2 and fen:  # replace a character
        i = rng.randrange(len(fen))
        return fen[:i] + rng.choice(ALPHABET) + fen[i + 1 :]
    if what == 3 and fen:  # double a character
        i = rng.randrange(len(fen))
        return fen[:i] + fen[i] + fen[i:]
    if what == 4:  # drop a field
        del fields[rng.randrange(len(fields))]
        return " ".join(fields)
    if what == 5:  # double a field
        i = rng.randrange(len(fields))
        fields.insert(i, fields[i])
        return " ".join(fields)
    if what == 6:  # a field replaced
        i = rng.randrange(1, len(fields)) if len(fields) > 1 else 0
        fields[i] = rng.choice(["w", "b", "r", "W", "B", "R", "-", "x", "0", "1", "-1", "+2", "07",
                                "4294967296", "99999999999", "k", "a3", "", "1.0"])
        return " ".join(fields)
    if what == 7:  # whitespace
        sep = rng.choice(["  ", "\t", " \t", "\n"])
        i = rng.randrange(len(fields))
        return sep.join(fields[: i + 1]) if rng.random() < 0.3 else " ".join(fields[:i]) + sep + " ".join(fields[i:])
    # swap two adjacent characters
    if len(fen) > 1:
        i = rng.randrange(len(fen) - 1)
        return fen[:i] + fen[i + 1] + fen[i] + fen[i + 2 :]
    return fen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=4000, help="FENs of each half (default 4000)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = random.Random(f"{a.seed}:fens")
    rows = []
    bases = [START]
    for _ in range(a.count):
        b = random_board(rng)
        red = rng.random() < 0.5
        fen = b.fen(red)
        verdict = rules_verdict(b, red)
        rows.append((fen, quiet_validate(fen), "ok" if verdict else "err"))
        if verdict:
            bases.append(fen)
    for _ in range(a.count):
        fen = rng.choice(bases)
        for _ in range(rng.choice([1, 1, 2])):
            fen = mutate(rng, fen)
        rows.append((fen, quiet_validate(fen), "?"))
    # Every FEN with irregular whitespace also with single spaces, so that the Rust side can
    # tell whether the whitespace is the only difference with pyffish (D5) or not.
    seen = {r[0] for r in rows}
    for fen, _, _ in list(rows):
        normalised = " ".join(fen.split())
        if normalised not in seen and fen != normalised + " ":
            seen.add(normalised)
            rows.append((normalised, quiet_validate(normalised), "?"))
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(f"# FEN acceptance fuzz, seed {a.seed}: FEN (JSON string) | pyffish | RULES.md verdict\n")
        for fen, ffish, rules in rows:
            verdict = "-" if ffish is None else "ok" if ffish else "err"
            f.write(f"{json.dumps(fen)} | {verdict} | {rules}\n")
    valid = sum(1 for r in rows if r[2] == "ok")
    skipped = sum(1 for r in rows if r[1] is None)
    print(
        f"fen fuzz: seed {a.seed}, wrote {len(rows)} FENs to {a.out} ({valid} legal placements, "
        f"{skipped} not given to pyffish)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
