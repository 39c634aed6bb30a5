#!/bin/sh
# `npm run typecheck`: tsc over the Node side (tsconfig.json, lib/ and thresholds/ included) and over what k6 runs
# without Node's types (tsconfig.k6.json). Incremental: tsc keeps each file's hash and diagnostics outside the clone
# (scripts/check-cache.sh) and checks again what changed and what depends on it. Both took 22 CPU-seconds from cold
# and 5 with the cache, nothing changed (2 quiet cores, 2026-12-07).
set -u
cd "$(dirname "$0")/.." || exit 1
. scripts/check-cache.sh
tsc -p tsconfig.json --noEmit --incremental --tsBuildInfoFile "$CHECK_CACHE/node.tsbuildinfo" &&
  tsc -p tsconfig.k6.json --noEmit --incremental --tsBuildInfoFile "$CHECK_CACHE/k6.tsbuildinfo"
