#!/usr/bin/env bash
# End-to-end tests of the browser app in Debian's chromium (/usr/bin/chromium), driven by
# playwright-core (no browser download). Installs the node packages (npm ci), builds the
# server, starts it on a free loopback port with a temporary data folder, runs the tests,
# and stops the server. Screenshots go to <workspace>/target/screenshots/ (or $SCREENSHOT_DIR).
#
#   XIANGQI_PROFILE=release   build and test the release binary (default: debug, which CI has
#                             already built for cargo test; the engine is optimised in both)
set -euo pipefail
cd "$(dirname "$0")"
E2E=$(pwd)
ROOT=$(cd ../../.. && pwd)
PROFILE="${XIANGQI_PROFILE:-debug}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM:-}" ]; then
  echo "e2e: /usr/bin/chromium is missing (apt-get install -y chromium)" >&2
  exit 1
fi

echo "e2e: npm ci"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error

echo "e2e: building the server ($PROFILE)"
if [ "$PROFILE" = release ]; then
  (cd "$ROOT" && cargo build --release --bin xiangqi)
else
  (cd "$ROOT" && cargo build --bin xiangqi)
fi
BIN="$TARGET/$PROFILE/xiangqi"

PORT=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
DATA=$(mktemp -d /tmp/xiangqi-e2e-data.XXXXXX)
LOG="$DATA.log"
"$BIN" serve --host 127.0.0.1 --port "$PORT" --no-fallback --data "$DATA" >"$LOG" 2>&1 &
SERVER=$!
cleanup() {
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  rm -rf "$DATA" "$LOG"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
  grep -q "serving on" "$LOG" && break
  if ! kill -0 "$SERVER" 2>/dev/null; then cat "$LOG" >&2; echo "e2e: the server did not start" >&2; exit 1; fi
  sleep 0.1
done
URL=$(grep -o 'http://[^ ]*' "$LOG" | head -1)
URL="${URL%/}"
echo "e2e: server at $URL (data in $DATA)"

export XIANGQI_URL="$URL" XIANGQI_BIN="$BIN"
export SCREENSHOT_DIR="${SCREENSHOT_DIR:-$ROOT/target/screenshots}"
# Arguments name test files (default: all of tests/).
if [ $# -gt 0 ]; then node --test --test-concurrency=1 --test-reporter=spec "$@"; else node --test --test-concurrency=1 --test-reporter=spec tests/; fi
echo "e2e: screenshots in $SCREENSHOT_DIR"
