"""Which engine runs the local model, and at what precision: chosen by what the machine has.

The numpy float32 pass (``bert``) is the reference and the fallback: it needs nothing
but numpy, and every other runtime is tested against it. It is already at the float32
matrix-multiply floor, so the faster runtimes trade precision, where the CPU does that
trade in hardware:

- ``openvino-bf16``: OpenVINO with bfloat16 inference, on CPUs with AVX512-BF16 or AMX
  (vectors within cosine 0.9999 of float32);
- ``onnxruntime-int8``: onnxruntime's fused per-channel dynamic int8 (``QAttention``,
  ``MatMulInteger``), on CPUs with VNNI dot products (mean cosine about 0.994);
- ``openvino-fp32`` / ``onnxruntime-fp32``: the same float32 arithmetic in those engines;
- ``onnxruntime-cuda-fp32`` / ``openvino-gpu-fp16``: an NVIDIA GPU through
  onnxruntime-gpu, an Intel GPU through OpenVINO's GPU plugin.

``auto`` takes the first of a fixed order that this machine can run (GPU, then bf16, then
int8, then float32 in OpenVINO, then numpy). The choice is cheap: it imports no engine
unless its package is installed, and reads the CPU's flags once. Vectors of float32
runtimes equal the reference, so they share its profile key; a reduced precision gets a
key of its own (``EmbeddingProfile.runtime``), so the index never mixes them.
"""

from __future__ import annotations

import functools
import importlib.util
import platform
from dataclasses import dataclass
from pathlib import Path

from repolens.embed.base import EmbeddingError

AUTO = "auto"


@dataclass(frozen=True, slots=True)
class Runtime:
    """An engine, the device it runs on and the precision of its arithmetic."""

    engine: str  # numpy | openvino | onnxruntime
    precision: str  # fp32 | bf16 | fp16 | int8
    device: str = "cpu"  # cpu | cuda | gpu

    @property
    def name(self) -> str:
        """``openvino-bf16``; the device is named when it is not the CPU."""
        device = "" if self.device == "cpu" else f"{self.device}-"
        return f"{self.engine}-{device}{self.precision}"

    @property
    def vector_tag(self) -> str:
        """What sets this runtime's vectors apart from the float32 reference ('' if none)."""
        return "" if self.precision == "fp32" else self.name

    @property
    def padded(self) -> bool:
        """Engines other than numpy take rectangular batches (padded to the longest)."""
        return self.engine != "numpy"


NUMPY = Runtime("numpy", "fp32")
RUNTIMES: tuple[Runtime, ...] = (
    Runtime("onnxruntime", "fp32", "cuda"),
    Runtime("openvino", "fp16", "gpu"),
    Runtime("openvino", "bf16"),
    Runtime("onnxruntime", "int8"),
    Runtime("openvino", "fp32"),
    Runtime("onnxruntime", "fp32"),
    NUMPY,
)
"""Every runtime, in the order ``auto`` prefers them."""

AUTO_SKIPS = frozenset({"onnxruntime-fp32"})
"""Never chosen by ``auto``: on the CPUs measured it was no faster than numpy."""

RUNTIME_NAMES = (AUTO, *(runtime.name for runtime in RUNTIMES), "numpy")

_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
_INT8_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8", "asimddp"})


def parse_runtime(name: str) -> Runtime | None:
    """The runtime called ``name`` (``numpy`` is ``numpy-fp32``), ``None`` for ``auto``."""
    wanted = name.strip().lower()
    if wanted in ("", AUTO):
        return None
    wanted = "numpy-fp32" if wanted == "numpy" else wanted
    for runtime in RUNTIMES:
        if runtime.name == wanted:
            return runtime
    raise EmbeddingError(
        f"unknown embedding runtime {name!r}; choose one of {', '.join(RUNTIME_NAMES)}"
    )


def choose_runtime(requested: str = AUTO, stored_tag: str | None = None) -> Runtime:
    """The runtime to use: the one asked for (an error if it cannot run here), or under
    ``auto`` the runtime whose vectors the index already holds (``stored_tag``, so that an
    index is never re-embedded behind the user's back) when it can run, else the first
    of ``RUNTIMES`` that can."""
    explicit = parse_runtime(requested)
    if explicit is not None:
        missing = why_unavailable(explicit)
        if missing:
            raise EmbeddingError(f"embedding runtime {explicit.name} cannot run here: {missing}")
        return explicit
    if stored_tag is not None:
        for runtime in RUNTIMES:
            if runtime.vector_tag == stored_tag and not why_unavailable(runtime):
                return runtime
    for runtime in RUNTIMES:
        if runtime.name not in AUTO_SKIPS and not why_unavailable(runtime):
            return runtime
    return NUMPY


def why_unavailable(runtime: Runtime) -> str:
    """Why ``runtime`` cannot run on this machine, or '' when it can."""
    if runtime.engine == "numpy":
        return ""
    package = "openvino" if runtime.engine == "openvino" else "onnxruntime"
    extra = {"cuda": "gpu", "gpu": "openvino"}.get(runtime.device, runtime.engine)
    if not _installed(package) or not _installed("onnx"):
        return f"needs {package} and onnx (pip install 'repolens[{extra}]')"
    # Device files first: importing an engine to ask it costs up to a second.
    if runtime.device == "cuda":
        if not Path("/dev/nvidiactl").exists():
            return "no NVIDIA GPU is present"
        if "CUDAExecutionProvider" not in _onnxruntime_providers():
            return "onnxruntime has no CUDA provider (install onnxruntime-gpu)"
        return ""
    if runtime.device == "gpu":
        if not any(Path("/dev/dri").glob("renderD*")):
            return "no GPU is present"
        return "" if "GPU" in _openvino_devices() else "OpenVINO sees no GPU"
    if runtime.precision == "bf16" and not cpu_flags() & _BF16_FLAGS:
        return "the CPU lacks bfloat16 instructions (AVX512-BF16 or AMX)"
    if runtime.precision == "int8" and not (cpu_flags() & _INT8_FLAGS or _apple_silicon()):
        return "the CPU lacks int8 dot-product instructions (VNNI)"
    return ""


def describe_runtimes() -> list[dict[str, str]]:
    """Every runtime and whether it can run here, for ``health`` and ``status``."""
    return [
        {"runtime": runtime.name, "available": "yes" if not (why := why_unavailable(runtime))
         else f"no: {why}"}
        for runtime in RUNTIMES
    ]  # fmt: skip


@functools.cache
def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags (Linux ``/proc/cpuinfo``; empty elsewhere)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def _apple_silicon() -> bool:
    return platform.system() == "Darwin" and platform.machine() == "arm64"


@functools.cache
def _installed(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


@functools.cache
def _onnxruntime_providers() -> tuple[str, ...]:
    import onnxruntime

    return tuple(onnxruntime.get_available_providers())


@functools.cache
def _openvino_devices() -> tuple[str, ...]:
    import openvino

    try:
        return tuple(openvino.Core().available_devices)
    except RuntimeError:
        return ()
