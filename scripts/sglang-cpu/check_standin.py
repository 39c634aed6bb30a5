"""Checks k6-llm-capacity's sgl_kernel stand-in against SGLang's own kernel for the same job. Run with the SGLang venv's
python (test/e2e/sglang-server.test.ts does); prints "ok" and exits 0, or fails with the difference.

The reference is SGLang's Triton kernel `assign_req_to_token_pool` (what GPUs run), executed on the CPU by Triton's
interpreter (TRITON_INTERPRET=1, set before Triton is imported), on random batches; then the names the stand-in
only pretends to have must raise when called, and a name it does not have must fail to import as a real gap would.
"""

import os
import random

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("SGLANG_USE_CPU_ENGINE", None)  # the GPU branch of allocation.py, whose kernel is the reference

import torch  # noqa: E402

import sgl_kernel  # noqa: E402
from sglang.srt.mem_cache.allocation import assign_req_to_token_pool  # noqa: E402
from sglang.srt.utils import next_power_of_2  # noqa: E402


def random_case(rng: random.Random):
    rows, pool_len = 6, 40
    batch = rng.randint(1, rows)
    indices = rng.sample(range(rows), batch)
    starts = [rng.randint(0, pool_len - 1) for _ in indices]
    ends = [rng.randint(s, pool_len) for s in starts]
    loc = torch.tensor(rng.sample(range(1000), sum(e - s for s, e in zip(starts, ends))), dtype=torch.int64)
    table = torch.full((rows, pool_len), -1, dtype=torch.int32)
    args = (torch.tensor(indices), table, torch.tensor(starts), torch.tensor(ends), loc)
    return batch, pool_len, args


def main() -> None:
    assert getattr(sgl_kernel, "STANDIN", False), f"{sgl_kernel.__file__} is not the stand-in"
    rng = random.Random(0)
    for case in range(200):
        batch, pool_len, (indices, table, starts, ends, loc) = random_case(rng)
        expected = table.clone()
        assign_req_to_token_pool[(batch,)](indices, expected, starts, ends, loc, pool_len, next_power_of_2(batch))
        got = table.clone()
        sgl_kernel.assign_req_to_token_pool_cpu(indices, got, starts, ends, loc, pool_len)
        assert torch.equal(got, expected), f"case {case}: stand-in\n{got}\nSGLang's kernel\n{expected}"
    for name in sgl_kernel.IMPORTED_ONLY:
        try:
            getattr(sgl_kernel, name)()
        except NotImplementedError as e:
            assert name in str(e), e
        else:
            raise AssertionError(f"sgl_kernel.{name} did not raise")
    try:
        from sgl_kernel import rmsnorm  # noqa: F401
    except ImportError:
        pass
    else:
        raise AssertionError("the stand-in has a name it does not implement")
    print("ok")


if __name__ == "__main__":
    main()
