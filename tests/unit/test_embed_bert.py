"""The numpy BERT's numerical shortcuts agree with the plain formulas they replace.

The fast pass folds biases into other terms, scales weights, takes exp2 of scores in log2
units and evaluates GELU by a fitted polynomial: each is exact algebra or within float32
resolution, which these tests hold it to against a plain float64 BERT written out here.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from safetensors.numpy import load_file
from threadpoolctl import threadpool_limits

from repolens.embed import bert
from repolens.embed.local import LocalProvider
from repolens.embed.modelfiles import load_model_files

F64 = npt.NDArray[np.float64]
_ERF = np.vectorize(math.erf, otypes=[np.float64])


@pytest.fixture(scope="module")
def weights() -> dict[str, npt.NDArray[Any]]:
    return dict(load_file(load_model_files(None).weights))


@pytest.fixture(scope="module")
def weights64(weights: dict[str, npt.NDArray[Any]]) -> dict[str, F64]:
    """The weights as float64, names without the optional "bert." prefix."""
    return {name.removeprefix("bert."): value.astype(np.float64) for name, value in weights.items()}


@pytest.fixture(scope="module")
def encoder(weights: dict[str, npt.NDArray[Any]]) -> bert.BertEncoder:
    return bert.BertEncoder(weights, bert.BertConfig.from_json(load_model_files(None).config))


def _plain_embed(weights: Mapping[str, F64], ids: list[int]) -> F64:
    """One sequence through BERT as the paper writes it, float64, erf GELU, max-shifted
    softmax, every bias added where it belongs; mean-pooled and normalised."""
    config = load_model_files(None).config
    heads, eps = int(config["num_attention_heads"]), float(config["layer_norm_eps"])
    w = weights.__getitem__

    def linear(x: F64, name: str) -> F64:
        return x @ w(name + ".weight").T + w(name + ".bias")

    def layer_norm(x: F64, name: str) -> F64:
        centred = x - x.mean(axis=1, keepdims=True)
        normed = centred / np.sqrt((centred**2).mean(axis=1, keepdims=True) + eps)
        return normed * w(name + ".weight") + w(name + ".bias")

    n = len(ids)
    x = w("embeddings.word_embeddings.weight")[ids] + w("embeddings.position_embeddings.weight")[:n]
    x = layer_norm(x + w("embeddings.token_type_embeddings.weight")[0], "embeddings.LayerNorm")
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        q, k, v = (
            np.ascontiguousarray(
                linear(x, p + f"attention.self.{part}").reshape(n, heads, -1).transpose(1, 0, 2)
            )
            for part in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
        probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
        probs /= probs.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(1, 0, 2).reshape(n, -1)
        h = layer_norm(
            linear(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm"
        )
        inner = linear(h, p + "intermediate.dense")
        inner = inner * 0.5 * (1.0 + _ERF(inner / math.sqrt(2.0)))
        x = layer_norm(linear(inner, p + "output.dense") + h, p + "output.LayerNorm")
    pooled = x.mean(axis=0)
    return pooled / np.linalg.norm(pooled)


@pytest.mark.parametrize("lengths", [[1], [256], [5, 1, 256, 40]])
def test_fast_pass_equals_plain_bert(
    weights64: dict[str, F64], encoder: bert.BertEncoder, lengths: list[int]
) -> None:
    """Folded biases, scaled weights, exp2 softmax and polynomial GELU change nothing
    beyond float32 rounding, for 1-token and 256-token sequences and one-sequence batches."""
    rng = np.random.default_rng(sum(lengths))
    sequences = [
        [101, *rng.integers(1000, 30000, size=max(n - 2, 0)).tolist(), 102][:n] for n in lengths
    ]
    ids = np.array([token for seq in sequences for token in seq], dtype=np.int64)
    ours = encoder.embed(ids, np.array(lengths, dtype=np.int64))
    with threadpool_limits(limits=1, user_api="blas"):  # small GEMMs: threads only spin
        expected = np.stack([_plain_embed(weights64, seq) for seq in sequences])
    assert ours.dtype == np.float32
    # float32 resolution, whatever kernels the machine's BLAS picks (OPENBLAS_CORETYPE):
    # each component within a few float32 ulps of 1, unit length and direction to within
    # one ulp (the raw dot of float32 unit vectors is 1 only to about 1e-8).
    eps = float(np.finfo(np.float32).eps)
    ours64 = ours.astype(np.float64)
    norms = np.linalg.norm(ours64, axis=1)
    assert np.abs(ours64 - expected).max() < 8 * eps
    assert np.abs(norms - 1).max() < eps
    assert ((ours64 * expected).sum(axis=1) / norms).min() > 1 - eps


def _blas_kernel(environ: dict[str, str]) -> str | None:
    """The OpenBLAS kernel a fresh interpreter picks under ``environ`` (None: not OpenBLAS)."""
    probe = (
        "import numpy, threadpoolctl; print(next((i.get('architecture') or '' for i in "
        "threadpoolctl.threadpool_info() if i['internal_api'] == 'openblas'), ''))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], env=environ, capture_output=True, text=True, check=True
    ).stdout.strip()
    return out or None


def test_parity_holds_under_another_blas_kernel() -> None:
    """Machines set OPENBLAS_CORETYPE (older OpenBLAS builds go wrong on some processors),
    which changes GEMM rounding: the parity above must hold under another kernel too, in a
    fresh process, as a user's shell would run it."""
    own = _blas_kernel(dict(os.environ))
    if own is None:
        pytest.skip("numpy's BLAS is not OpenBLAS: no kernel to choose")
    for kernel in ("Sandybridge", "Haswell"):
        environ = {**os.environ, "OPENBLAS_CORETYPE": kernel}
        if (
            kernel.lower() != own.lower()
            and (_blas_kernel(environ) or "").lower() == kernel.lower()
        ):
            break
    else:
        pytest.skip(f"this OpenBLAS offers no kernel besides {own}")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"{__file__}::test_fast_pass_equals_plain_bert",
        ],
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"under OPENBLAS_CORETYPE={kernel}:\n{run.stdout[-3000:]}"


def test_gelu_matches_the_erf_definition_everywhere() -> None:
    x = np.concatenate([np.linspace(-30, 30, 60001), [0.0, 1e-7, -1e-7, 13.5, -13.5]])
    expected = x * 0.5 * (1.0 + _ERF(x / math.sqrt(2.0)))
    # _gelu_scaled works on s x and returns 2 s gelu(x) (the factors live in the weights).
    values = (x * bert._GELU_SCALE).astype(np.float32).reshape(1, -1)
    cap = np.full(values.shape[1], bert._GELU_CAP * bert._GELU_SCALE, dtype=np.float32)
    bert._gelu_scaled(values, cap, np.empty_like(values), np.empty_like(values))
    got = values[0] / (2 * bert._GELU_SCALE)
    assert np.isfinite(got).all()
    # float32 resolution: relative to max(1, |x|), as float32 rounds x itself that finely
    assert (np.abs(got - expected) / np.maximum(1.0, np.abs(x))).max() < 5e-7
    # and not the tanh approximation, which is off by ~1e-4 around |x| = 2
    tanh_gelu = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert np.abs(got - expected).max() < np.abs(tanh_gelu - expected).max() / 100


def test_gelu_of_huge_inputs_is_relu() -> None:
    x = np.array([[-3e38, -1e20, -40.0, 40.0, 1e20, 3e37]], dtype=np.float32)
    values = x * np.float32(bert._GELU_SCALE)
    cap = np.full(x.shape[1], bert._GELU_CAP * bert._GELU_SCALE, dtype=np.float32)
    with np.errstate(all="raise"):  # no overflow, no invalid operation
        bert._gelu_scaled(values, cap, np.empty_like(values), np.empty_like(values))
    got = values / np.float32(2 * bert._GELU_SCALE)
    np.testing.assert_allclose(got, np.maximum(x, 0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("spread", [1.0, 4.0])
def test_attention_equals_plain_softmax_even_for_huge_scores(spread: float) -> None:
    """Scores of +-300 (log2 units: the shifted path) and ordinary ones (the unshifted
    path) both give softmax(2**scores) V, for sequences of 1, 2 and 50 tokens."""
    heads, dim, lengths = 12, 32, np.array([1, 50, 2], dtype=np.int64)
    rng = np.random.default_rng(7)
    qkv = (rng.standard_normal((int(lengths.sum()), 3 * heads * dim)) * spread).astype(np.float32)
    qkv[:, 2 * heads * dim :] /= spread  # values of ordinary size
    starts = np.cumsum(lengths) - lengths
    context = np.empty((len(qkv), heads * dim), dtype=np.float32)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        bert._attention(qkv, starts, lengths, heads, context)
    q, k, v = qkv.reshape(-1, 3, heads, dim).transpose(1, 2, 0, 3)
    for start, n in zip(starts, lengths, strict=True):
        rows = slice(start, start + n)
        # float32 scores, as ours (at +-400, float32 itself is off by 1e-4), softmax in float64
        scores = (q[:, rows] @ k[:, rows].transpose(0, 2, 1)).astype(np.float64)
        if n == 50:  # the shifted path, with scores far below the exp2 floor; or neither
            assert (np.abs(scores).max() > 2 * 126) == (spread > 1)
        probs = np.exp2(scores - scores.max(axis=-1, keepdims=True))
        expected = (probs / probs.sum(axis=-1, keepdims=True)) @ v[:, rows].astype(np.float64)
        got = context[rows].reshape(n, heads, dim).transpose(1, 0, 2)
        np.testing.assert_allclose(got, expected, atol=1e-5)


def test_softmax_without_max_shift_equals_the_shifted_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skipping the max subtraction (scores provably small) must not change any vector."""
    provider = LocalProvider(workers=1)
    texts = ["def f(x):\n    return x * 2", "a sentence of prose " * 20, "x"]
    fast = provider.embed_documents(texts)
    monkeypatch.setattr(bert, "_EXP_SAFE", 0.0)  # every group takes the shifted path
    shifted = provider.embed_documents(texts)
    np.testing.assert_allclose(fast, shifted, atol=1e-6)


def test_attention_grouping_and_row_blocks_do_not_change_vectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Scores one head at a time or all at once, and row blocks of any size, agree."""
    provider = LocalProvider(workers=1)
    texts = [f"def handler_{i}(request):\n    return {i}" * (i + 1) for i in range(5)]
    default = provider.embed_documents(texts)
    for budget, rows in ((1, 7), (1 << 24, 1 << 16)):
        monkeypatch.setattr(bert, "_ATTENTION_SCORES_BUDGET", budget)
        monkeypatch.setattr(bert, "_ROW_BLOCK", rows)
        np.testing.assert_allclose(provider.embed_documents(texts), default, atol=1e-6)
