"""Throughput of the local embedding provider against sentence-transformers, same run.

Both embed the same inputs: real code, functions of the Python standard library cut to
20-25 lines, split by our ``windows()`` so that neither side truncates anything. Prints
windows per second of each (median and best of ``--repeats`` runs after a warm-up, the
two timed in turns), CPU time per window, their ratio and the lowest cosine between the two
implementations' vectors.

    python bench/embed_throughput.py [--chunks 300] [--repeats 3] [--batch-tokens 4096]

sentence-transformers (and torch) are optional: without them its line says "skipped".
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
from repolens.embed.local import DEFAULT_BATCH_TOKENS, LocalProvider
from repolens.embed.modelfiles import packaged_model_dir


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
            f" CPU {statistics.median(self.cpu_ms):.0f} ms per window"
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
    parser.add_argument("--st-batch-size", type=int, default=32, help="its default")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()

    model_dir = packaged_model_dir()
    ours = LocalProvider(batch_tokens=args.batch_tokens, workers=args.workers)
    chunks = stdlib_chunks(args.chunks)
    texts = [window for chunk in chunks for window in ours.windows(chunk)]
    print(f"{len(chunks)} stdlib function chunks -> {len(texts)} windows of <= 256 word pieces")

    workers = args.workers or usable_cores()
    print(f"repolens numpy: {workers} workers, batches of {args.batch_tokens} word pieces")
    implementations: dict[str, Embed] = {"repolens numpy": ours.embed_documents}
    reference = sentence_transformers_embed(model_dir, args.st_batch_size)
    if reference is not None:
        implementations["sentence-transformers"] = reference
    timings = compare(implementations, texts, args.repeats)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    our_rate = timings["repolens numpy"].report("repolens numpy")
    if reference is None:
        print("sentence-transformers    skipped (not importable here)")
        return
    ref = timings["sentence-transformers"]
    ref_rate = ref.report("sentence-transformers")
    cpu_ratio = statistics.median(ref.cpu_ms) / statistics.median(timings["repolens numpy"].cpu_ms)
    best_ratio = max(timings["repolens numpy"].rates) / max(ref.rates)
    print(
        f"ratio ours / st: {our_rate / ref_rate:.2f}x median windows/s, {best_ratio:.2f}x best,"
        f" {cpu_ratio:.2f}x less CPU"
    )
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()  # tokenizer.json pads and cuts every text to 128 word pieces
    tokenizer.no_padding()
    lengths = [len(encoding.ids) for encoding in tokenizer.encode_batch(texts)]
    floor, rate = gemm_floor_ms(model_dir, lengths)
    print(
        f"float32 floor: {floor:.0f} ms CPU per window (the model's GEMM FLOPs at this core's"
        f" {rate:.0f} GFLOP/s); st is within {statistics.median(ref.cpu_ms) / floor:.2f}x of it"
    )
    ours_vectors, ref_vectors = timings["repolens numpy"].vectors, ref.vectors
    assert ours_vectors is not None and ref_vectors is not None
    cosines = np.sum(ours_vectors * ref_vectors, axis=1)
    print(f"min cosine ours vs st: {cosines.min():.6f}")


if __name__ == "__main__":
    main()
