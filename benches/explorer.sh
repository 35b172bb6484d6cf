#!/usr/bin/env bash
# The opening explorer's benchmark (issue #30, docs/PERFORMANCE.md "Opening explorer"): makes
# the games, builds the index, compares the storage engines, and loads the API, from scratch,
# printing every figure. Run as root (the cold-cache lookups drop the page cache) from the
# repository's root:
#
#   bash benches/explorer.sh                 # everything, 1,000,000 games (+10 % to add)
#   GAMES=100000 bash benches/explorer.sh    # a smaller set
#
# Settings (environment): DATA (where the games and indexes go, outside the repository;
# /work/bench-data), GAMES (1000000), SELFPLAY_SECONDS (self-play games made for this long
# first, the rest by the random walk; 900), STORES ("redb fjall lmdb rocksdb rocksdb-merge"),
# RUNS (each build and load measured this many times; 3), RATE (the API's load, 500/s),
# SKIP_GEN=1 (keep the games already in DATA).
#
# Needs: Debian's librocksdb-dev and libclang-dev (the storage benchmark links the system
# RocksDB instead of building it), /usr/bin/time. Data generation runs at nice 10; the timed
# steps do not.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-/work/bench-data}
GAMES=${GAMES:-1000000}
SELFPLAY_SECONDS=${SELFPLAY_SECONDS:-900}
STORES=${STORES:-"redb fjall lmdb rocksdb rocksdb-merge"}
RUNS=${RUNS:-3}
RATE=${RATE:-500}
PER_FILE=50000
mkdir -p "$DATA"
log() { echo "== $(date -u +%H:%M:%S) $*"; }

log "release builds"
cargo build --release --bin xiangqi --bin xiangqi-engine --bin xiangqi-loadgen
export ROCKSDB_LIB_DIR=/usr/lib/x86_64-linux-gnu LIBCLANG_PATH=${LIBCLANG_PATH:-/usr/lib/llvm-14/lib}
(cd benches/explorer-storage && cargo build --release)
BIN=target/release
STORAGE=benches/explorer-storage/target/release/explorer-storage

# Games: self-play for SELFPLAY_SECONDS, then walk games in files of PER_FILE up to GAMES,
# then GAMES/10 more (the incremental add).
count() { grep -c '^\[Result' "$@" | awk -F: '{s += $NF} END {print s + 0}'; }
if [ "${SKIP_GEN:-0}" != 1 ]; then
  rm -f "$DATA"/selfplay.pgn "$DATA"/walk-*.pgn "$DATA"/more-*.pgn
  log "self-play games for ${SELFPLAY_SECONDS} s (2 threads, 64 nodes a move)"
  /usr/bin/time -f "self-play: %e s" nice -n 10 $BIN/xiangqi-engine datagen --games-out "$DATA/selfplay.pgn" \
    --nodes 64 --random-plies 2 --adjudicate 400 --max-plies 160 --hash 1 --threads 2 \
    --max-seconds "$SELFPLAY_SECONDS" --seed 7 --report-every 600
  have=$(count "$DATA/selfplay.pgn")
  log "$have self-play games; the walk makes the other $((GAMES - have))"
  start=$SECONDS; k=0; left=$((GAMES - have))
  while [ "$left" -gt 0 ]; do
    n=$(( left < PER_FILE ? left : PER_FILE ))
    nice -n 10 $BIN/xiangqi-engine datagen --games-out "$(printf "$DATA/walk-%02d.pgn" $k)" --walk \
      --games "$n" --first-game $((k * PER_FILE)) --seed 11 --threads 2 --report-every 600
    left=$((left - n)); k=$((k + 1))
  done
  more=$((GAMES / 10)); j=0
  while [ "$more" -gt 0 ]; do
    n=$(( more < PER_FILE ? more : PER_FILE ))
    nice -n 10 $BIN/xiangqi-engine datagen --games-out "$(printf "$DATA/more-%02d.pgn" $j)" --walk \
      --games "$n" --first-game $((100000000 + j * PER_FILE)) --seed 11 --threads 2 --report-every 600
    more=$((more - n)); j=$((j + 1))
  done
  log "walk: $((SECONDS - start)) s for $(count "$DATA"/walk-*.pgn "$DATA"/more-*.pgn) games"
fi
SET=("$DATA/selfplay.pgn" "$DATA"/walk-*.pgn)
MORE=("$DATA"/more-*.pgn)
log "the set: $(count "${SET[@]}") games, $(du -cb "${SET[@]}" | tail -1 | cut -f1) bytes; more: $(count "${MORE[@]}")"

# Our build: xiangqi explorer build, RUNS times from nothing; then the 10 % more added.
for r in $(seq 1 "$RUNS"); do
  rm -rf "$DATA/index"
  log "xiangqi explorer build, run $r"
  /usr/bin/time -v $BIN/xiangqi explorer build "${SET[@]}" -o "$DATA/index" 2>&1 |
    grep -E 'games indexed|Maximum resident|Elapsed \(wall'
  ls -l "$DATA/index/explorer.redb" | awk '{print "index size: " $5 " bytes"}'
done
log "xiangqi explorer build: the 10 % more added to the index"
/usr/bin/time -v $BIN/xiangqi explorer build "${MORE[@]}" -o "$DATA/index" 2>&1 |
  grep -E 'games indexed|Maximum resident|Elapsed \(wall'

# The storage engines on the explorer's own entries (build, size, 10 % more, lookups warm and
# cold), once each.
for s in $STORES; do
  log "storage: $s"
  $STORAGE "$s" "$DATA/store-$s" --batch 20000 --lookups 100000 "${SET[@]}" --more "${MORE[@]}"
  rm -rf "$DATA/store-$s"
done

# The API at RATE requests/s, open loop, RUNS times, against the release server.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
rm -rf "$DATA/serve"
$BIN/xiangqi serve --port "$PORT" --no-fallback --no-rate-limits --data "$DATA/serve" --explorer "$DATA/index" >"$DATA/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/api/explorer/masters" >/dev/null && break; sleep 0.2; done
for r in $(seq 1 "$RUNS"); do
  log "API load, run $r: $RATE requests/s for 30 s"
  $BIN/xiangqi-loadgen explorer --url "http://127.0.0.1:$PORT" --games "$DATA/walk-00.pgn" \
    --rate "$RATE" --seconds 30 --connections 32 --positions 20000 --seed "$r"
done
log "done"
