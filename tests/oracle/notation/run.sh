#!/usr/bin/env bash
# Differential test of the WXF and Chinese notation against Fairy-Stockfish (pyffish) and the
# Python cchess library; what CI runs.
#
#  1. makes or reuses a venv ($VENV, default <repo>/.venv) with the pinned pyffish and cchess
#     from PyPI (tests/oracle/requirements.txt);
#  2. generates fresh notation vectors with a new seed (printed; NOTATION_SEED fixes it,
#     NOTATION_POSITIONS sets the size, default 20000; NOTATION_JOBS the processes);
#  3. runs the Rust vector test on them (XIANGQI_NOTATION_VECTORS).
# Exits non-zero on any unexplained difference; a failing vector set is kept and its path printed.
# Cost: pyffish spends about 2.5 ms of CPU per get_san call, so 20000 positions (about 500000
# moves) take about 20 CPU-minutes, about 10 minutes on two idle cores.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
VENV="${VENV:-$root/.venv}"
positions="${NOTATION_POSITIONS:-20000}"
jobs="${NOTATION_JOBS:-$(nproc)}"
seed="${NOTATION_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
start=$SECONDS

if [ ! -x "$VENV/bin/python" ]; then
    echo "notation oracle: creating venv $VENV"
    python3 -m venv "$VENV"
fi
py="$VENV/bin/python"
# The pinned versions (a no-op when they are installed already).
"$py" -m pip install --quiet --disable-pip-version-check -r "$here/../requirements.txt"
echo "notation oracle: pyffish $("$py" -c 'import importlib.metadata as m; print(m.version("pyffish"))'), cchess $("$py" -c 'import importlib.metadata as m; print(m.version("cchess"))')"

out="${TMPDIR:-/tmp}/xiangqi-notation-seed-$seed.txt"
echo "notation oracle: seed $seed, $positions positions, $jobs jobs -> $out"
(cd "$here" && "$py" gen_notation.py --seed "$seed" --positions "$positions" --jobs "$jobs" --out "$out")

echo "notation oracle: cargo test (fresh vectors)"
if (cd "$root" && XIANGQI_NOTATION_VECTORS="$out" cargo test --quiet -p xiangqi \
        --test notation_oracle -- --nocapture); then
    rm -f "$out"
    echo "notation oracle: all agree (seed $seed, $((SECONDS - start)) s)"
else
    echo "notation oracle: MISMATCH (seed $seed); the vectors are kept in $out"
    exit 1
fi
