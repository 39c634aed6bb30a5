# Sourced by scripts/typecheck.sh and scripts/eslint.sh from the clone's root: sets CHECK_CACHE, the folder outside
# the clone where tsc and ESLint keep what they checked, so that `npm test` on a fresh clone checks again only what
# changed. One folder per clone path: both name files by path (tsc relative to its build-info file, ESLint absolute).
# Both caches hash each file's content, never its time, so a fresh clone's new times reuse them. The cache root is the
# ensure scripts' (scripts/ensure-lib.sh cache_root; K6_LLM_CACHE overrides it).
. scripts/ensure-lib.sh
# The clone's own tsc and eslint, also when the script runs outside npm run.
PATH="$(pwd)/node_modules/.bin:$PATH"
CHECK_CACHE="$(cache_root)/checks/$(pwd | cksum | cut -d' ' -f1)"
mkdir -p "$CHECK_CACHE"
