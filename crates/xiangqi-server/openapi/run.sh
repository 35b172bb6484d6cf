#!/usr/bin/env bash
# Fuzzes the HTTP API against its own OpenAPI document (/api/openapi.json) with schemathesis:
# a debug `xiangqi serve` on a free loopback port with a temporary data folder; every
# operation gets a bounded number of generated requests (valid and invalid), and each answer
# is checked: no 5xx, a status, content type, headers and body that the document declares.
#
# Usage: crates/xiangqi-server/openapi/run.sh   (VENV: the Python venv, default ./.venv;
#        SCHEMATHESIS_EXAMPLES: requests per operation and phase, default 100)
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
VENV="${VENV:-$ROOT/.venv}"
SCHEMATHESIS_VERSION=4.32.5
# hypothesis is pinned too: it draws the requests, so that the fixed seed below means the same
# requests on every run (schemathesis allows a range of hypothesis versions).
HYPOTHESIS_VERSION=6.170.17
EXAMPLES="${SCHEMATHESIS_EXAMPLES:-100}"
# Every check, positive_data_acceptance too ("a request the document allows must get a 2xx"):
# the document can say a move or a FEN is a string, not which strings are legal in a game's
# position, nor what a game's state allows, so that check takes the domain's refusals as
# answers to a valid request (schemathesis.toml below): no such game or seek (404), a state
# that does not allow it (409: `ply` not the game's, nothing to take back, not your turn), an
# illegal move (422), a seat or account that is not the request's (401/403), a body over the
# size limit (413), a server limit of running reviews or open games (429/503). Never 400: a
# request the document allows must never be refused as malformed.
CHECKS="${SCHEMATHESIS_CHECKS:-all}"
EXCLUDE_CHECKS="${SCHEMATHESIS_EXCLUDE_CHECKS:-}"
# A fresh seed per run (printed, with the command that replays it), so that each CI run tries
# new requests; SCHEMATHESIS_SEED=N replays run N.
SEED="${SCHEMATHESIS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
REPLAY="SCHEMATHESIS_SEED=$SEED SCHEMATHESIS_EXAMPLES=$EXAMPLES crates/xiangqi-server/openapi/run.sh"
echo "schemathesis seed: $SEED (replay: $REPLAY)"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if [ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version $SCHEMATHESIS_VERSION" ] ||
  [ "$("$VENV/bin/python" -c 'import hypothesis; print(hypothesis.__version__)' 2>/dev/null)" != "$HYPOTHESIS_VERSION" ]; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" \
    "hypothesis==$HYPOTHESIS_VERSION"
fi

cargo build --quiet --bin xiangqi
DATA=$(mktemp -d)
PORT=$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# --no-rate-limits: one client fuzzing every operation would spend the per-client limits in
# seconds and leave the logic behind them untested (the 429 answers are documented).
"${CARGO_TARGET_DIR:-target}/debug/xiangqi" serve --host 127.0.0.1 --port "$PORT" --no-fallback --no-rate-limits --data "$DATA" \
  >"$DATA/serve.log" 2>&1 &
SERVER=$!
cleanup() {
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  rm -rf "$DATA"
}
trap cleanup EXIT

BASE="http://127.0.0.1:$PORT"
for _ in $(seq 100); do
  if "$VENV/bin/python" -c "import urllib.request as u; u.urlopen('$BASE/api/health', timeout=1)" 2>/dev/null; then
    break
  fi
  kill -0 "$SERVER" 2>/dev/null || { cat "$DATA/serve.log"; exit 1; }
  sleep 0.2
done

# Test data, so that requests reach more than "no such game": stored games of each mode (one
# with a few moves, one from a FEN) and a live game with its seat tokens. The config binds the
# path ids (and moves, and the red seat's token) to them for most, not all, requests.
"$VENV/bin/python" - "$BASE" "$DATA/schemathesis.toml" <<'PY'
import json, sys, urllib.request

base, out = sys.argv[1], sys.argv[2]

def post(path, body):
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)

games = [
    post("/api/games", {})["id"],
    post("/api/games", {"mode": "analysis", "moves": ["h2e2", "h9g7", "h0g2"]})["id"],
    post("/api/games", {"mode": "computer", "level": 0})["id"],
    post("/api/games", {"fen": "3k5/9/9/9/9/9/9/9/4A4/3AK4 w - - 0 1"})["id"],
]
live = post("/api/challenge/open", {"clock": {"limit": 600, "increment": 5}, "color": "red"})
# An account with a session (cookie and CSRF token), so that the account's operations are
# fuzzed logged in, not only refused with 401.
req = urllib.request.Request(
    base + "/api/account/register", method="POST",
    data=json.dumps({"username": "fuzzer", "password": "the fuzzer's password"}).encode(),
    headers={"Content-Type": "application/json"})
with urllib.request.urlopen(req, timeout=30) as r:
    session = r.headers["Set-Cookie"].split(";")[0]
    csrf = json.load(r)["csrf"]
moves = ["h2e2", "h9g7", "b0c2", "C2.5", "H2-E2", "炮二平五", "a0a1"]
q = json.dumps
with open(out, "w") as f:
    f.write(f"""
# A request the document forbids may also be refused as too large (413: a moves list past
# its maxItems of long strings is over the 64 KiB body limit before it is read) or, in the
# board API, as over a limit (429); both are rejections, as 400 and 422 are.
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]

# The domain's refusals of a request the document allows (see CHECKS in run.sh); never 400.
[checks.positive_data_acceptance]
expected-statuses = ["200", "201", "202", "401", "403", "404", "409", "413", "422", "429", "503"]

[dictionaries.games]
values = {q(games)}
[dictionaries.live]
values = {q([live["id"]])}
[dictionaries.moves]
values = {q(moves, ensure_ascii=False)}

# Where the domain still answers 400 to a request the document allows (docs/FUZZING.md, "The
# HTTP API"): a FEN that is no position, a file that is no record, a clock of 0 + 0, a rated
# challenge without an opponent or naming no account, an explorer query's FEN or `play` move
# that is no position or move, a tablebase query's FEN that is no position, the wrong current password, a username
# or password of the wrong length (a password's limit is 256 bytes, which a JSON Schema cannot
# say). The tests assert those 400s; positive_data_acceptance takes 400 on these operations
# only. (A game's own operations, /api/games/{id}/..., answer no 400 to a valid request: a
# move text that reads as no move is 422, what the game's moves or mode do not allow 409.)
[[operations]]
include-path-regex = "^/api/(games|position|import|challenge/open|account/register|account/login|explorer/.*|tablebase)$"
checks.positive_data_acceptance.expected-statuses = ["200", "201", "202", "400", "401", "403", "404", "409", "413", "422", "429", "503"]

[[operations]]
include-path-regex = "^/api/games/"
parameters = {{ "path.id" = {{ dictionary = "games", probability = 0.8 }}, "body.move" = {{ dictionary = "moves", probability = 0.5 }} }}

[[operations]]
include-path-regex = "^/api/account(/password|/tokens.*)?$"
checks.positive_data_acceptance.expected-statuses = ["200", "201", "202", "400", "401", "403", "404", "409", "413", "422", "429", "503"]
headers = {{ "X-CSRF-Token" = "{csrf}" }}
parameters = {{ "cookie.xq_session" = "{session.split('=', 1)[1]}" }}

[[operations]]
include-path-regex = "^/api/board/game/"
headers = {{ Authorization = "Bearer {live['tokenRed']}" }}
parameters = {{ "path.id" = {{ dictionary = "live", probability = 0.8 }}, "path.move" = {{ dictionary = "moves", probability = 0.5 }} }}
""")
PY

# Not fuzzed (they are documented, but never end): the WebSocket and the ndjson streams
# (a game's, the lobby's, and a seek, which streams until someone takes it).
status=0
# (Run from the data folder: schemathesis keeps its replay store, .schemathesis/, where it runs.)
# One worker: with two, hypothesis (6.170) parses source files with `ast` in both worker threads
# to describe its filters, and CPython 3.11 keeps the depth of its AST construction in state
# shared by the interpreter's threads, so now and then a parse fails with "SystemError: AST
# constructor recursion depth mismatch" (reported in threaded programs, see CPython gh-106905);
# CI failed so once, in the coverage phase of POST /api/board/game/{id}/{action}. One worker
# takes about 80 s instead of 70.
(cd "$DATA" && "$VENV/bin/schemathesis" --config-file "$DATA/schemathesis.toml" run "$BASE/api/openapi.json" \
  --checks "$CHECKS" \
  ${EXCLUDE_CHECKS:+--exclude-checks "$EXCLUDE_CHECKS"} \
  --exclude-path /api/analysis \
  --exclude-path /api/board/game/stream/{id} \
  --exclude-path /api/lobby/stream \
  --exclude-path /api/board/seek \
  --max-examples "$EXAMPLES" \
  --workers 1 \
  --request-timeout 30 \
  --seed "$SEED" \
  --no-color "$@") || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- the server's log:"
  tail -50 "$DATA/serve.log"
  echo "schemathesis failed with seed $SEED; replay: $REPLAY"
fi
exit "$status"
