# Sourced by every scripts/ensure-*.sh that installs into the cache outside the clone: the one shape they share.
# Each script: `. ensure-lib.sh`, ensure_init, its checks, a fast path that prints the cached artefact's path and
# exits 0, else the install, then that path as the last stdout line (orchestrator/ensure-script.ts reads it).
# Runs in the shell (POSIX sh). K6_LLM_CACHE overrides the cache root; scripts/check-cache.sh takes it from here too.

# cache_root: prints the cache outside the clone (K6_LLM_CACHE, else the XDG cache's k6-llm-capacity folder).
cache_root() { echo "${K6_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/k6-llm-capacity}"; }

# ensure_init NAME: sets ROOT (the clone), CACHE, and log/die that prefix their line with NAME, on stderr.
ensure_init() {
  ENSURE_NAME="$1"
  ROOT="$(cd "$(dirname "$0")/.." && pwd)"
  CACHE="$(cache_root)"
  ENSURE_START=$(date +%s)
  # One run at a time per artefact: a second caller (another terminal, a test file beside the run's setup) waits for
  # the first, then takes the fast path. The lock is released when the script exits.
  mkdir -p "$CACHE"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/.$ENSURE_NAME.lock"
    flock 9
  fi
}
log() { echo "$ENSURE_NAME: $*" >&2; }
die() { log "$*"; exit 1; }

# need_tools HINT TOOL...: dies naming the first missing tool, and HINT (how to get it).
need_tools() {
  hint="$1"
  shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing ($hint)"
  done
}

# python_version "3.11 3.12 ..." WHAT: sets PYVER to python3's X.Y; dies unless it is one of the list.
python_version() {
  command -v python3 >/dev/null 2>&1 || die "python3 is missing ($2)"
  PYVER="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  for v in $1; do [ "$v" = "$PYVER" ] && return 0; done
  die "$2; python3 is $PYVER"
}

# lock_stamp LOCK: sets STAMP to the lock's hash and the Python, the mark of a finished install: a changed pin or
# interpreter reinstalls, anything else reuses.
lock_stamp() {
  command -v sha256sum >/dev/null 2>&1 || die "sha256sum is missing"
  STAMP="$(sha256sum "$1" | cut -c1-16) python$PYVER"
}

# stamped DEST: whether DEST holds a finished install of STAMP.
stamped() { [ "$(cat "$1/.pins" 2>/dev/null || true)" = "$STAMP" ]; }

# need_free_disk GB DIR: dies unless DIR's filesystem has GB free.
need_free_disk() {
  mkdir -p "$2"
  free_kb="$(df -Pk "$2" | awk 'NR == 2 { print $4 }')"
  [ "${free_kb:-0}" -ge $(($1 * 1000000)) ] \
    || die "about $1 GB of free disk are needed under $2; $((free_kb / 1000000)) GB are free"
}

# locked_venv_install LOCK DEST WHEELS WHAT: a new venv at DEST/venv with exactly the packages of LOCK, from PyPI.
# The lock is the whole set (--no-deps). Its hashes are those of the CPython 3.11 wheels: another Python gets the same
# versions, checked by version only. Wheels go to WHEELS first, so an interrupted download goes on where it stopped
# (files already there with the right hash are kept); install_done deletes them.
locked_venv_install() {
  reqs="$1"
  hashes=--require-hashes
  mkdir -p "$CACHE"
  if [ "$PYVER" != 3.11 ]; then
    log "Python $PYVER: installing the pinned versions without their hashes (those are of the CPython 3.11 wheels)"
    reqs="$CACHE/$(basename "$1" .txt)-py$PYVER.txt"
    sed 's/ --hash=[^ ]*//g' "$1" >"$reqs"
    hashes=
  fi
  rm -rf "$2"
  mkdir -p "$2" "$3"
  python3 -m venv "$2/venv" || die "python3 -m venv failed (apt-get install python3-venv)"
  log "downloading $4 from PyPI into $3..."
  # shellcheck disable=SC2086
  "$2/venv/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary :all: $hashes -r "$reqs" \
    -d "$3" >&2 || die "pip download failed (is PyPI reachable?)"
  log "installing into $2/venv..."
  # shellcheck disable=SC2086
  "$2/venv/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$3" --no-deps $hashes \
    -r "$reqs" >&2 || die "pip install failed"
}

# install_done DEST WHEELS PATH: writes the stamp last (an interrupted install is never taken for a good one),
# deletes the wheels, says how long it took, and prints PATH as the last stdout line.
install_done() {
  echo "$STAMP" >"$1/.pins"
  rm -rf "$2"
  log "installed in $(($(date +%s) - ENSURE_START))s ($(du -sh "$1" | cut -f1)): $3"
  echo "$3"
}
