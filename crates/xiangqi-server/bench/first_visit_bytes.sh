#!/usr/bin/env bash
# Bytes a first visit to the app transfers: the page and every file it loads (the stylesheet,
# the icon, app.js and every ES module it imports, followed from `from '/x.js'`), per
# Accept-Encoding; then what a second visit costs (each file revalidated with its ETag).
# Usage: first_visit_bytes.sh URL   (a running `xiangqi serve`). Headers are not counted.
set -euo pipefail
URL=${1:?usage: first_visit_bytes.sh http://127.0.0.1:PORT}
files=(/ /style.css /favicon.svg)
todo=(/app.js)
while [ ${#todo[@]} -gt 0 ]; do
  f=${todo[0]}; todo=("${todo[@]:1}")
  case " ${files[*]} " in *" $f "*) continue ;; esac
  files+=("$f")
  for m in $(curl -s "$URL$f" | grep -o "from '/[a-z0-9_-]*\.js'" | sed "s/from '\(.*\)'/\1/" | sort -u); do
    todo+=("$m")
  done
done
echo "files: ${files[*]}"
for enc in identity gzip br; do
  total=0
  for f in "${files[@]}"; do
    b=$(curl -s -H "Accept-Encoding: $enc" -o /dev/null -w '%{size_download}' "$URL$f")
    total=$((total + b))
  done
  echo "$enc: ${#files[@]} files, $total bytes"
done
second=0; codes=""
for f in "${files[@]}"; do
  tag=$(curl -s -D - -o /dev/null "$URL$f" | tr -d '\r' | sed -n 's/^etag: //Ip')
  if [ -n "$tag" ]; then
    r=$(curl -s -H "If-None-Match: $tag" -H 'Accept-Encoding: br' -o /dev/null -w '%{http_code} %{size_download}' "$URL$f")
  else
    r=$(curl -s -H 'Accept-Encoding: br' -o /dev/null -w '%{http_code} %{size_download}' "$URL$f")
  fi
  codes="$codes ${r% *}"; second=$((second + ${r#* }))
done
echo "second visit: statuses$codes; $second body bytes"
