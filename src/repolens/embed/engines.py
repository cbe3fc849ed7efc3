"""Loading the local model into the runtime ``runtimes`` chose.

Every engine offers the numpy encoder's contract: ``embed(ids, lengths)`` over sequences
packed end to end, returning L2-normalised rows; ``parallel`` says whether several batches
may run at once on the provider's worker threads (onnxruntime sessions are thread-safe
and run one thread each; an OpenVINO compiled model spreads one request over all cores).

The ONNX graphs are built from the shipped weights (``graph``) and cached, with the
int8 form's quantization, under the model cache directory, keyed by the weights file and
the builder's version, so they are built once per machine and rebuilt when either
changes. A cache that cannot be written costs a rebuild per process, nothing else.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from repolens.embed.base import ModelNotInstalledError
from repolens.embed.bert import F32, BertConfig, Ids
from repolens.embed.modelfiles import ModelFiles
from repolens.embed.runtimes import Runtime

if TYPE_CHECKING:
    from onnx import ModelProto

GRAPH_VERSION = 1
"""Bumped whenever ``graph.build_model`` or the quantization settings change."""


class Encoder(Protocol):
    parallel: bool

    def embed(self, ids: Ids, lengths: Ids) -> F32: ...


def model_cache_dir() -> Path:
    """Where built graphs are kept: ``$REPOLENS_CACHE_DIR`` or the user's cache directory."""
    explicit = os.environ.get("REPOLENS_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "repolens" / "models"


def load_engine(runtime: Runtime, files: ModelFiles, threads: int) -> Encoder:
    """An encoder for ``runtime``; faults of the files or the engine become
    ``ModelNotInstalledError`` with the cause."""
    try:
        if runtime.engine == "openvino":
            return _OpenVinoEncoder(_graph_path(files, "standard"), runtime, threads)
        variant = "int8" if runtime.precision == "int8" else "fused"
        return _OnnxRuntimeEncoder(_graph_path(files, variant), runtime)
    except ModelNotInstalledError:
        raise
    except Exception as exc:  # engines raise their own exception types (RuntimeError, Fail...)
        raise ModelNotInstalledError(
            f"cannot load the model in {runtime.name}: {exc}; set embed_runtime = numpy "
            "to use the reference runtime"
        ) from exc


def pad(ids: Ids, lengths: Ids) -> tuple[Ids, Ids]:
    """Packed sequences as a right-padded (batch, longest) id matrix and its mask."""
    longest = int(lengths.max())
    mask = (np.arange(longest)[None, :] < lengths[:, None]).astype(np.int64)
    matrix = np.zeros(mask.shape, dtype=np.int64)
    matrix[mask.astype(bool)] = ids
    return matrix, mask


def _normalised(pooled: Any) -> F32:
    vectors = np.asarray(pooled, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.maximum(norms, 1e-12))


class _OnnxRuntimeEncoder:
    parallel = True

    def __init__(self, path: Path, runtime: Runtime) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        if runtime.device == "cuda":
            # TF32 would cost float32 parity; exact float32 is what the key promises.
            providers: list[Any] = [("CUDAExecutionProvider", {"use_tf32": 0}),
                                    "CPUExecutionProvider"]  # fmt: skip
            self.parallel = False
        else:
            # One thread per session run, several runs at once: scales better than one
            # run over all cores on matrices this small, and spins no idle threads.
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            providers = ["CPUExecutionProvider"]
        self._session = onnxruntime.InferenceSession(str(path), options, providers=providers)
        if (
            runtime.device == "cuda"
            and "CUDAExecutionProvider" not in self._session.get_providers()
        ):
            raise ModelNotInstalledError("onnxruntime could not start its CUDA provider")

    def embed(self, ids: Ids, lengths: Ids) -> F32:
        matrix, mask = pad(ids, lengths)
        (pooled,) = self._session.run(None, {"input_ids": matrix, "attention_mask": mask})
        return _normalised(pooled)


class _OpenVinoEncoder:
    parallel = False

    def __init__(self, path: Path, runtime: Runtime, threads: int) -> None:
        import openvino

        core = openvino.Core()
        config: dict[str, str] = {}
        if runtime.device == "cpu":
            precision = "bf16" if runtime.precision == "bf16" else "f32"
            config = {
                "INFERENCE_PRECISION_HINT": precision,
                "PERFORMANCE_HINT": "LATENCY",
                "NUM_STREAMS": "1",
                "INFERENCE_NUM_THREADS": str(max(1, threads)),
            }
        device = "GPU" if runtime.device == "gpu" else "CPU"
        self._compiled = core.compile_model(core.read_model(str(path)), device, config)
        self._request = self._compiled.create_infer_request()
        self._lock = threading.Lock()

    def embed(self, ids: Ids, lengths: Ids) -> F32:
        matrix, mask = pad(ids, lengths)
        with self._lock:
            result = self._request.infer({"input_ids": matrix, "attention_mask": mask})
            pooled = np.array(result[self._compiled.output(0)])
        return _normalised(pooled)


# -- building and caching the graphs -------------------------------------------------------

_build_lock = threading.Lock()


def _graph_path(files: ModelFiles, variant: str) -> Path:
    """The cached ONNX file of ``variant`` (standard, fused or int8), built if missing."""
    stat = files.weights.stat()
    identity = json.dumps(
        [GRAPH_VERSION, str(files.weights.resolve()), stat.st_size, stat.st_mtime_ns,
         files.config], sort_keys=True,
    )  # fmt: skip
    digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
    with _build_lock:
        for directory in (model_cache_dir(), Path(tempfile.gettempdir()) / "repolens-models"):
            target = directory / f"minilm-{digest}-{variant}.onnx"
            if target.is_file():
                return target
            try:
                directory.mkdir(parents=True, exist_ok=True)
                _build(files, variant, target)
            except OSError:
                continue
            return target
    raise ModelNotInstalledError(
        f"cannot write the model graph to {model_cache_dir()}; set REPOLENS_CACHE_DIR"
    )


def _build(files: ModelFiles, variant: str, target: Path) -> None:
    """Write ``variant``'s graph to ``target`` atomically (a temp file, then a rename), so
    that two processes building at once never read half a file."""
    import onnx

    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fused = target.with_name(f".{target.name}.{os.getpid()}.fused")
    try:
        if variant == "int8":
            onnx.save(_model(files, fused=True), fused)
            _quantize(fused, partial)
        else:
            onnx.save(_model(files, fused=variant == "fused"), partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
        fused.unlink(missing_ok=True)


def _model(files: ModelFiles, *, fused: bool) -> ModelProto:
    from safetensors.numpy import load_file

    from repolens.embed.graph import build_model

    return build_model(load_file(files.weights), BertConfig.from_json(files.config), fused=fused)


def _quantize(source: Path, target: Path) -> None:
    """Dynamic int8 quantization, per output channel, of every MatMul and the fused
    attention (the one measured to lose no retrieval quality that matters)."""
    import logging

    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # It logs advice ("run pre-processing") on the root logger: not for our users' eyes.
    root = logging.getLogger()
    level = root.level
    root.setLevel(max(level, logging.ERROR))
    try:
        quantize_dynamic(
            source, target, per_channel=True, weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Attention"],
            extra_options={"DefaultTensorType": TensorProto.FLOAT},
        )  # fmt: skip
    finally:
        root.setLevel(level)
