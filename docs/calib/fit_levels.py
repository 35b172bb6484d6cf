"""Fits the strength of the engine's internal levels to the measured Skill Level steps.

Each step in steps.csv says: internal level b is `elo` stronger than internal level a, with a
95 % half-width `err95` (200 games, Elo from the pairs). Elo is taken as piecewise linear in
the internal level between the knots; it is held at 600 at level 0 and at 2300 at level 12
(the table's anchors, crates/xiangqi-engine/src/skill.rs `CALIBRATION`), and the knots
between are the weighted least-squares solution. Prints the fitted knots (the rows of
`CALIBRATION` below 12), the fit's chi-squared, each step against the fit, and each Skill
Level's Elo under the fit with its 95 % half-width (relative to the two anchors) against the
Elo the Skill Level stands for (600 + 137.65 a step).

    python3 docs/calib/fit_levels.py [--chains 1,2,3] [--knots 0,1.864,3.93,5,...,12]
"""
import argparse
import csv
import os

ANCHORS = {0.0: 600.0, 12.0: 2300.0}
TOP = 3353


def read_steps(path, chains):
    steps = []
    with open(path) as f:
        for row in csv.reader(line for line in f if not line.startswith("#")):
            if int(row[0]) in chains:
                steps.append((int(row[0]), int(row[1]), float(row[3]), float(row[4]),
                              float(row[5]), float(row[6])))
    return steps


def weights(knots, x):
    for k in range(len(knots) - 1):
        if knots[k] <= x <= knots[k + 1]:
            t = (x - knots[k]) / (knots[k + 1] - knots[k])
            return {k: 1 - t, k + 1: t}
    raise ValueError(f"internal level {x} outside the knots")


def invert(a):
    n = len(a)
    m = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        m[c] = [v / m[c][c] for v in m[c]]
        for r in range(n):
            if r != c:
                f = m[r][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [row[n:] for row in m]


def fit(knots, steps):
    fixed = {k: ANCHORS[x] for k, x in enumerate(knots) if x in ANCHORS}
    free = [k for k in range(len(knots)) if k not in fixed]
    rows = []
    for *_, a, b, elo, err in steps:
        d = {}
        for k, w in weights(knots, b).items():
            d[k] = d.get(k, 0.0) + w
        for k, w in weights(knots, a).items():
            d[k] = d.get(k, 0.0) - w
        sd = err / 1.96
        rhs = elo - sum(w * fixed[k] for k, w in d.items() if k in fixed)
        rows.append(([d.get(k, 0.0) / sd for k in free], rhs / sd))
    n = len(free)
    normal = [[sum(r[i] * r[j] for r, _ in rows) for j in range(n)] for i in range(n)]
    cov = invert(normal)
    rhs = [sum(r[i] * y for r, y in rows) for i in range(n)]
    sol = [sum(cov[i][j] * rhs[j] for j in range(n)) for i in range(n)]
    elo = [fixed.get(k, 0.0) for k in range(len(knots))]
    for i, k in enumerate(free):
        elo[k] = sol[i]
    chi2 = sum((sum(r[i] * sol[i] for i in range(n)) - y) ** 2 for r, y in rows)

    def at(x):
        return sum(w * elo[k] for k, w in weights(knots, x).items())

    def err95(x):
        w = weights(knots, x)
        v = sum(wa * wb * cov[free.index(a)][free.index(b)]
                for a, wa in w.items() for b, wb in w.items() if a in free and b in free)
        return 1.96 * v ** 0.5

    return elo, chi2, len(rows) - n, at, err95


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", default=os.path.join(os.path.dirname(__file__), "steps.csv"))
    ap.add_argument("--chains", default="1,2,3")
    ap.add_argument("--knots", default="0,1.864,3.93,5,6,7,8,9,10,11,12")
    ap.add_argument("--table", default="0:600,1.864:738,3.93:762,5:915,6:1051,7:1164,8:1315,"
                    "9:1554,10:1761,11:1962,12:2300",
                    help="the shipped table below 12, to map each Skill Level onto its level")
    args = ap.parse_args()
    chains = {int(c) for c in args.chains.split(",")}
    knots = [float(k) for k in args.knots.split(",")]
    steps = read_steps(args.steps, chains)
    elo, chi2, dof, at, err95 = fit(knots, steps)
    print(f"{len(steps)} steps of chains {sorted(chains)}: chi2 {chi2:.1f} on {dof} degrees of freedom")
    print("knots:", ", ".join(f"({k:g}, {e:.0f})" for k, e in zip(knots, elo)))
    print("monotone:", all(b > a for a, b in zip(elo, elo[1:])))
    for chain, s, a, b, m, e in steps:
        print(f"  chain {chain} Skill {s}->{s + 1} ({a:.3f}->{b:.3f}): measured {m:+.1f} +- {e:.1f},"
              f" fit {at(b) - at(a):+.1f}")
    table = [tuple(float(v) for v in p.split(":")) for p in args.table.split(",")]

    def level(e):
        for (l0, e0), (l1, e1) in zip(table, table[1:]):
            if e <= e1:
                return l0 + (l1 - l0) * (e - e0) / (e1 - e0)
        return None

    print("Skill Level, internal level, Elo under the fit +- 95 %, the Elo it stands for")
    for s in range(21):
        target = 600 + (TOP - 600) * s // 20
        x = level(target)
        if x is None:
            break
        print(f"  {s:2d} {x:7.3f} {at(x):6.0f} +- {err95(x):3.0f}  {target:5d}  ({at(x) - target:+.0f})")


if __name__ == "__main__":
    main()
