#!/usr/bin/env sh
# Makes sure SGLang, set up to run on the CPU, is installed in a venv cached outside the clone and prints the path of
# its launcher (`<launcher> --model-path DIR --device cpu ...`, SGLang's launch_server) as the last stdout line.
# What it installs: PyPI's sglang wheel and the packages it imports, the exact versions and sha256 hashes of
# scripts/sglang-requirements.txt: sglang's own requirements without the CUDA-only ones (sglang-kernel, flashinfer,
# flash-attn-4, deep-gemm, ...; the list is in the lock's header), with PyPI's torch (the CUDA build, its nvidia-*
# libraries included because `import torch` loads them; CUDA stays unused). About 3.2 GB downloaded, a 7 GB venv,
# about 3 minutes on 2 cores after the download; later runs reuse it.
# PyPI has no CPU build of SGLang's kernels (sgl_kernel), so the venv also gets the project's stand-in for the one
# function SGLang's CPU path calls (scripts/sglang-cpu/sgl_kernel: plain torch, ours, Apache-2.0), by a .pth file.
# Usage: sh scripts/ensure-sglang.sh   (K6_LLM_CACHE overrides the cache root)
set -eu
. "$(dirname "$0")/ensure-lib.sh"
ensure_init ensure-sglang

VERSION=0.5.23
LOCK="$ROOT/scripts/sglang-requirements.txt"
STANDIN="$ROOT/scripts/sglang-cpu/sgl_kernel"
LAUNCHER_PY="$ROOT/scripts/sglang-cpu/launcher.py"
DEST="$CACHE/sglang-$VERSION"
VENV="$DEST/venv"
WHEELS="$CACHE/sglang-wheels"
LAUNCHER="$DEST/sglang-server"

[ -f "$STANDIN/__init__.py" ] && [ -f "$LAUNCHER_PY" ] || die "no $STANDIN/__init__.py or $LAUNCHER_PY"
[ "$(uname -sm)" = "Linux x86_64" ] || die "the pinned wheels are for x86-64 Linux, not $(uname -sm)"
python_version "3.11 3.12 3.13" "sglang $VERSION's wheels are for Python 3.11 to 3.13"
lock_stamp "$LOCK"

# The stand-in, its .pth and the launcher are rewritten on every run (cheap): a change to them needs no reinstall.
write_extras() {
  cp "$LAUNCHER_PY" "$DEST/launcher.py"
  rm -rf "$DEST/cpu-standin.tmp"
  mkdir -p "$DEST/cpu-standin.tmp"
  cp -R "$STANDIN" "$DEST/cpu-standin.tmp/sgl_kernel"
  rm -rf "$DEST/cpu-standin"
  mv "$DEST/cpu-standin.tmp" "$DEST/cpu-standin"
  site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  # A .pth line is added to sys.path of every interpreter of the venv, SGLang's scheduler and detokenizer included.
  echo "$DEST/cpu-standin" >"$site/k6_llm_capacity_sgl_kernel_standin.pth"
  cat >"$LAUNCHER.tmp" <<EOF
#!/bin/sh
# SGLang $VERSION on the CPU, made by k6-llm-capacity's scripts/ensure-sglang.sh: python -m sglang.launch_server.
# Usage: sglang-server --model-path DIR --device cpu --attention-backend torch_native --max-total-tokens N [...]
# (K6_LLM_SGLANG_CORES=N: on the last N CPUs only, see launcher.py). sgl_kernel here is k6-llm-capacity's stand-in
# ($DEST/cpu-standin), not SGLang's.
: "\${SGLANG_USE_CPU_ENGINE:=1}"
export SGLANG_USE_CPU_ENGINE
exec "$VENV/bin/python" -P "$DEST/launcher.py" "\$@"
EOF
  chmod 755 "$LAUNCHER.tmp"
  mv "$LAUNCHER.tmp" "$LAUNCHER"
}

if stamped "$DEST" && [ -x "$VENV/bin/python" ]; then
  write_extras
  echo "$LAUNCHER"
  exit 0
fi

# sglang's CUDA-only requirements are left out of the lock on purpose.
locked_venv_install "$LOCK" "$DEST" "$WHEELS" "sglang $VERSION and its packages (about 3.2 GB; a 7 GB venv, 3 min)"
write_extras
# The modules the server imports before it serves, stand-in included: a missing package shows here, not at launch.
SGLANG_USE_CPU_ENGINE=1 "$VENV/bin/python" -c 'import sglang.launch_server, sgl_kernel; assert sgl_kernel.STANDIN' \
  >&2 || die "the installed sglang does not import"
install_done "$DEST" "$WHEELS" "$LAUNCHER"
