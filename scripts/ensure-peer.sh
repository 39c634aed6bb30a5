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
. "$(dirname "$0")/ensure-lib.sh"
ensure_init ensure-peer

NAME="${1:-}"
case "$NAME" in
  aiperf) VERSION=0.13.0 ;;
  guidellm) VERSION=0.8.1 ;;
  *) echo "ensure-peer: usage: sh scripts/ensure-peer.sh aiperf|guidellm" >&2; exit 2 ;;
esac
LOCK="$ROOT/scripts/peer-$NAME-requirements.txt"
DEST="$CACHE/peer-$NAME-$VERSION"
VENV="$DEST/venv"
WHEELS="$CACHE/peer-$NAME-wheels"

python_version "3.11 3.12 3.13 3.14" "$NAME $VERSION needs Python 3.11 or newer"
lock_stamp "$LOCK"
if stamped "$DEST" && [ -x "$VENV/bin/$NAME" ]; then
  echo "$VENV/bin/$NAME"
  exit 0
fi

locked_venv_install "$LOCK" "$DEST" "$WHEELS" "$NAME $VERSION and its packages"
"$VENV/bin/$NAME" --help >/dev/null 2>&1 || die "the installed $NAME does not run"
install_done "$DEST" "$WHEELS" "$VENV/bin/$NAME"
