"""A BERT encoder forward pass in numpy, float32, for sentence-embedding models.

Why not torch: it is a 700 MB dependency for six small transformer layers. The
arithmetic here follows Hugging Face's ``BertModel`` (post-LayerNorm, exact erf GELU) so
vectors match sentence-transformers to about 1e-6. The speed comes from large float32
GEMMs in the BLAS numpy ships with, over sequences packed end to end so that no work is
spent on padding; a fused Q/K/V projection; attention a few heads at a time; and
element-wise work done in place on row blocks that stay in cache, in as few numpy passes
as possible (each pass costs about as much as the arithmetic it does).
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

_LOG_ERFC = (
    -0.7979144328671617,
    -0.3180957489217249,
    -0.036902490819009474,
    0.00552998284654672,
    -0.0005129813644318117,
    2.075863667106285e-05,
)
"""log erfc(a / sqrt 2) ~ sum(c_i a^i, i = 1..6) for 0 <= a <= 6, fitted minimax on
a * erfc(a / sqrt 2): absolute error below 1.7e-7, i.e. GELU exact to 1e-7 (float32
resolution), as the Abramowitz-Stegun erf it replaces, in 16 numpy passes instead of 21."""

_GELU_CAP = 6.0
"""a * erfc(a / sqrt 2) < 1.3e-8 beyond a = 6: the tail is evaluated at 6 there, where
the polynomial is still valid and exp() of it is a normal float (no slow denormals)."""

_LOG2_E = 1 / math.log(2)
"""numpy's float32 exp2 is 1.5x faster than its exp: exponents are scaled by log2(e)."""

_GELU_SCALE = (_LOG_ERFC[-1] * _LOG2_E) ** (1 / len(_LOG_ERFC))
"""The feed-forward's first layer is scaled by this (its second by its inverse), which
makes the polynomial (in log2 units) in the scaled |x| monic: one numpy pass fewer."""

_GELU_HORNER = tuple(c * _LOG2_E / _GELU_SCALE ** (i + 1) for i, c in enumerate(_LOG_ERFC[:-1]))

_ROW_BLOCK = 1024
"""Rows per block of the token-wise part of a layer (output projection, LayerNorms,
feed-forward): large enough for efficient GEMMs, small enough to stay in cache."""

_GELU_ROWS = 32
"""Rows per GELU slice: its three 32 x 1536 float32 arrays (576 KB) stay in a core's L2,
which made GELU twice as fast as on whole 256-row blocks."""

_ATTENTION_SCORES_BUDGET = 1 << 18
"""Attention scores formed at once (floats): 1 MB, so softmax passes stay in L2; a long
sequence is done a few heads at a time."""

_EXP_SAFE = 115.0
"""2**s for |s| <= 115 is a normal float32, neither overflowing nor denormal, with room
for the sum of 256 of them times a value."""

_EXP_FLOOR = np.float32(-126.0)
"""Shifted scores are clamped here: 2**s below 2**-126 is denormal (or flushed to zero),
and numpy's exp2 makes those 20 to 180 times slower, as does the GEMM that reads them.
Such terms are below float32 resolution against the row's largest, which is 1."""


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

    qkv_w: F32  # (H, 3H); the query third pre-scaled by log2(e)/sqrt(head_dim)
    q_b: F32  # the only bias of the three that needs adding (see _load_layer)
    out_w: F32
    out_b: F32  # includes the value bias's image
    ln1_g: F32
    ln1_b: F32  # includes the feed-forward output bias
    ff1_w: F32  # (H, I), scaled by _GELU_SCALE
    ff1_b: F32
    ff2_w: F32  # (I, H), scaled by 1 / (2 _GELU_SCALE): our GELU returns 2 s gelu(x)
    ln2_g: F32
    ln2_b: F32


class BertEncoder:
    """Immutable after construction, so one instance may serve many threads at once."""

    parallel = True

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
        inner = self._layers[0].ff1_w.shape[1]
        self._gelu_cap = np.full(inner, _GELU_CAP * _GELU_SCALE, dtype=np.float32)
        self._mean_weights = np.full(config.hidden_size, 1 / config.hidden_size, np.float32)

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
        _layer_norm(x, *self._emb_ln, self.config.layer_norm_eps, self._mean_weights)
        # Buffers reused by every layer: fresh large arrays would page-fault on first touch.
        qkv = np.empty((len(ids), self._layers[0].qkv_w.shape[1]), dtype=np.float32)
        context = np.empty_like(x)
        for layer in self._layers:
            np.matmul(x, layer.qkv_w, out=qkv)
            qkv[:, : len(layer.q_b)] += layer.q_b
            _attention(qkv, starts, lengths, self.config.num_heads, context)
            self._token_wise(x, context, layer)
        return x

    def _token_wise(self, x: F32, context: F32, layer: _Layer) -> None:
        """x <- LayerNorm(h + FFN(h)), h = LayerNorm(x + context W_out), in place, a row
        block at a time, so that h and the 4x-wide middle stay in cache."""
        eps, mean_weights = self.config.layer_norm_eps, self._mean_weights
        rows = min(_ROW_BLOCK, x.shape[0])
        h_buf = np.empty((rows, x.shape[1]), dtype=np.float32)
        middle = np.empty((rows, layer.ff1_w.shape[1]), dtype=np.float32)
        gelu_rows = min(_GELU_ROWS, rows)
        scratch = [np.empty((gelu_rows, middle.shape[1]), dtype=np.float32) for _ in range(2)]
        for start in range(0, x.shape[0], rows):
            n = min(rows, x.shape[0] - start)
            block = x[start : start + n]
            h = np.matmul(context[start : start + n], layer.out_w, out=h_buf[:n])
            h += layer.out_b
            h += block
            _layer_norm(h, layer.ln1_g, layer.ln1_b, eps, mean_weights)
            mid = np.matmul(h, layer.ff1_w, out=middle[:n])
            for sub in range(0, n, gelu_rows):
                part = mid[sub : sub + gelu_rows]
                part += layer.ff1_b
                _gelu_scaled(part, self._gelu_cap, *(buf[: len(part)] for buf in scratch))
            np.matmul(mid, layer.ff2_w, out=block)
            block += h
            _layer_norm(block, layer.ln2_g, layer.ln2_b, eps, mean_weights)


def _attention(qkv: F32, starts: Ids, lengths: Ids, heads: int, context: F32) -> None:
    """Multi-head self-attention of each packed sequence over its own tokens, into
    ``context`` (N, H).

    ``qkv`` holds the projected queries, keys and values of sequences laid end to end,
    shape (N, 3H). Scores are formed a few heads at a time in reused buffers that stay in
    cache. Scores are in log2 units (see _load_layer) for exp2. Softmax skips the usual
    max subtraction when the scores provably can neither overflow nor underflow into slow
    denormals; its row sums come from a matrix-vector product (faster than numpy's sum),
    and its division is done once for all sequences, on the (N, H) context rather than
    on the T x T scores.
    """
    hidden = qkv.shape[1] // 3
    head_dim = hidden // heads
    # (N, 3, heads, d) -> (3, heads, N, d): views, no copies.
    q, k, v = qkv.reshape(-1, 3, heads, head_dim).transpose(1, 2, 0, 3)
    out = context.reshape(qkv.shape[0], heads, head_dim)
    unsafe = _score_bound(qkv, starts, heads) > _EXP_SAFE
    longest = int(lengths.max())
    group = min(heads, max(1, _ATTENTION_SCORES_BUDGET // (longest * longest)))
    scores_buf = np.empty(group * longest * longest, dtype=np.float32)
    sums_buf = np.empty(group * longest, dtype=np.float32)
    ones = np.ones(longest, dtype=np.float32)
    sums = np.empty((qkv.shape[0], heads), dtype=np.float32)
    for index, (start, length) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
        rows = slice(start, start + length)
        for first in range(0, heads, group):
            h = min(group, heads - first)
            hs = slice(first, first + h)
            scores = scores_buf[: h * length * length].reshape(h, length, length)
            np.matmul(q[hs, rows], k[hs, rows].transpose(0, 2, 1), out=scores)
            if unsafe[index]:
                scores -= scores.max(axis=-1, keepdims=True)
                np.maximum(scores, _EXP_FLOOR, out=scores)
            np.exp2(scores, out=scores)
            row_sums = sums_buf[: h * length].reshape(h, length)
            np.matmul(scores, ones[:length], out=row_sums)
            sums[rows, hs] = row_sums.T
            np.matmul(scores, v[hs, rows], out=out[rows, hs].transpose(1, 0, 2))
    np.reciprocal(sums, out=sums)
    out *= sums[:, :, None]


def _score_bound(qkv: F32, starts: Ids, heads: int) -> F32:
    """Per sequence, a bound on |q . k| over all heads and positions (Cauchy-Schwarz)."""
    hidden = qkv.shape[1] // 3
    qk = qkv[:, : 2 * hidden].reshape(qkv.shape[0], 2 * heads, hidden // heads)
    norms = np.maximum.reduceat(np.einsum("nhd,nhd->nh", qk, qk), starts, axis=0)
    bound: F32 = np.sqrt(norms[:, :heads] * norms[:, heads:]).max(axis=1)
    return bound


def _load_layer(get: Any, prefix: str, config: BertConfig) -> _Layer:
    """Lay out one layer's weights for ``x @ w`` and fold away the bias adds that need no
    pass of their own (each fold is exact algebra; it moves float32 rounding only):

    - the key bias adds q_i . b_k to every score of query i, which softmax cancels;
    - softmax rows sum to 1, so the value bias adds b_v W_out to the output projection;
    - the feed-forward output bias goes into LayerNorm 1's beta (the residual input of
      the feed-forward), and its feed-forward image b W_1 out of W_1's bias.

    Scores come out in log2 units for exp2: log2(e)/sqrt(head_dim) is folded into the
    queries; and the feed-forward is scaled for _gelu_scaled.
    """
    attn = prefix + "attention."

    def get64(name: str) -> npt.NDArray[np.float64]:
        return np.asarray(get(name), dtype=np.float64)

    q_scale = _LOG2_E / math.sqrt(config.hidden_size // config.num_heads)
    q_w, q_b = get64(attn + "self.query.weight") * q_scale, get64(attn + "self.query.bias")
    k_w, v_w = get64(attn + "self.key.weight"), get64(attn + "self.value.weight")
    out_w, ff1_w = get64(attn + "output.dense.weight"), get64(prefix + "intermediate.dense.weight")
    ff2_w, ff2_b = get64(prefix + "output.dense.weight"), get64(prefix + "output.dense.bias")
    out_b = get64(attn + "output.dense.bias") + out_w @ get64(attn + "self.value.bias")
    ff1_b = get64(prefix + "intermediate.dense.bias") - ff1_w @ ff2_b

    def f32(array: npt.NDArray[np.float64]) -> F32:
        return np.ascontiguousarray(array, dtype=np.float32)

    return _Layer(
        qkv_w=f32(np.concatenate([q_w, k_w, v_w]).T),
        q_b=f32(q_b * q_scale),
        out_w=f32(out_w.T),
        out_b=f32(out_b),
        ln1_g=get(attn + "output.LayerNorm.weight"),
        ln1_b=f32(get64(attn + "output.LayerNorm.bias") + ff2_b),
        ff1_w=f32(ff1_w.T * _GELU_SCALE),
        ff1_b=f32(ff1_b * _GELU_SCALE),
        ff2_w=f32(ff2_w.T * (0.5 / _GELU_SCALE)),
        ln2_g=get(prefix + "output.LayerNorm.weight"),
        ln2_b=get(prefix + "output.LayerNorm.bias"),
    )


def _gelu_scaled(x: F32, cap: F32, a: F32, t: F32) -> None:
    """x <- 2 s gelu(x / s), s = _GELU_SCALE, with the exact (erf) normal CDF, as BERT was
    trained; no tanh shortcut.

    Written as 2 gelu(x) = x + |x| - G(|x|), G(a) = a erfc(a / sqrt 2) = a exp(P(a)): no
    sign test, no division, one exp, and P a monic polynomial in the scaled |x| (see
    _LOG_ERFC). ``cap`` is a row of _GELU_CAP * s (an array: numpy's minimum against a
    scalar is four times slower); ``a`` and ``t`` are scratch arrays shaped like ``x``.
    """
    np.abs(x, out=a)
    x += a
    np.minimum(a, cap, out=a)
    np.add(a, np.float32(_GELU_HORNER[-1]), out=t)
    for coeff in reversed(_GELU_HORNER[:-1]):
        t *= a
        t += np.float32(coeff)
    t *= a
    np.exp2(t, out=t)
    t *= a
    x -= t


def _layer_norm(x: F32, gamma: F32, beta: F32, eps: float, mean_weights: F32) -> None:
    """In-place LayerNorm over the rows of a 2-D array. ``mean_weights`` is a row of 1/H:
    row means as a matrix-vector product are faster than numpy's pairwise ``mean``."""
    x -= (x @ mean_weights)[:, None]
    inv_std = np.einsum("ij,ij->i", x, x)[:, None]
    inv_std *= np.float32(1.0 / x.shape[1])
    inv_std += np.float32(eps)
    np.sqrt(inv_std, out=inv_std)
    np.reciprocal(inv_std, out=inv_std)
    x *= inv_std
    x *= gamma
    x += beta
