"""k6-llm-capacity's CPU stand-in for SGLang's `sgl_kernel` package. NOT SGLang's sgl-kernel.

Part of k6-llm-capacity (Apache-2.0); scripts/ensure-sglang.sh puts this directory on the path of the SGLang venv
it installs. Why it exists: SGLang's CPU kernels (sgl-kernel built for CPU) are not on PyPI, and the `sgl-kernel` /
`sglang-kernel` wheels there are CUDA-only. On a CPU without AMX SGLang runs plain-torch code for norms,
activations, rope, the KV store and attention (`--attention-backend torch_native`), and only a few modules import
`sgl_kernel` at all. Of what they import, one function runs while requests are served:
`assign_req_to_token_pool_cpu`, implemented below in plain torch after the Triton kernel SGLang uses on GPUs
(sglang/srt/mem_cache/allocation.py, `assign_req_to_token_pool`). Every other name that SGLang's CPU path imports
exists only so that the import succeeds, and raises, naming itself, when it is called. Anything else is absent, as
if sgl_kernel were not installed, so SGLang's own fallbacks (`try: from sgl_kernel import ...`) still take over.

Registers no torch op: `torch.ops.sgl_kernel.*` stays empty, which keeps SGLang off its Intel AMX paths
(`_is_intel_amx_backend_available` looks for `torch.ops.sgl_kernel.convert_weight_packed`) even on an AMX CPU.
Results measured with it are those of the unmodified SGLang server with this one function in plain torch.
"""

import torch

__version__ = "0.0.0+k6llmcapacity.cpu.standin"
STANDIN = True


def assign_req_to_token_pool_cpu(
    req_pool_indices: torch.Tensor,
    req_to_token: torch.Tensor,
    start_offset: torch.Tensor,
    end_offset: torch.Tensor,
    out_cache_loc: torch.Tensor,
    pool_len: int,
) -> None:
    """Writes each request's new KV slots into its row of the request-to-token table, in place.

    Request i owns row req_pool_indices[i]; its positions start_offset[i]:end_offset[i] get the next
    end_offset[i] - start_offset[i] entries of out_cache_loc, the entries of the requests before it coming first.
    """
    del pool_len  # the row length; slicing needs no bound of its own
    rows = req_pool_indices.tolist()
    starts = start_offset.tolist()
    ends = end_offset.tolist()
    taken = 0
    for row, start, end in zip(rows, starts, ends):
        n = end - start
        if n > 0:
            req_to_token[row, start:end] = out_cache_loc[taken : taken + n]
        taken += n


def _not_provided(name: str):
    def missing(*_args, **_kwargs):
        raise NotImplementedError(
            f"sgl_kernel.{name} was called, but this is k6-llm-capacity's CPU stand-in for sgl_kernel, which "
            "implements only assign_req_to_token_pool_cpu (scripts/sglang-cpu/sgl_kernel): this model or "
            "option needs SGLang's real CPU kernels"
        )

    missing.__name__ = name
    return missing


# Imported at module level on SGLang's CPU path (sglang 0.5.23), called only to move KV-cache entries between slots
# and by speculative decoding, neither of which the project's runs use.
IMPORTED_ONLY = (
    "copy_all_layer_kv_cache_cpu",  # sglang/kernels/ops/kvcache/cache_move.py
    "fill_accept_out_cache_loc_cpu",  # sglang/kernels/ops/speculative/eagle.py
    "fill_bonus_tokens_cpu",
    "assign_draft_cache_locs_contiguous_cpu",  # sglang/kernels/ops/speculative/cache_locs.py
    "assign_extend_cache_locs_cpu",
    "build_tree_kernel_efficient_cpu",  # sglang/kernels/ops/speculative/spec_tree.py
    "verify_tree_greedy_cpu",
    "rotate_input_ids_cpu",  # sglang/kernels/ops/speculative/multi_layer_eagle.py
)
for _name in IMPORTED_ONLY:
    globals()[_name] = _not_provided(_name)
