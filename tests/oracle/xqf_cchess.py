# XQF writing against the cchess library (docs/RECORDS.md): every record file given is
# converted with `xiangqi convert --to xqf -o DIR` (one file a game); cchess's read_from_xqf
# (which reads XQF 1.0's pieces and move tree, checking each move's legality) must give, for
# at most 40 games a file, the main line, the result and the names that xiangqi reads back
# from the same file (`xiangqi convert FILE.xqf --notation iccs`), and as many variations as
# the file's records say (cchess counts the main line as one). (tests/write_xqf.rs checks
# that xiangqi reads back what was written.)
# Usage: python xqf_cchess.py PATH/TO/xiangqi FILE...
import os
import re
import subprocess
import sys
import tempfile
from cchess.read_xqf import read_from_xqf

sys.setrecursionlimit(20000)  # cchess reads the move tree recursively, a level a move
xq = sys.argv[1]
files = sys.argv[2:]
games = agree = 0


def alternatives(data):
    """The records with an 'alternative follows' flag in an XQF 1.0 move area."""
    pos, n = 0x400, 0
    while pos + 8 <= len(data):
        if pos > 0x400 and data[pos + 2] & 0x0F:
            n += 1
        length = int.from_bytes(data[pos + 4:pos + 8], 'little')
        pos += 8 + length
    return n


def ours(path):
    p = subprocess.run([xq, 'convert', path, '--notation', 'iccs'],
                       capture_output=True, text=True).stdout
    tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', p, re.M))
    text = p.split('\n\n', 1)[-1]
    text = re.sub(r'\{[^}]*\}', ' ', text)
    while re.search(r'\([^()]*\)', text):
        text = re.sub(r'\([^()]*\)', ' ', text)
    return re.findall(r'\b[a-i][0-9][a-i][0-9]\b', text), tags


with tempfile.TemporaryDirectory() as tmp:
    for i, f in enumerate(files):
        out = os.path.join(tmp, str(i))
        os.mkdir(out)
        subprocess.run([xq, 'convert', f, '--to', 'xqf', '-o', out], capture_output=True)
        for name in sorted(os.listdir(out))[:40]:
            path = os.path.join(out, name)
            g = read_from_xqf(path)
            cc = [m.replace('-', '').lower() for m in (g.dump_iccs_moves() or [[]])[0]]
            mv, tags = ours(path)
            with open(path, 'rb') as fh:
                alts = alternatives(fh.read())
            got = (cc, g.info.get('result'), g.info.get('red'), g.info.get('black'),
                   g.info.get('event'), g.info.get('branchs', 0))
            want = (mv, tags.get('Result'), tags.get('Red'), tags.get('Black'),
                    tags.get('Event'), alts + 1)
            games += 1
            if got == want:
                agree += 1
            else:
                print('DIFFER', f, name, [(a, b) for a, b in zip(got, want) if a != b][:3])
print(f'xqf/cchess: {agree} of {games} games: cchess reads the written XQF to the same main '
      'line, result, names and number of variations')
sys.exit(0 if games > 0 and agree == games else 1)
