#!/usr/bin/env python3
"""Fits the win-probability curve of docs/REVIEW.md to engine games.

Reads PGN written by `xiangqi match` (each move's comment starts with the mover's score in
pawns, `+0.35/12 0.412s`, or `+M5`); every scored position with |cp| <= 1000 after the first
ten plies is a sample (Red's view) with the game's result (1, 1/2, 0 for Red). Fits Red's
expected score E = 1 / (1 + exp(-k cp)) by maximum likelihood (Newton's method on k), and the
two-parameter E = 1 / (1 + exp(-(k cp + a))) for comparison. Plain Python 3, no packages.

usage: python3 docs/review/fit.py GAMES.pgn[.gz] ...
"""
import gzip
import math
import re
import sys

def games(text):
    for block in re.split(r'\n(?=\[Event )', text):
        res = re.search(r'\[Result "([^"]+)"\]', block)
        if not res or res.group(1) not in ('1-0', '0-1', '1/2-1/2'):
            continue
        y = {'1-0': 1.0, '0-1': 0.0, '1/2-1/2': 0.5}[res.group(1)]
        fen = re.search(r'\[FEN "[^ "]+ ([wb])', block)
        nodes = [re.search(r'\[%sTimeControl "nodes=(\d+)"\]' % c, block) for c in ('Red', 'Black')]
        strength = 0
        if all(nodes):
            r, b = (int(n.group(1)) for n in nodes)
            strength = (r > b) - (r < b)
        black_first = 1 if fen and fen.group(1) == 'b' else 0
        body = block[block.rfind(']') + 1:]
        yield y, black_first, strength, re.findall(r'\{([^}]*)\}', body)

def samples(text):
    out = []
    for y, black_first, strength, comments in games(text):
        for ply, c in enumerate(comments):
            m = re.match(r'\s*([+-]?\d+\.\d+)/\d+', c)
            if not m or ply < 10:
                continue
            cp = round(float(m.group(1)) * 100)
            if (ply + black_first) % 2 == 1:  # Black's move: its score is from Black's view
                cp = -cp
            if abs(cp) <= 1000:
                out.append((cp, y, strength))
    return out

def loglik(data, k, a=0.0):
    s = 0.0
    for cp, y, _ in data:
        p = 1 / (1 + math.exp(-(k * cp + a)))
        p = min(max(p, 1e-12), 1 - 1e-12)
        s += y * math.log(p) + (1 - y) * math.log(1 - p)
    return s

def fit_k(data):
    k = 0.004
    for _ in range(50):
        g = h = 0.0
        for cp, y, _ in data:
            p = 1 / (1 + math.exp(-k * cp))
            g += (y - p) * cp
            h -= p * (1 - p) * cp * cp
        step = g / h
        k -= step
        if abs(step) < 1e-10:
            break
    return k

def fit_ka(data, feature=lambda s: 1.0):
    """k and a in E = 1 / (1 + exp(-(k cp + a f))) with f = feature(strength): 1 fits an
    offset (Red's first move), the strength sign fits the stronger engine's edge."""
    k, a = 0.004, 0.0
    for _ in range(100):
        gk = ga = hkk = hka = haa = 0.0
        for cp, y, st in data:
            f = feature(st)
            p = 1 / (1 + math.exp(-(k * cp + a * f)))
            w = p * (1 - p)
            gk += (y - p) * cp
            ga += (y - p) * f
            hkk -= w * cp * cp
            hka -= w * cp * f
            haa -= w * f * f
        det = hkk * haa - hka * hka
        dk = (gk * haa - ga * hka) / det
        da = (hkk * ga - hka * gk) / det
        k, a = k - dk, a - da
        if abs(dk) < 1e-10 and abs(da) < 1e-8:
            break
    return k, a

def main():
    text = ''
    for name in sys.argv[1:]:
        opener = gzip.open if name.endswith('.gz') else open
        with opener(name, 'rt', encoding='utf-8') as f:
            text += f.read() + '\n'

    data = samples(text)
    n_games = sum(1 for _ in games(text))
    print(f'games {n_games}, positions {len(data)}')
    k = fit_k(data)
    print(f'k = {k:.6f} (log-likelihood {loglik(data, k):.1f})')
    k2, a2 = fit_ka(data)
    print(f'two-parameter: k = {k2:.6f}, a = {a2:.4f} (log-likelihood {loglik(data, k2, a2):.1f})')
    if any(st for _, _, st in data):
        k3, b3 = fit_ka(data, feature=lambda st: float(st))
        print(f'with the stronger engine\'s edge: k = {k3:.6f}, edge = {b3:.4f}')
    print('lichess chess k 0.00368208: log-likelihood', round(loglik(data, 0.00368208), 1))
    # Observed score against predicted, in bins of 100 cp.
    print('bin (cp)      n   observed  fitted')
    bins = {}
    for cp, y, _ in data:
        b = max(-9, min(9, int(math.floor((cp + 50) / 100))))
        bins.setdefault(b, []).append((cp, y, 0))
    for b in sorted(bins):
        xs = bins[b]
        obs = sum(y for _, y, _ in xs) / len(xs)
        fit = sum(1 / (1 + math.exp(-k * cp)) for cp, _, _ in xs) / len(xs)
        print(f'{b * 100:+5d}  {len(xs):6d}   {obs:6.3f}   {fit:6.3f}')

main()
