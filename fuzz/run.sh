#!/usr/bin/env bash
# Builds every fuzz target of fuzz/Cargo.toml and runs each for a short, bounded time from its
# seeds: what CI runs, so that the targets cannot rot. See docs/FUZZING.md.
#
#  - cargo-fuzz (installed from crates.io if missing, the version below) on the stable
#    toolchain: without a sanitizer (-s none) cargo-fuzz needs no nightly;
#  - each target (FUZZ_TARGETS, default all of `cargo fuzz list`) runs FUZZ_SECONDS seconds
#    (default 15) on a fresh corpus in a temporary directory, reading its seeds
#    (fuzz/seeds/<target>, or files of shared/data/records);
#  - a crash, a timeout (-timeout=30 per input) or a target without seeds fails; the crash
#    input is kept in fuzz/artifacts/<target>/ and the log's tail printed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
seconds="${FUZZ_SECONDS:-15}"
shared="${XIANGQI_SHARED:-$root/../shared}"
records="$shared/data/records"
cargo_fuzz_version=0.13.2
start=$SECONDS

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz $cargo_fuzz_version"
    cargo install --quiet --locked cargo-fuzz --version "$cargo_fuzz_version"
fi
cd "$here"
echo "fuzz: $(cargo fuzz --version), $(rustc --version); building every target (-s none)"
cargo fuzz build -s none
echo "fuzz: built in $((SECONDS - start)) s"

work="$(mktemp -d "${TMPDIR:-/tmp}/xiangqi-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Seeds that are not committed in fuzz/seeds: files of shared/data/records (read in place
# where a whole directory fits; libFuzzer writes only into the first corpus directory).
mkdir -p "$work/seeds/cb_dhtmlxq" "$work/seeds/pgn_read"
cp "$records/other/walker-test.cbr" "$records/other/walker-test.cbf" \
    "$records/other/vschess-dhtmlxq-xianrenzhilu.txt" "$work/seeds/cb_dhtmlxq/"
# The CBL library header and its first game record.
head -c 4672 "$records/other/walker-1956-national-93games.cbl" > "$work/seeds/cb_dhtmlxq/cbl-head.cbl"
cp "$records/pgn-chinese/walker-test.pgn" "$records/pgn-chinese/eleeye-ccgc-01.pgn" \
    "$records/pgn-iccs/hbsxcjp-cchess-01-iccs.pgn" "$records/other/wukong-engine-game-san-1.pgn" \
    "$work/seeds/pgn_read/"
head -c 8192 "$records/pgn-wxf/wukong-xqdb-international-multi.pgn" > "$work/seeds/pgn_read/wxf-multi-head.pgn"

# The XieXie and CBL readers' seeds: the committed record test files (issue 18).
data="$root/crates/xiangqi-record/tests/data/issue18"
mkdir -p "$work/seeds/xiexie" "$work/seeds/cbl"
cp "$data/xiexie.wxf" "$work/seeds/xiexie/"
cp "$data/compressed.cbl" "$data/plain.cbl" "$data/empty-record.cbl" "$work/seeds/cbl/"
cp "$work/seeds/cb_dhtmlxq/cbl-head.cbl" "$work/seeds/cbl/"

# Issue 29's record files: coordinate-SAN PGN (WinBoard, pychess), XieXie ending `}END`, and
# position files (FEN, title|FEN); the long ones cut to their head.
more="$root/crates/xiangqi-record/tests/data/records"
mkdir -p "$work/seeds/epd"
cp "$more"/elephantchess-winboard-*.pgn "$work/seeds/pgn_read/"
head -c 8192 "$more/elephantchess-pychess-davide2022.pgn" > "$work/seeds/pgn_read/pychess-head.pgn"
cp "$more"/elephantchess-xiexie-end-*.wxf "$work/seeds/xiexie/"
head -c 4096 "$more/ianfab-books-xiangqi-first200.epd" > "$work/seeds/epd/fen-lines.epd"
head -c 4096 "$more/walker-cchess-level0.epd" > "$work/seeds/epd/title-fen.epd"
printf '3k5/9/9/9/9/9/9/9/4R4/4K4 w - - bm e1e8; id "mate 1"; c0 "Red mates";\n' > "$work/seeds/epd/ops.epd"

# Records of other programs (issue 29, later parts): the made-up PFC, CHE, XQR, CCM, MXQ and
# CHN files (the cb_dhtmlxq target also reads each format).
cp "$more/made-up-pengfei.pfc" "$more"/made-up-qq-kind*.che "$more/made-up.xqr" \
    "$more/made-up-turned.ccm" "$more/made-up-yitian.mxq" "$more/made-up-ourgame.chn" \
    "$work/seeds/cb_dhtmlxq/"

# Web pages and Chinese text records (issue 29, second part): the made-up page and text file.
mkdir -p "$work/seeds/web_text"
cp "$more/made-up-blog-page.html" "$more/made-up-dpxq-text-gbk.txt" "$work/seeds/web_text/"
printf '[DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]\n' > "$work/seeds/web_text/ubb.txt"

status=0
for target in ${FUZZ_TARGETS:-$(cargo fuzz list)}; do
    extra=()
    case "$target" in
        fen_roundtrip | movegen) seeds="seeds/$target" ;;
        wxf_parse | chinese_parse) seeds="seeds/$target"; extra=(-max_len=64) ;;
        xqf) seeds="$records/xqf"; extra=(-max_len=4096) ;;
        cb_dhtmlxq | pgn_read) seeds="$work/seeds/$target"; extra=(-max_len=8192) ;;
        xiexie | cbl | epd | web_text) seeds="$work/seeds/$target"; extra=(-max_len=8192) ;;
        *) echo "fuzz: $target has no seeds in fuzz/run.sh"; status=1; continue ;;
    esac
    if [ -z "$(ls -A "$seeds")" ]; then
        echo "fuzz: $target: no seed files in $seeds"
        status=1
        continue
    fi
    mkdir -p "$work/corpus/$target"
    log="$work/$target.log"
    t0=$SECONDS
    if cargo fuzz run -s none "$target" "$work/corpus/$target" "$seeds" -- \
        -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
        "${extra[@]}" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
        echo "fuzz: $target ok: ${runs:-?} runs in $((SECONDS - t0)) s, $cov, corpus $(ls "$work/corpus/$target" | wc -l) files"
    else
        echo "fuzz: $target FAILED (input kept in fuzz/artifacts/$target/); end of its log:"
        tail -40 "$log"
        status=1
    fi
done
echo "fuzz: $([ "$status" -eq 0 ] && echo "all targets ran" || echo FAILED) in $((SECONDS - start)) s"
exit "$status"
