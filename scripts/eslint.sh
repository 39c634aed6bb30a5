#!/bin/sh
# The ESLint step of `npm run lint`, with ESLint's cache outside the clone (scripts/check-cache.sh): a file is linted
# again when its content or the configuration changed. Sound because no rule here reads types or another file (the
# config has no type-aware rules; import cycles are madge's, lint:cycles). 11 CPU-seconds from cold, 0.9 with the
# cache (2 quiet cores, 2026-12-07). Arguments go to eslint (default: the whole clone).
set -u
cd "$(dirname "$0")/.." || exit 1
. scripts/check-cache.sh
[ "$#" -gt 0 ] || set -- .
eslint --cache --cache-strategy content --cache-location "$CHECK_CACHE/eslintcache" "$@"
