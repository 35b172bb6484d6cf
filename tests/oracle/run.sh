#!/usr/bin/env bash
# Differential test of the rules core against Fairy-Stockfish (pyffish); what CI runs.
#
#  1. makes or reuses a venv ($VENV, default <repo>/.venv) with the pinned pyffish and cchess
#     from PyPI (tests/oracle/requirements.txt);
#  2. generates a fresh set of legal-move vectors with a new seed (printed; ORACLE_SEED fixes
#     it, ORACLE_POSITIONS sets the size, default 20000);
#  3. generates fresh random and mutated FENs with the same seed (fuzz_fens.py);
#  4. runs the Rust vector test on the vectors (XIANGQI_ORACLE_VECTORS) and the Rust FEN
#     acceptance test on fens.txt and the fuzzed FENs (XIANGQI_ORACLE_FEN_FUZZ);
#  5. runs the pyffish side of the FEN acceptance (tests/oracle/check_fens.py);
#  6. writes the record test collection as DhtmlXQ and has cchess read it back
#     (tests/oracle/dhtmlxq_cchess.py);
#  7. writes it as XQF, one file a game, and has cchess read those back
#     (tests/oracle/xqf_cchess.py).
# Exits non-zero on any mismatch; failing generated files are kept and their paths printed.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
VENV="${VENV:-$root/.venv}"
positions="${ORACLE_POSITIONS:-20000}"
seed="${ORACLE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
start=$SECONDS

if [ ! -x "$VENV/bin/python" ]; then
    echo "oracle: creating venv $VENV"
    python3 -m venv "$VENV"
fi
py="$VENV/bin/python"
# The pinned versions (a no-op when they are installed already).
"$py" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
echo "oracle: pyffish $("$py" -c 'import importlib.metadata as m; print(m.version("pyffish"))')"

out="${TMPDIR:-/tmp}/xiangqi-oracle-seed-$seed.txt"
echo "oracle: seed $seed, $positions positions -> $out"
(cd "$here" && "$py" gen_vectors.py --seed "$seed" --positions "$positions" --out "$out")
fuzz="${TMPDIR:-/tmp}/xiangqi-oracle-fens-seed-$seed.txt"
(cd "$here" && "$py" fuzz_fens.py --seed "$seed" --out "$fuzz")

status=0
echo "oracle: cargo test (fresh vectors, FEN acceptance on fens.txt and fuzzed FENs)"
if ! (cd "$root" && XIANGQI_ORACLE_VECTORS="$out" XIANGQI_ORACLE_FEN_FUZZ="$fuzz" \
        cargo test --quiet -p xiangqi --test oracle_vectors --test fen_acceptance -- --nocapture); then
    status=1
    echo "oracle: MISMATCH with Fairy-Stockfish; kept $out and $fuzz (seed $seed)"
fi
echo "oracle: FEN acceptance, pyffish side"
if ! (cd "$here" && "$py" check_fens.py); then
    status=1
fi
echo "oracle: DhtmlXQ written by convert --to dhtmlxq, read by cchess"
shared="${XIANGQI_SHARED:-$root/../shared}"
(cd "$root" && cargo build --quiet --bin xiangqi)
mapfile -t recs < <(find "$shared/data/records" "$root/crates/xiangqi-record/tests/data" -type f \
    ! -name '*.md' ! -name '*.py' | sort)
if ! "$py" "$here/dhtmlxq_cchess.py" "$root/target/debug/xiangqi" "${recs[@]}"; then
    status=1
fi
echo "oracle: XQF written by convert --to xqf, read by cchess"
if ! "$py" "$here/xqf_cchess.py" "$root/target/debug/xiangqi" "${recs[@]}"; then
    status=1
fi
if [ "$status" -eq 0 ]; then
    rm -f "$out" "$fuzz"
    echo "oracle: all agree (seed $seed, $((SECONDS - start)) s)"
else
    echo "oracle: FAILED (seed $seed, $((SECONDS - start)) s)"
fi
exit "$status"
