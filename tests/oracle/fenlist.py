"""Reads tests/oracle/fens.txt and docs/ORACLE.md (the same rules as
crates/xiangqi/tests/fen_acceptance.rs)."""

import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
FENS = os.path.join(HERE, "fens.txt")
DOC = os.path.join(HERE, "..", "..", "docs", "ORACLE.md")

_ID = re.compile(r"^D\d+$")


class Entry:
    def __init__(self, line, fen, ours_ok, ours_msg, ffish_ok, ids, note):
        self.line = line
        self.fen = fen
        self.ours_ok = ours_ok
        self.ours_msg = ours_msg
        self.ffish_ok = ffish_ok
        self.ids = ids
        self.note = note


def unquote(s, line):
    if len(s) < 2 or not (s.startswith('"') and s.endswith('"')):
        return s
    out, i, body = [], 0, s[1:-1]
    while i < len(body):
        c = body[i]
        if c == "\\":
            nxt = body[i + 1] if i + 1 < len(body) else ""
            if nxt not in ('t', '"', "\\"):
                raise ValueError(f"fens.txt line {line}: unknown escape '\\{nxt}'")
            out.append("\t" if nxt == "t" else nxt)
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse(path=FENS):
    entries = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            text = raw.rstrip("\n")
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            cols = text.split(" | ")
            if len(cols) not in (3, 4):
                raise ValueError(f"fens.txt line {n}: {len(cols)} columns (expected 3 or 4)")
            fen = unquote(cols[0].strip(), n)
            ours = cols[1].strip()
            if ours == "ok":
                ours_ok, ours_msg = True, None
            elif ours.startswith("err: "):
                ours_ok, ours_msg = False, ours[5:]
            else:
                raise ValueError(f"fens.txt line {n}: ours column '{ours}' is not ok or err: ...")
            ffish = cols[2].strip()
            if ffish not in ("ok", "err"):
                raise ValueError(f"fens.txt line {n}: ffish column '{ffish}' is not ok or err")
            note = cols[3].strip() if len(cols) == 4 else ""
            ids = []
            for word in note.split():
                if not _ID.match(word):
                    break
                ids.append(word)
            entries.append(Entry(n, fen, ours_ok, ours_msg, ffish == "ok", ids, note))
    return entries


def documented_ids(path=DOC):
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r"^### (D\d+)\b", f.read(), re.M))
