"""Adds the pentanomial counts of SPRT runs of one test and prints each run's and the sum's
line as `xiangqi match` prints it (pairs, Ptnml(0-2), Elo ± error from the pairs, nElo ±
error, LLR and bounds of a normalized [elo0, elo1] GSPRT).

A port of crates/xiangqi-match/src/stats.rs (Penta, llr_normalized: the t-value MLE
linearised and repeated from the uniform distribution, zero counts replaced by 1e-3); it
reproduces the runner's printed lines to their decimals. Used for docs/STRENGTH.md's gate
table when a test was run in more than one piece (the runner cannot resume a match).

    python3 docs/nnue/sprt_combine.py [--elo0 0 --elo1 2] LL,LD,WL+DD,WD,WW ...
"""
import argparse
import math

A = [0.0, 0.25, 0.5, 0.75, 1.0]
NELO_PAIR = 800 / math.log(10) / math.sqrt(2)
Z95 = 1.959963984540054


def secular(p, g):
    if not (min(g) < 0 < max(g)):
        return None
    lo, hi = -1 / max(g), -1 / min(g)
    f = lambda x: sum(pi * gi / (1 + x * gi) for pi, gi in zip(p, g))
    for _ in range(300):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def mle_t(p, t):
    q = [1 / len(p)] * len(p)
    for _ in range(300):
        mu = sum(qi * ai for qi, ai in zip(q, A))
        sigma = math.sqrt(sum(qi * (ai - mu) ** 2 for qi, ai in zip(q, A)))
        if sigma <= 0:
            break
        g = [ai - 0.5 - t * sigma * (1 + ((ai - mu) / sigma) ** 2) / 2 for ai in A]
        x = secular(p, g)
        if x is None:
            break
        nxt = [pi / (1 + x * gi) for pi, gi in zip(p, g)]
        moved = max(abs(u - v) for u, v in zip(nxt, q))
        q = nxt
        if moved < 1e-12:
            break
    return q


def line(c, elo0, elo1, alpha=0.05, beta=0.05):
    reg = [max(v, 1e-3) for v in c]
    n = sum(reg)
    p = [v / n for v in reg]
    q0, q1 = mle_t(p, elo0 / NELO_PAIR), mle_t(p, elo1 / NELO_PAIR)
    llr = n * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1))
    pairs = sum(c)
    mu = sum(ci * ai for ci, ai in zip(c, A)) / pairs
    var = sum(ci * (ai - mu) ** 2 for ci, ai in zip(c, A)) / pairs
    elo = lambda s: -400 * math.log10(1 / s - 1)
    sd = math.sqrt(var / pairs)
    elo_err = (elo(mu + Z95 * sd) - elo(mu - Z95 * sd)) / 2
    nelo = (mu - 0.5) / math.sqrt(var) * NELO_PAIR
    lo, hi = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    return (
        f"Game pairs: {pairs}, Ptnml(0-2) [{', '.join(map(str, c))}]: "
        f"Elo {elo(mu):.1f} +/- {elo_err:.1f}, nElo {nelo:.1f} +/- {NELO_PAIR * Z95 / math.sqrt(pairs):.1f}; "
        f"LLR {llr:.3f} [{lo:.3f}, {hi:.3f}]"
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--elo0", type=float, default=0.0)
    ap.add_argument("--elo1", type=float, default=2.0)
    ap.add_argument("runs", nargs="+", help="LL,LD,WL+DD,WD,WW of each run")
    a = ap.parse_args()
    runs = [[int(v) for v in r.split(",")] for r in a.runs]
    for r in runs:
        print(line(r, a.elo0, a.elo1))
    if len(runs) > 1:
        print("sum:", line([sum(x) for x in zip(*runs)], a.elo0, a.elo1))


if __name__ == "__main__":
    main()
