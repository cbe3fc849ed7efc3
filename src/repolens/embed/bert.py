"""A BERT encoder forward pass in numpy, float32, for sentence-embedding models.

Why not torch: it is a 700 MB dependency for six small transformer layers. The
arithmetic here follows Hugging Face's ``BertModel`` (post-LayerNorm, exact erf GELU) so
vectors match sentence-transformers to about 1e-6. The speed comes from large float32
GEMMs in the BLAS numpy ships with, over sequences packed end to end so that no work is
spent on padding; a fused Q/K/V projection; attention a few heads at a time; and
element-wise work done in place on row blocks that stay in cache.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
Ids = npt.NDArray[np.int64]

# Abramowitz & Stegun 7.1.26: erf(z) = 1 - t * P(t) * exp(-z^2), t = 1 / (1 + p z), z >= 0,
# absolute error below 1.5e-7, i.e. at float32 resolution.
_AS_P = 0.3275911
_AS_COEFFS = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)

_ROW_BLOCK = 256
"""Rows per feed-forward GEMM block: large enough for an efficient GEMM (measured best)."""

_GELU_ROWS = 32
"""Rows per GELU slice: its four 32 x 1536 float32 arrays (768 KB) stay in a core's L2,
which made GELU twice as fast as on whole 256-row blocks."""

_ATTENTION_SCORES_BUDGET = 1 << 18
"""Attention scores formed at once (floats): 1 MB, so softmax passes stay in L2; a long
sequence is done a few heads at a time."""

_EXP_SAFE = 80.0
"""exp(s) for |s| <= 80 is a normal float32, neither overflowing nor denormal."""

_GELU_TAIL_LIMIT = 10.0
"""Beyond |x| = 10, x * Q(|x|) < 1e-22: the tail is clamped there, else exp(-x^2/2) would
produce denormals, which run a hundred times slower on x86."""


@dataclass(frozen=True, slots=True)
class BertConfig:
    """The few hyper-parameters of ``config.json`` that the forward pass needs."""

    hidden_size: int
    num_heads: int
    num_layers: int
    layer_norm_eps: float
    max_positions: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BertConfig:
        """Read a Hugging Face BERT ``config.json``; refuse what this pass cannot run."""
        if data.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"unsupported activation {data.get('hidden_act')!r}; need 'gelu'")
        if data.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported")
        return cls(
            hidden_size=int(data["hidden_size"]),
            num_heads=int(data["num_attention_heads"]),
            num_layers=int(data["num_hidden_layers"]),
            layer_norm_eps=float(data.get("layer_norm_eps", 1e-12)),
            max_positions=int(data.get("max_position_embeddings", 512)),
        )


@dataclass(frozen=True, slots=True)
class _Layer:
    """One encoder layer, weights laid out as (in, out) for ``x @ w``."""

    qkv_w: F32  # (H, 3H); the query third pre-scaled by 1/sqrt(head_dim)
    qkv_b: F32
    out_w: F32
    out_b: F32
    ln1_g: F32
    ln1_b: F32
    ff1_w: F32  # (H, I)
    ff1_b: F32
    ff2_w: F32  # (I, H)
    ff2_b: F32
    ln2_g: F32
    ln2_b: F32


class BertEncoder:
    """Immutable after construction, so one instance may serve many threads at once."""

    def __init__(self, weights: Mapping[str, npt.NDArray[Any]], config: BertConfig) -> None:
        self.config = config
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""

        def get(name: str) -> F32:
            return np.ascontiguousarray(weights[prefix + name], dtype=np.float32)

        self._word = get("embeddings.word_embeddings.weight")
        self._position = get("embeddings.position_embeddings.weight")
        # Single-segment input: token type 0 everywhere, so fold it into the positions.
        self._position = self._position + get("embeddings.token_type_embeddings.weight")[0]
        self._emb_ln = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
        self._layers = [
            _load_layer(get, f"encoder.layer.{i}.", config) for i in range(config.num_layers)
        ]

    def embed(self, ids: Ids, lengths: Ids) -> F32:
        """Mean-pooled, L2-normalised sentence vectors, shape (B, H).

        ``ids`` are the word-piece ids of B sequences laid end to end (no padding),
        ``lengths`` their lengths: every token-wise step then works on real tokens only.
        """
        hidden = self.forward(ids, lengths)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        pooled = np.add.reduceat(hidden, starts, axis=0)
        pooled /= lengths[:, None].astype(np.float32)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.ascontiguousarray(pooled / np.maximum(norms, 1e-12))

    def forward(self, ids: Ids, lengths: Ids) -> F32:
        """Last hidden states of the packed sequences, shape (sum(lengths), H)."""
        if len(lengths) == 0 or lengths.min() < 1 or lengths.sum() != len(ids):
            raise ValueError("lengths must be positive and add up to the number of ids")
        if lengths.max() > self.config.max_positions:
            raise ValueError(f"a sequence exceeds {self.config.max_positions} tokens")
        starts = np.cumsum(lengths) - lengths
        positions = np.arange(len(ids)) - np.repeat(starts, lengths)
        x = self._word[ids]
        x += self._position[positions]
        _layer_norm(x, *self._emb_ln, self.config.layer_norm_eps)
        for layer in self._layers:
            x = self._layer(x, layer, starts, lengths)
        return x

    def _layer(self, x: F32, layer: _Layer, starts: Ids, lengths: Ids) -> F32:
        eps = self.config.layer_norm_eps
        qkv = x @ layer.qkv_w
        qkv += layer.qkv_b
        context = _attention(qkv, starts, lengths, self.config.num_heads)
        attended = context @ layer.out_w
        attended += layer.out_b
        attended += x
        _layer_norm(attended, layer.ln1_g, layer.ln1_b, eps)
        return _feed_forward(attended, layer, eps)


def _attention(qkv: F32, starts: Ids, lengths: Ids, heads: int) -> F32:
    """Multi-head self-attention of each packed sequence over its own tokens.

    ``qkv`` holds the projected queries, keys and values of sequences laid end to end,
    shape (N, 3H). Scores are formed a few heads at a time in reused buffers that stay in
    cache. Softmax skips the usual max subtraction when the scores provably cannot
    overflow, and takes its row sums from the same GEMM as the weighted values (a column
    of ones appended to V): each saves a pass over the T x T scores.
    """
    hidden = qkv.shape[1] // 3
    head_dim = hidden // heads
    # (N, 3, heads, d) -> (3, heads, N, d): views, no copies.
    q, k, v = qkv.reshape(-1, 3, heads, head_dim).transpose(1, 2, 0, 3)
    unsafe = _score_bound(qkv, starts, heads) > _EXP_SAFE
    context = np.empty((qkv.shape[0], heads, head_dim), dtype=np.float32)
    longest = int(lengths.max())
    group = min(heads, max(1, _ATTENTION_SCORES_BUDGET // (longest * longest)))
    scores_buf = np.empty(group * longest * longest, dtype=np.float32)
    values_buf = np.empty(group * longest * (head_dim + 1), dtype=np.float32)
    weighted_buf = np.empty_like(values_buf)
    for index, (start, length) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
        rows = slice(start, start + length)
        for first in range(0, heads, group):
            h = min(group, heads - first)
            hs = slice(first, first + h)
            scores = scores_buf[: h * length * length].reshape(h, length, length)
            np.matmul(q[hs, rows], k[hs, rows].transpose(0, 2, 1), out=scores)
            if unsafe[index]:
                scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            values = values_buf[: h * length * (head_dim + 1)].reshape(h, length, head_dim + 1)
            values[..., :head_dim] = v[hs, rows]
            values[..., head_dim] = 1.0
            weighted = weighted_buf[: values.size].reshape(values.shape)
            np.matmul(scores, values, out=weighted)
            sums = weighted[..., head_dim:]
            np.reciprocal(sums, out=sums)
            out = context[rows, hs].transpose(1, 0, 2)
            np.multiply(weighted[..., :head_dim], sums, out=out)
    return context.reshape(qkv.shape[0], hidden)


def _score_bound(qkv: F32, starts: Ids, heads: int) -> F32:
    """Per sequence, a bound on |q . k| over all heads and positions (Cauchy-Schwarz)."""
    hidden = qkv.shape[1] // 3
    qk = qkv[:, : 2 * hidden].reshape(qkv.shape[0], 2 * heads, hidden // heads)
    norms = np.maximum.reduceat(np.einsum("nhd,nhd->nh", qk, qk), starts, axis=0)
    bound: F32 = np.sqrt(norms[:, :heads] * norms[:, heads:]).max(axis=1)
    return bound


def _load_layer(get: Any, prefix: str, config: BertConfig) -> _Layer:
    scale = np.float32(1.0 / math.sqrt(config.hidden_size // config.num_heads))
    attn = prefix + "attention."
    q_w, q_b = get(attn + "self.query.weight") * scale, get(attn + "self.query.bias") * scale
    qkv_w = np.concatenate([q_w, get(attn + "self.key.weight"), get(attn + "self.value.weight")])
    qkv_b = np.concatenate([q_b, get(attn + "self.key.bias"), get(attn + "self.value.bias")])
    return _Layer(
        qkv_w=np.ascontiguousarray(qkv_w.T),
        qkv_b=qkv_b,
        out_w=np.ascontiguousarray(get(attn + "output.dense.weight").T),
        out_b=get(attn + "output.dense.bias"),
        ln1_g=get(attn + "output.LayerNorm.weight"),
        ln1_b=get(attn + "output.LayerNorm.bias"),
        ff1_w=np.ascontiguousarray(get(prefix + "intermediate.dense.weight").T),
        ff1_b=get(prefix + "intermediate.dense.bias"),
        ff2_w=np.ascontiguousarray(get(prefix + "output.dense.weight").T),
        ff2_b=get(prefix + "output.dense.bias"),
        ln2_g=get(prefix + "output.LayerNorm.weight"),
        ln2_b=get(prefix + "output.LayerNorm.bias"),
    )


def _feed_forward(x: F32, layer: _Layer, eps: float) -> F32:
    """LayerNorm(x + W2 gelu(W1 x)), one row block at a time so the 4x-wide middle stays
    in cache; GELU runs on smaller slices still, as its twenty passes are memory-bound."""
    out = np.empty_like(x)
    rows = min(_ROW_BLOCK, x.shape[0])
    middle = np.empty((rows, layer.ff1_w.shape[1]), dtype=np.float32)
    gelu_rows = min(_GELU_ROWS, rows)
    scratch = [np.empty((gelu_rows, middle.shape[1]), dtype=np.float32) for _ in range(3)]
    for start in range(0, x.shape[0], rows):
        n = min(rows, x.shape[0] - start)
        block_in, block_out = x[start : start + n], out[start : start + n]
        mid = np.matmul(block_in, layer.ff1_w, out=middle[:n])
        mid += layer.ff1_b
        for sub in range(0, n, gelu_rows):
            part = mid[sub : sub + gelu_rows]
            _gelu_inplace(part, *(buf[: len(part)] for buf in scratch))
        np.matmul(mid, layer.ff2_w, out=block_out)
        block_out += layer.ff2_b
        block_out += block_in
    _layer_norm(out, layer.ln2_g, layer.ln2_b, eps)
    return out


def _gelu_inplace(x: F32, a: F32, t: F32, poly: F32) -> None:
    """x * Phi(x) with the exact (erf) normal CDF, as BERT was trained; no tanh shortcut.

    Written as relu(x) - |x| * Q(|x|), Q being the upper normal tail, so one tail
    evaluation serves both signs. ``a``, ``t`` and ``poly`` are scratch arrays shaped like
    ``x``: numpy temporaries of this size would cost a page-faulting allocation each.
    """
    np.abs(x, out=a)
    np.minimum(a, np.float32(_GELU_TAIL_LIMIT), out=a)
    np.multiply(a, np.float32(_AS_P / math.sqrt(2.0)), out=t)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    np.multiply(t, np.float32(_AS_COEFFS[-1] / 2), out=poly)
    for coeff in reversed(_AS_COEFFS[:-1]):
        poly += np.float32(coeff / 2)
        poly *= t
    np.square(a, out=t)
    t *= np.float32(-0.5)
    np.exp(t, out=t)
    poly *= t
    poly *= a
    np.maximum(x, np.float32(0.0), out=x)
    x -= poly


def _layer_norm(x: F32, gamma: F32, beta: F32, eps: float) -> None:
    """In-place LayerNorm over the rows of a 2-D array."""
    x -= x.mean(axis=1, keepdims=True)
    inv_std = np.einsum("ij,ij->i", x, x)[:, None]
    inv_std *= np.float32(1.0 / x.shape[1])
    inv_std += np.float32(eps)
    np.sqrt(inv_std, out=inv_std)
    np.reciprocal(inv_std, out=inv_std)
    x *= inv_std
    x *= gamma
    x += beta
