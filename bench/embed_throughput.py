"""Throughput of the local embedding provider against sentence-transformers, same run.

Both embed the same inputs: real code, functions of the Python standard library cut to
20-25 lines, split by our ``windows()`` so that neither side truncates anything. Prints
windows per second of each (median of ``--repeats`` timed runs after a warm-up), their
ratio and the lowest cosine between the two implementations' vectors.

    python bench/embed_throughput.py [--chunks 300] [--repeats 3] [--batch-size 16]

sentence-transformers (and torch) are optional: without them its line says "skipped".
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import sysconfig
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from repolens.embed.local import DEFAULT_BATCH_SIZE, LocalProvider, default_workers
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


def timed(
    embed: Callable[[Sequence[str]], np.ndarray], texts: list[str], repeats: int
) -> tuple[float, np.ndarray]:
    """Median items/s over ``repeats`` runs after a warm-up run; also the last vectors.

    CPU milliseconds per item (all threads of this process) are printed too: on a shared
    machine they move less than wall time.
    """
    vectors = embed(texts)
    rates, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        vectors = embed(texts)
        rates.append(len(texts) / (time.perf_counter() - start))
        cpu.append((time.process_time() - start_cpu) * 1000 / len(texts))
    print(f"    runs: {', '.join(f'{rate:.1f}' for rate in rates)} /s; ", end="")
    print(f"CPU {statistics.median(cpu):.0f} ms per item; load {os.getloadavg()[0]:.1f}")
    return statistics.median(rates), vectors


def sentence_transformers_embed(
    model_dir: Path, batch_size: int
) -> Callable[[Sequence[str]], np.ndarray] | None:
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    model = SentenceTransformer(str(model_dir), device="cpu")
    print(f"  sentence-transformers: torch {torch.__version__}, {torch.get_num_threads()} threads")

    def embed(texts: Sequence[str]) -> np.ndarray:
        return model.encode(
            list(texts), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True
        )

    return embed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, help="ours")
    parser.add_argument("--st-batch-size", type=int, default=32, help="its default")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()

    model_dir = packaged_model_dir()
    ours = LocalProvider(batch_size=args.batch_size, workers=args.workers)
    chunks = stdlib_chunks(args.chunks)
    texts = [window for chunk in chunks for window in ours.windows(chunk)]
    print(f"{len(chunks)} stdlib function chunks -> {len(texts)} windows of <= 256 word pieces")

    workers = args.workers or default_workers()
    print(f"  repolens local (numpy): {workers} workers, batch {args.batch_size}")
    our_rate, our_vectors = timed(ours.embed_documents, texts, args.repeats)
    print(f"repolens numpy         {our_rate:8.1f} windows/s")

    reference = sentence_transformers_embed(model_dir, args.st_batch_size)
    if reference is None:
        print("sentence-transformers  skipped (not importable here)")
        return
    ref_rate, ref_vectors = timed(reference, texts, args.repeats)
    print(f"sentence-transformers  {ref_rate:8.1f} windows/s")
    print(f"ratio (ours / st)      {our_rate / ref_rate:8.2f}x")
    cosines = np.sum(our_vectors * ref_vectors, axis=1)
    print(f"min cosine ours vs st  {cosines.min():.6f}")


if __name__ == "__main__":
    main()
