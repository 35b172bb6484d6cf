#!/usr/bin/env python3
"""Makes the CBL test files of issue #18 (run from this folder; the files are committed):

* plain.cbl: a CCBridge library ("CCBridgeLibrary\\0", its name as UTF-16LE at byte 64) of
  three games, each a version-2 CBR record in its own 4096-byte slot;
* compressed.cbl: the same library as CCBridge writes it compressed: "CCBridge", a u32 with
  the body's uncompressed length, then the zlib-compressed library;
* empty-record.cbl: the library with its second record's board empty (no pieces).
"""
import struct
import zlib

REC_MAGIC = b"CCBridge Record\0"
LIB_MAGIC = b"CCBridgeLibrary\0"


def utf16(s, size):
    b = s.encode("utf-16-le") + b"\0\0"
    return b + b"\0" * (size - len(b))


def record(title, moves, empty=False):
    f = bytearray(2214)
    f[:16] = REC_MAGIC
    f[19] = 2
    f[180:180 + 64] = utf16(title, 64)
    f[2076] = 1  # Red wins
    f[2112] = 1
    if not empty:
        top = [0x21, 0x22, 0x23, 0x24, 0x25, 0x24, 0x23, 0x22, 0x21]
        b = 2120
        f[b:b + 9] = bytes(top)
        f[b + 2 * 9 + 1] = f[b + 2 * 9 + 7] = 0x26
        for c in range(0, 9, 2):
            f[b + 3 * 9 + c] = 0x27
            f[b + 6 * 9 + c] = 0x17
        f[b + 7 * 9 + 1] = f[b + 7 * 9 + 7] = 0x16
        for i, p in enumerate(top):
            f[b + 81 + i] = p - 0x10
    f += bytes(4)  # the start position's record
    for fl, a, z in moves:
        f += bytes([fl, 0, a, z])
    return bytes(f)


def library(records):
    lib = bytearray(4096)
    lib[:16] = LIB_MAGIC
    lib[64:64 + 128] = utf16("issue 18 library", 128)
    for r in records:
        slot = bytearray(4096)
        slot[:len(r)] = r
        lib += slot
    return bytes(lib)


# h2e2 (70 -> 67), h9g7 (7 -> 24); h0g2 (88 -> 69), h9g7; c3c4 (56 -> 47).
games = [
    record("game one", [(0, 70, 67), (1, 7, 24)]),
    record("game two", [(0, 88, 69), (1, 7, 24)]),
    record("game three", [(1, 56, 47)]),
]
plain = library(games)
open("plain.cbl", "wb").write(plain)
open("compressed.cbl", "wb").write(b"CCBridge" + struct.pack("<I", len(plain)) + zlib.compress(plain, 9))
games[1] = record("empty", [], empty=True)
open("empty-record.cbl", "wb").write(library(games))
