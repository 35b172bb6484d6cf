# DhtmlXQ writing against the cchess library (docs/RECORDS.md): every record file given is
# converted with `xiangqi convert --to dhtmlxq` and `--notation iccs`; cchess's read_from_txt
# (which reads DhtmlXQ's movelist and binit digits, checking each move's legality) must give
# the main line xiangqi writes as ICCS PGN, for at most 40 games a file.
# Usage: python dhtmlxq_cchess.py PATH/TO/xiangqi FILE...
import re
import subprocess
import sys
from cchess.read_txt import read_from_txt
xq = sys.argv[1]
files = sys.argv[2:]
games = agree = 0
for f in files:
    d = subprocess.run([xq, 'convert', f, '--to', 'dhtmlxq'], capture_output=True, text=True).stdout
    p = subprocess.run([xq, 'convert', f, '--notation', 'iccs'], capture_output=True, text=True).stdout
    blocks = d.split('[/DhtmlXQ]')[:-1]
    pgns = [g for g in re.split(r'\n\n(?=\[)', p.strip()) if g.strip()]
    for k, b in enumerate(blocks[:40]):
        ml = re.search(r'\[DhtmlXQ_movelist\](\d*)\[/DhtmlXQ_movelist\]', b).group(1)
        bi = re.search(r'\[DhtmlXQ_binit\](\d+)\[/DhtmlXQ_binit\]', b)
        g = read_from_txt(ml, bi.group(1) if bi else None)
        cc = [m.replace('-', '').lower() for m in (g.dump_iccs_moves() or [[]])[0]]
        ours = [ml[i:i+4] for i in range(0, len(ml), 4)]
        # ours as ICCS from the PGN text: moves are lowercase tokens like h2e2
        text = pgns[k].split('\n\n', 1)[-1] if k < len(pgns) else ''
        text = re.sub(r'\{[^}]*\}', ' ', text)
        while re.search(r'\([^()]*\)', text):
            text = re.sub(r'\([^()]*\)', ' ', text)
        mv = re.findall(r'\b[a-i][0-9][a-i][0-9]\b', text)
        games += 1
        if cc == mv:
            agree += 1
        else:
            print('DIFFER', f, k + 1, cc[:6], mv[:6])
print(f'dhtmlxq/cchess: {agree} of {games} games: cchess reads the written movelist/binit '
      'to the same main line')
sys.exit(0 if games > 0 and agree == games else 1)
