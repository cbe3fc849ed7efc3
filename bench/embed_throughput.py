"""Throughput of the local provider's runtimes against sentence-transformers, same run.

All embed the same inputs: real code, functions of the Python standard library cut to
20-25 lines, split by our ``windows()`` (``--window-tokens`` word pieces, the default
windows) so that none truncates anything. Prints, per implementation, windows per second
(median and best of ``--repeats`` runs after a warm-up, all timed in turns), CPU time
per window and the cosine of its vectors to the numpy float32 reference (mean and
lowest). Every runtime that can run on this machine is measured: numpy fp32, OpenVINO
(bf16, fp32) and onnxruntime (int8, fp32) where installed.

    python bench/embed_throughput.py [--chunks 300] [--repeats 3] [--window-tokens 128]

sentence-transformers (and torch) are optional and never a repolens dependency: install
them in a separate virtual environment with repolens to get their line, else it says
"skipped".
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import sysconfig
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from repolens.config import usable_cores
from repolens.embed.local import DEFAULT_BATCH_TOKENS, WINDOW_TOKENS, LocalProvider
from repolens.embed.modelfiles import packaged_model_dir
from repolens.embed.runtimes import NUMPY, RUNTIMES, why_unavailable


def stdlib_chunks(count: int) -> list[str]:
    """The first 20-25 lines of functions of at least 20 lines, from stdlib modules."""
    chunks: list[str] = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                end = node.end_lineno or node.lineno
                if end - node.lineno >= 19:
                    take = 20 + len(chunks) % 6
                    chunks.append("\n".join(lines[node.lineno - 1 : node.lineno - 1 + take]))
                    if len(chunks) == count:
                        return chunks
    return chunks


Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass
class Timing:
    """Runs of one implementation: windows per second and CPU ms per window."""

    rates: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    vectors: np.ndarray | None = None

    def run(self, embed: Embed, texts: list[str]) -> None:
        start, start_cpu = time.perf_counter(), time.process_time()
        self.vectors = embed(texts)
        self.rates.append(len(texts) / (time.perf_counter() - start))
        self.cpu_ms.append((time.process_time() - start_cpu) * 1000 / len(texts))

    def report(self, name: str) -> float:
        """Print median and best rate (the best is the run least disturbed by other load)."""
        rate = statistics.median(self.rates)
        runs = ", ".join(f"{r:.1f}" for r in self.rates)
        print(
            f"{name:22s} median {rate:5.1f} windows/s, best {max(self.rates):5.1f} (runs {runs});"
            f" CPU {statistics.median(self.cpu_ms):5.1f} ms per window"
        )
        return rate


def compare(implementations: dict[str, Embed], texts: list[str], repeats: int) -> dict[str, Timing]:
    """Warm each implementation up, then time them in turns, so that a machine whose
    load changes during the run weighs on every implementation alike."""
    timings = {name: Timing() for name in implementations}
    for embed in implementations.values():
        embed(texts[:32])
    for _ in range(repeats):
        for name, embed in implementations.items():
            timings[name].run(embed, texts)
    return timings


def sentence_transformers_embed(
    model_dir: Path, batch_size: int
) -> Callable[[Sequence[str]], np.ndarray] | None:
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    model = SentenceTransformer(str(model_dir), device="cpu")
    print(f"sentence-transformers: torch {torch.__version__}, {torch.get_num_threads()} threads")

    def embed(texts: Sequence[str]) -> np.ndarray:
        return model.encode(
            list(texts), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True
        )

    return embed


def gemm_floor_ms(model_dir: Path, lengths: list[int]) -> tuple[float, float]:
    """The least CPU a float32 forward pass can take per window on this machine: the
    model's matrix-product FLOPs for these windows, over one core's measured GEMM rate.
    Returns (ms per window, GFLOP/s). Any float32 implementation, ours or torch's, spends
    at least this; only lower precision (int8, bf16) could go below it."""
    config = json.loads((model_dir / "config.json").read_text())
    hidden, inner = config["hidden_size"], config["intermediate_size"]
    layers = config["num_hidden_layers"]
    flops = sum(
        layers * n * (2 * (4 * hidden * hidden + 2 * hidden * inner) + 4 * n * hidden)
        for n in lengths
    )
    a = np.random.default_rng(0).random((256, hidden), dtype=np.float32)
    b = np.random.default_rng(1).random((hidden, inner), dtype=np.float32)
    out = np.empty((256, inner), dtype=np.float32)
    np.matmul(a, b, out=out)
    runs, start = 0, time.process_time()
    while time.process_time() - start < 0.5:
        np.matmul(a, b, out=out)
        runs += 1
    rate = 2 * 256 * hidden * inner * runs / (time.process_time() - start)
    return flops / rate * 1000 / len(lengths), rate / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-tokens", type=int, default=DEFAULT_BATCH_TOKENS, help="ours")
    parser.add_argument("--window-tokens", type=int, default=WINDOW_TOKENS)
    parser.add_argument("--st-batch-size", type=int, default=32, help="its default")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()

    model_dir = packaged_model_dir()
    providers: dict[str, LocalProvider] = {}
    for runtime in (NUMPY, *(r for r in RUNTIMES if r != NUMPY)):
        if why := why_unavailable(runtime):
            print(f"{runtime.name:22s} skipped ({why})")
            continue
        providers[runtime.name] = LocalProvider(
            batch_tokens=args.batch_tokens, workers=args.workers, runtime=runtime.name,
            window_tokens=args.window_tokens,
        )  # fmt: skip
    reference_provider = providers[NUMPY.name]
    chunks = stdlib_chunks(args.chunks)
    texts = [window for windows in reference_provider.windows(chunks) for window in windows]
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()  # tokenizer.json pads and cuts every text to 128 word pieces
    tokenizer.no_padding()
    lengths = [len(encoding.ids) for encoding in tokenizer.encode_batch(texts)]
    print(
        f"{len(chunks)} stdlib function chunks -> {len(texts)} windows of <= {args.window_tokens}"
        f" word pieces (mean {statistics.mean(lengths):.0f})"
    )
    workers = args.workers or usable_cores()
    print(f"repolens: {workers} workers, batches of {args.batch_tokens} word pieces")
    implementations: dict[str, Embed] = {
        name: provider.embed_documents for name, provider in providers.items()
    }
    st = sentence_transformers_embed(model_dir, args.st_batch_size)
    if st is not None:
        implementations["sentence-transformers"] = st
    timings = compare(implementations, texts, args.repeats)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    reference = timings[NUMPY.name].vectors
    assert reference is not None
    for name, timing in timings.items():
        timing.report(name)
        assert timing.vectors is not None
        cosines = np.sum(timing.vectors * reference, axis=1)
        print(f"{'':22s} cosine to numpy fp32: mean {cosines.mean():.5f}, min {cosines.min():.5f}")
    if st is None:
        print("sentence-transformers  skipped (not importable here)")
    base = statistics.median(timings[NUMPY.name].cpu_ms)
    print("CPU per window vs numpy fp32: " + ", ".join(
        f"{name} {base / statistics.median(t.cpu_ms):.2f}x" for name, t in timings.items()
    ))  # fmt: skip
    floor, rate = gemm_floor_ms(model_dir, lengths)
    print(
        f"float32 floor: {floor:.1f} ms CPU per window (the model's GEMM FLOPs at this core's"
        f" {rate:.0f} GFLOP/s); below it only with reduced precision (bf16, int8)"
    )


if __name__ == "__main__":
    main()
