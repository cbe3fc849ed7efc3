"""The faster runtimes against the numpy float32 reference, on real code.

Bounds (stated in README, "Embedding runtimes"): a float32 runtime matches the
sentence-transformers reference vectors to cosine 0.999 like numpy does; a reduced
precision stays within mean cosine 0.99 and min 0.97 of numpy float32 over windows of
real code, and within 0.01 of its MRR@10 on a docstring-to-code retrieval set. A runtime
this machine cannot run is skipped with the reason; CI's machines run them all.
"""

from __future__ import annotations

import ast
import json
import re
import sysconfig
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import repolens
from repolens.embed import EmbeddingError
from repolens.embed.local import LocalProvider
from repolens.embed.runtimes import (
    NUMPY,
    RUNTIMES,
    Runtime,
    choose_runtime,
    parse_runtime,
    why_unavailable,
)

REFERENCE = Path(__file__).parents[1] / "fixtures" / "embed" / "minilm_reference.json"
SOURCE = Path(repolens.__file__).parent
FP32 = [r for r in RUNTIMES if r.precision == "fp32" and r.device == "cpu" and r.engine != "numpy"]
STDLIB_MODULES = ("argparse", "calendar", "configparser", "csv", "difflib", "fractions",
                  "gettext", "ipaddress", "pathlib", "shutil", "statistics", "tarfile",
                  "textwrap", "zipfile")  # fmt: skip
REDUCED = [r for r in RUNTIMES if r.precision != "fp32" and r.device == "cpu"]


def _provider(runtime: Runtime) -> LocalProvider:
    if why := why_unavailable(runtime):
        pytest.skip(f"{runtime.name}: {why}")
    return LocalProvider(runtime=runtime.name)


@pytest.fixture(scope="module")
def reference() -> LocalProvider:
    return LocalProvider(runtime="numpy")


@pytest.fixture(scope="module")
def code_windows(reference: LocalProvider) -> list[str]:
    """Windows of real code as the indexer cuts them: repolens' own embedding package and
    stdlib modules."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [
        *sorted((SOURCE / "embed").glob("*.py")),
        *(stdlib / f"{m}.py" for m in STDLIB_MODULES),
    ]
    texts = [f.read_text(encoding="utf-8") for f in files]
    windows = [w for document in reference.windows(texts) for w in document]
    return windows[::8][:150]


@pytest.fixture(scope="module")
def reference_vectors(reference: LocalProvider, code_windows: list[str]) -> np.ndarray:
    return reference.embed_documents(code_windows)


@pytest.mark.parametrize("runtime", FP32, ids=lambda r: r.name)
def test_float32_runtimes_match_sentence_transformers(runtime: Runtime) -> None:
    provider = _provider(runtime)
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))
    expected = np.asarray(data["vectors"], dtype=np.float32)
    ours = provider.embed_documents(data["texts"])
    cosines = np.sum(ours * expected, axis=1) / np.linalg.norm(expected, axis=1)
    assert cosines.min() >= 0.999, cosines
    assert provider.profile.key() == LocalProvider(runtime="numpy").profile.key()


@pytest.mark.parametrize("runtime", REDUCED, ids=lambda r: r.name)
def test_reduced_precision_stays_near_float32_on_real_code(
    runtime: Runtime, code_windows: list[str], reference_vectors: np.ndarray
) -> None:
    provider = _provider(runtime)
    vectors = provider.embed_documents(code_windows)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    cosines = np.sum(vectors * reference_vectors, axis=1)
    assert cosines.mean() >= 0.99 and cosines.min() >= 0.97, (cosines.mean(), cosines.min())
    # Its vectors are not the reference's: they get a key of their own.
    assert provider.profile.key().endswith(":" + runtime.name)
    assert provider.profile.runtime == runtime.name


def _retrieval_set(reference_window: Callable[[str], str]) -> tuple[list[str], list[str]]:
    """Documented functions of stdlib modules (a corpus that does not move with this
    repository): (the first window of the code without its docstring, the docstring's
    first sentence), at most 300."""
    codes, queries = [], []
    for module in STDLIB_MODULES:
        text = (Path(sysconfig.get_paths()["stdlib"]) / f"{module}.py").read_text("utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef) or not ast.get_docstring(node):
                continue
            doc = node.body[0]
            sentence = re.split(r"(?<=\.)\s", " ".join(str(ast.get_docstring(node)).split()))[0]
            if len(sentence.split()) < 5 or not node.end_lineno or not doc.end_lineno:
                continue
            body = lines[node.lineno - 1 : doc.lineno - 1] + lines[doc.end_lineno : node.end_lineno]
            codes.append(reference_window("\n".join(body)))
            queries.append(sentence)
            if len(codes) == 300:
                return codes, queries
    return codes, queries


def _mrr(provider: LocalProvider, codes: list[str], queries: list[str]) -> float:
    documents = provider.embed_documents(codes)
    total = 0.0
    for index, query in enumerate(queries):
        scores = documents @ provider.embed_query(query)
        rank = int((scores > scores[index]).sum()) + 1
        total += 1 / rank if rank <= 10 else 0.0
    return total / len(queries)


@pytest.mark.parametrize("runtime", REDUCED, ids=lambda r: r.name)
def test_reduced_precision_keeps_retrieval_quality(
    runtime: Runtime, reference: LocalProvider
) -> None:
    provider = _provider(runtime)
    codes, queries = _retrieval_set(lambda code: reference.windows([code])[0][0])
    assert len(codes) >= 200
    baseline = _mrr(reference, codes, queries)
    assert baseline > 0.3  # the set is a real retrieval task, not noise
    assert abs(_mrr(provider, codes, queries) - baseline) <= 0.01


def test_auto_keeps_the_runtime_of_the_stored_vectors() -> None:
    for runtime in RUNTIMES:
        if not why_unavailable(runtime):
            assert choose_runtime("auto", runtime.vector_tag).vector_tag == runtime.vector_tag
    # A float32 index stays float32 (no silent re-embed), whatever else is installed.
    assert choose_runtime("auto", "").precision == "fp32"
    # A tag this machine cannot run: auto picks what it can (the index then needs --reembed).
    assert not why_unavailable(choose_runtime("auto", "no-such-runtime"))


def test_explicit_runtimes_are_checked() -> None:
    assert parse_runtime("numpy") == parse_runtime("numpy-fp32")
    assert parse_runtime("auto") is None
    with pytest.raises(EmbeddingError, match="unknown embedding runtime 'tpu'; choose one of"):
        parse_runtime("tpu")
    for runtime in RUNTIMES:
        if why := why_unavailable(runtime):
            with pytest.raises(EmbeddingError, match=re.escape(why)):
                LocalProvider(runtime=runtime.name)


def test_the_graph_is_built_once_and_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = next((r for r in RUNTIMES if r.engine != "numpy" and r.device == "cpu"
                    and not why_unavailable(r)), None)  # fmt: skip
    if runtime is None:
        pytest.skip("neither openvino nor onnxruntime is installed")
    monkeypatch.setenv("REPOLENS_CACHE_DIR", str(tmp_path / "cache"))
    first = LocalProvider(runtime=runtime.name).embed_documents(["def f(): return 1"])
    built = sorted((tmp_path / "cache").glob("*.onnx"))
    assert len(built) == 1
    stamp = built[0].stat().st_mtime_ns
    again = LocalProvider(runtime=runtime.name).embed_documents(["def f(): return 1"])
    assert built[0].stat().st_mtime_ns == stamp  # read back, not rebuilt
    np.testing.assert_allclose(first, again, atol=1e-6)


def test_health_names_the_runtime_and_the_gpu_runtimes() -> None:
    from repolens.mcp.health import runtime_line

    line = runtime_line(NUMPY)
    assert line.startswith("runtime numpy-fp32; GPU: ")
    assert "repolens[fast]" in line  # the slow reference says how to be faster
    gpus = [r for r in RUNTIMES if r.device != "cpu"]
    for runtime in gpus:
        assert runtime.name in line or "none (" not in line
    fast = choose_runtime("auto")
    if fast != NUMPY:
        assert "repolens[fast]" not in runtime_line(fast)
