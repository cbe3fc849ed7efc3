"""The numpy BERT's numerical shortcuts agree with the plain formulas they replace."""

from __future__ import annotations

import math

import numpy as np
import pytest

from repolens.embed import bert
from repolens.embed.local import LocalProvider


def test_gelu_matches_the_erf_definition_everywhere() -> None:
    x = np.concatenate([np.linspace(-30, 30, 6001), [0.0, 1e-7, -1e-7, 13.5, -13.5]])
    expected = np.array([v * 0.5 * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x])
    values = x.astype(np.float32).reshape(1, -1)
    scratch = [np.empty_like(values) for _ in range(3)]
    bert._gelu_inplace(values, *scratch)
    assert np.isfinite(values).all()
    assert np.abs(values[0] - expected).max() < 1e-5
    # and not the tanh approximation, which is off by ~1e-4 around |x| = 2
    tanh_gelu = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert np.abs(values[0] - expected).max() < np.abs(tanh_gelu - expected).max() / 10


def test_softmax_without_max_shift_equals_the_shifted_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skipping the max subtraction (scores provably small) must not change any vector."""
    provider = LocalProvider(workers=1)
    texts = ["def f(x):\n    return x * 2", "a sentence of prose " * 20, "x"]  # padded batch
    fast = provider.embed_documents(texts)
    monkeypatch.setattr(bert, "_EXP_SAFE", 0.0)  # every group takes the shifted path
    shifted = provider.embed_documents(texts)
    np.testing.assert_allclose(fast, shifted, atol=1e-6)


def test_attention_grouping_does_not_change_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scores formed one head at a time or many sequences at a time give the same result."""
    provider = LocalProvider(workers=1)
    texts = [f"def handler_{i}(request):\n    return {i}" * (i + 1) for i in range(5)]
    default = provider.embed_documents(texts)
    for budget in (1, 1 << 24):
        monkeypatch.setattr(bert, "_ATTENTION_SCORES_BUDGET", budget)
        np.testing.assert_allclose(provider.embed_documents(texts), default, atol=1e-6)
