#!/usr/bin/env python3
"""Draws the training curves of `xiangqi-nnue train` logs as one SVG (standard library only).

usage: python3 docs/nnue/plot_curves.py OUT.svg LABEL=LOG [LABEL=LOG ...]
"""
import re
import sys

W, H, L, R, T, B = 640, 360, 60, 150, 20, 40
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def read(path):
    train, val = [], []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"epoch (\d+): .*train loss ([0-9.]+) validation loss ([0-9.]+)", line)
        if m:
            e = int(m.group(1))
            train.append((e, float(m.group(2))))
            val.append((e, float(m.group(3))))
    return train, val


def main():
    out, specs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    curves = [(label, *read(path)) for label, path in specs]
    xs = [e for _, t, v in curves for e, _ in t + v]
    ys = [y for _, t, v in curves for _, y in t + v]
    x0, x1 = 0, max(xs)
    y0, y1 = 0.0, max(ys) * 1.05
    sx = lambda x: L + (x - x0) / (x1 - x0) * (W - L - R)
    sy = lambda y: T + (1 - (y - y0) / (y1 - y0)) * (H - T - B)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>',
        f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>',
        f'<text x="{(L + W - R) / 2}" y="{H - 8}" text-anchor="middle">epoch</text>',
        f'<text x="14" y="{(T + H - B) / 2}" transform="rotate(-90 14 {(T + H - B) / 2})" text-anchor="middle">loss</text>',
    ]
    for i in range(6):
        y = y0 + (y1 - y0) * i / 5
        parts.append(f'<text x="{L - 4}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:.3f}</text>')
        parts.append(f'<line x1="{L}" y1="{sy(y):.1f}" x2="{W - R}" y2="{sy(y):.1f}" stroke="#ddd"/>')
    step = max(1, x1 // 10)
    for x in range(0, x1 + 1, step):
        parts.append(f'<text x="{sx(x):.1f}" y="{H - B + 14}" text-anchor="middle">{x}</text>')
    row = 0
    for i, (label, train, val) in enumerate(curves):
        c = COLOURS[i % len(COLOURS)]
        for pts, dash, what in [(train, "4 3", "train"), (val, "", "validation")]:
            if not pts:
                continue
            d = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts)
            parts.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="1.6" stroke-dasharray="{dash}"/>')
            ly = T + 14 + row * 16
            parts.append(f'<line x1="{W - R + 8}" y1="{ly - 4}" x2="{W - R + 28}" y2="{ly - 4}" stroke="{c}" stroke-width="1.6" stroke-dasharray="{dash}"/>')
            parts.append(f'<text x="{W - R + 32}" y="{ly}">{label} {what}</text>')
            row += 1
    parts.append("</svg>")
    open(out, "w", encoding="utf-8").write("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
