#!/bin/sh
# The static checks of `npm test`, at once: the typecheck, the lint (ESLint, import cycles, the Go lint) and go test of
# agent/. One after another they took 43 s on 2 cores and about 57 CPU-seconds, which two cores ran in about 30; with
# tsc's and ESLint's caches (scripts/check-cache.sh) and go test's split test on events, 12 s and 23 (2026-12-07).
# Each one's output is printed whole once it ends, in this order, so the log reads as if they ran in turn; the exit
# status is non-zero when any failed, naming it.
set -u
cd "$(dirname "$0")/.." || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

npm run -s typecheck > "$out/typecheck" 2>&1 &
typecheck=$!
npm run -s lint > "$out/lint" 2>&1 &
lint=$!
npm run -s test:go > "$out/test:go" 2>&1 &
go=$!

failed=''
for job in "typecheck $typecheck" "lint $lint" "test:go $go"; do
  set -- $job
  wait "$2"
  status=$?
  echo "> npm run $1"
  cat "$out/$1"
  [ "$status" -eq 0 ] || failed="$failed $1"
done
if [ -n "$failed" ]; then
  echo "checks failed:$failed"
  exit 1
fi
