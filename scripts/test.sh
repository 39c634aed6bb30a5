#!/bin/sh
# The last step of `npm test`: the static checks (scripts/checks.sh: typecheck, lint, go test) beside `vitest run`,
# not before it. Before it they were about 30 s in which no test ran; beside it they take some of the CPU the main
# group leaves idle (its files wait on streams in real time). npm appends its arguments (.ci/run's reporters) here, and
# they go to vitest. The checks' output follows vitest's; the exit status is non-zero when either failed, and then
# the last line says the checks failed.
set -u
cd "$(dirname "$0")/.." || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT

sh scripts/checks.sh > "$out" 2>&1 &
checks=$!
vitest run "$@"
tests=$?
wait "$checks"
checked=$?
cat "$out"
[ "$checked" -eq 0 ] || echo "npm test: the static checks failed (above)"
[ "$tests" -eq 0 ] && [ "$checked" -eq 0 ]
