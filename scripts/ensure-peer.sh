#!/usr/bin/env sh
# Makes sure a peer load generator the accuracy study measures (npm run bench:accuracy) is installed in a venv cached
# outside the clone, and prints the path of its command as the last stdout line. Tools in the cache, never shipped.
# What it installs, from PyPI, the exact versions and sha256 hashes of scripts/peer-NAME-requirements.txt:
#   aiperf    AIPerf 0.13.0 (Apache-2.0): about 240 MB of wheels, a 1.2 GB venv;
#   guidellm  GuideLLM 0.8.1 (Apache-2.0): about 3.1 GB of wheels (torch and its nvidia-* libraries, which GuideLLM
#             requires; CUDA stays unused), a 6 GB venv.
# Later runs reuse the venv. vLLM's `vllm bench serve` comes from scripts/ensure-vllm.sh instead.
# Usage: sh scripts/ensure-peer.sh aiperf|guidellm   (K6_LLM_CACHE overrides the cache root)
set -eu

NAME="${1:-}"
case "$NAME" in
  aiperf) VERSION=0.13.0 ;;
  guidellm) VERSION=0.8.1 ;;
  *) echo "ensure-peer: usage: sh scripts/ensure-peer.sh aiperf|guidellm" >&2; exit 2 ;;
esac
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${K6_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/k6-llm-capacity}"
LOCK="$ROOT/scripts/peer-$NAME-requirements.txt"
DEST="$CACHE/peer-$NAME-$VERSION"
VENV="$DEST/venv"
WHEELS="$CACHE/peer-$NAME-wheels"

log() { echo "ensure-peer: $*" >&2; }
die() { log "$*"; exit 1; }

command -v python3 >/dev/null 2>&1 || die "python3 is missing (3.11 or newer)"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum is missing"
PYVER="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
STAMP="$(sha256sum "$LOCK" | cut -c1-16) python$PYVER"
if [ "$(cat "$DEST/.pins" 2>/dev/null || true)" = "$STAMP" ] && [ -x "$VENV/bin/$NAME" ]; then
  echo "$VENV/bin/$NAME"
  exit 0
fi

start=$(date +%s)
# The hashes are those of the CPython 3.11 wheels; another Python gets the same versions, checked by version only.
REQS="$LOCK"
HASHES=--require-hashes
if [ "$PYVER" != 3.11 ]; then
  log "Python $PYVER: installing the pinned versions without their hashes (those are of the CPython 3.11 wheels)"
  mkdir -p "$CACHE"
  REQS="$CACHE/peer-$NAME-requirements-py$PYVER.txt"
  sed 's/ --hash=[^ ]*//g' "$LOCK" >"$REQS"
  HASHES=
fi
rm -rf "$DEST"
mkdir -p "$DEST" "$WHEELS"
python3 -m venv "$VENV" || die "python3 -m venv failed (apt-get install python3-venv)"
log "downloading $NAME $VERSION and its packages from PyPI into $WHEELS..."
# Files already there with the right hash are kept, so an interrupted download goes on where it stopped.
# shellcheck disable=SC2086
"$VENV/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary :all: $HASHES -r "$REQS" \
  -d "$WHEELS" >&2 || die "pip download failed (is PyPI reachable?)"
log "installing into $VENV..."
# shellcheck disable=SC2086
"$VENV/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$WHEELS" --no-deps $HASHES \
  -r "$REQS" >&2 || die "pip install failed"
"$VENV/bin/$NAME" --help >/dev/null 2>&1 || die "the installed $NAME does not run"
echo "$STAMP" >"$DEST/.pins"
rm -rf "$WHEELS"
log "installed in $(( $(date +%s) - start ))s ($(du -sh "$DEST" | cut -f1)): $VENV/bin/$NAME"
echo "$VENV/bin/$NAME"
