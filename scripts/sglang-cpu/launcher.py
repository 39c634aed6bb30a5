"""SGLang's launch_server, optionally kept off the client's cores. Part of k6-llm-capacity (Apache-2.0).

scripts/ensure-sglang.sh copies this file into the SGLang venv's directory and its `sglang-server` wrapper runs it
with the venv's python: `sglang-server --model-path DIR ...` is `python -m sglang.launch_server --model-path DIR ...`.

K6_LLM_SGLANG_CORES=N keeps every process of the server on the last N of the CPUs it may use (the scheduler and
the detokenizer inherit the affinity), so that a client on the same machine keeps the others to itself and reads
the streams on time: unpinned on 2 cores, SGLang's HTTP server, scheduler and detokenizer take turns on both. Not
set, or no CPU would be left over: no pinning.
"""

import os
import runpy

_cores = int(os.environ.get("K6_LLM_SGLANG_CORES") or 0)
_allowed = sorted(os.sched_getaffinity(0))
if 0 < _cores < len(_allowed):
    os.sched_setaffinity(0, set(_allowed[-_cores:]))

# As `python -m`: SGLang's worker processes (multiprocessing, spawn) import their entry module by this name.
runpy.run_module("sglang.launch_server", run_name="__main__", alter_sys=True)
