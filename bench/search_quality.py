"""Docstring-to-code retrieval on real documented packages: BM25, dense and hybrid.

The code of installed packages (click, rich, httpx, pathspec and a slice of the standard
library) is indexed with every docstring stripped; each sampled function's query is the
first sentence of its docstring ("doc") or its qualified name split into words ("name",
e.g. ``help formatter write dl``). A hit is a result chunk of the right file overlapping
the function's lines. "deep" queries ask about code deep inside long functions: a
full-line comment of four words or more, 25 lines or more into a function of 50 lines or
more, removed from the indexed code like the docstrings; a hit is a result chunk of the
right file holding the comment's line. Prints MRR@10 and Recall@10 per retriever.
Embeddings are cached in ``--data`` (default: a directory under the system temp dir), so
a second run only re-ranks.

    python bench/search_quality.py [--queries 400] [--data DIR] [--bm25-weight 0.33]
                                   [--max-postings N] [--runtime auto] [--window-tokens 128]

``--runtime`` and ``--window-tokens`` choose the local model's runtime and document window
length (see ``repolens.embed.runtimes`` and ``local.WINDOW_TOKENS``); give each setting
its own ``--data`` directory.

``--max-postings`` scales the BM25 row budget down to what this small corpus would have
at 100k chunks (8,000 there is about 240 here), to see what the budget costs in quality.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import random
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from repolens.embed import EmbeddingProvider
from repolens.embed.local import WINDOW_TOKENS, LocalProvider
from repolens.index.embedding import embed_pending
from repolens.parse import parse_source
from repolens.parse.chunk import chunk_file
from repolens.query import fusion, tokens
from repolens.query.search import SearchResult, search
from repolens.store.chunks import insert_fts, write_chunks
from repolens.store.db import connect, transaction
from repolens.store.embeddings import effective_key
from repolens.store.graph import FileRecord, graph_rows, upsert_file, write_graph
from repolens.store.vectors import open_matrix

MODULES = (
    "click", "rich", "httpx", "pathspec", "json", "argparse", "logging", "pathlib", "shutil",
    "csv", "configparser", "difflib", "textwrap", "calendar", "email", "urllib", "gzip",
    "pprint", "statistics", "fractions",
)  # fmt: skip
TOP = 10
Hit = tuple[str, int, int]  # file, start line, end line
DEEP_FUNCTION_LINES = 50
DEEP_OFFSET_LINES = 25
_COMMENT = re.compile(r"^\s*#\s*(.*\S)\s*$")


@dataclass(frozen=True)
class Target:
    path: str
    qualname: str
    start: int
    end: int
    doc_query: str
    name_query: str


def source_files() -> Iterator[tuple[str, Path]]:
    for name in MODULES:
        module_file = Path(importlib.import_module(name).__file__ or "")
        if module_file.name == "__init__.py":
            for path in sorted(module_file.parent.rglob("*.py")):
                yield f"{name}/{path.relative_to(module_file.parent).as_posix()}", path
        else:
            yield module_file.name, module_file


def strip_docstrings(source: str) -> str:
    """The source without docstrings (a body left empty gets ``pass``)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if _is_docstring(first) and first is not None and first.end_lineno:
                edits.append((first.lineno, first.end_lineno, first.col_offset, len(node.body)))
    for start, end, col, body_len in sorted(edits, reverse=True):
        lines[start - 1 : end] = [" " * col + "pass"] if body_len == 1 else []
    return "\n".join(lines) + "\n"


def _is_docstring(node: ast.stmt | None) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def first_sentence(doc: str) -> str:
    paragraph = re.split(r"\n\s*\n", doc.strip())[0]
    sentence = re.split(r"(?<=\.)\s", " ".join(paragraph.split()))[0]
    return sentence.rstrip(".")


def functions(source: str) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                yield name, child
                yield from walk(child, name + ".")

    for name, node in walk(ast.parse(source), ""):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield name, node


def name_words(qualname: str) -> str:
    """``HelpFormatter.write_dl`` -> ``help formatter write dl``: how one asks for a name."""
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+", qualname)
    return " ".join(parts).lower() or qualname


def build_targets(files: dict[str, str]) -> list[Target]:
    targets = []
    for path, original in files.items():
        stripped = {}
        counts: dict[str, int] = {}
        for name, node in functions(strip_docstrings(original)):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            stripped[name] = (start, node.end_lineno or node.lineno)
            counts[name] = counts.get(name, 0) + 1
        for name, node in functions(original):
            doc = ast.get_docstring(node)
            if not doc or counts.get(name) != 1:
                continue
            query = first_sentence(doc)
            if 4 <= len(query.split()) <= 40:
                start, end = stripped[name]
                targets.append(Target(path, name, start, end, query, name_words(name)))
    return targets


def deep_targets(files: dict[str, str]) -> tuple[list[Target], dict[str, set[int]]]:
    """One comment deep inside each long function (the first of at least four words far
    enough in), and per file the lines to blank out of the indexed code. Lines count in
    the docstring-stripped source, which is what gets indexed."""
    targets, blanked = [], {}
    for path, original in files.items():
        stripped = strip_docstrings(original)
        lines = stripped.splitlines()
        taken: set[int] = set()
        for name, node in functions(stripped):
            start, end = node.lineno, node.end_lineno or node.lineno
            if end - start + 1 < DEEP_FUNCTION_LINES:
                continue
            for line in range(start + DEEP_OFFSET_LINES, end + 1):
                match = _COMMENT.match(lines[line - 1])
                words = match.group(1).split() if match else []
                if len(words) >= 4 and line not in taken:
                    taken.add(line)
                    query = " ".join(words)
                    targets.append(Target(path, name, line, line, query, query))
                    break
        blanked[path] = taken
    return targets, blanked


def indexed_text(original: str, blank: set[int]) -> str:
    lines = strip_docstrings(original).split("\n")
    return "\n".join("" if number in blank else text for number, text in enumerate(lines, 1))


def index(conn: sqlite3.Connection, files: dict[str, str], blanked: dict[str, set[int]]) -> None:
    with transaction(conn):
        for path, original in files.items():
            text = indexed_text(original, blanked.get(path, set()))
            parsed = parse_source(path, "python", text.encode())
            record = FileRecord(path, "python", len(text), 0, "", "ok", line_count=len(text))
            file_id = upsert_file(conn, record, time.time())
            symbol_ids = write_graph(conn, file_id, graph_rows(parsed)).symbols
            chunks = chunk_file(text, "python", parsed)
            insert_fts(conn, write_chunks(conn, file_id, path, "python", chunks, symbol_ids))


def rank_of(target: Target, hits: list[Hit]) -> int | None:
    for rank, (path, start, end) in enumerate(hits[:TOP], start=1):
        if path == target.path and start <= target.end and end >= target.start:
            return rank
    return None


def evaluate(
    targets: list[Target], query_of: Callable[[Target], str], retrieve: Callable[[str], list[Hit]]
) -> tuple[float, float, float]:
    ranks, started = [], time.perf_counter()
    for target in targets:
        ranks.append(rank_of(target, retrieve(query_of(target))))
    mrr = sum(1 / r for r in ranks if r) / len(ranks)
    recall = sum(1 for r in ranks if r) / len(ranks)
    return mrr, recall, (time.perf_counter() - started) / len(ranks) * 1000


def retrievers(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> dict[str, Callable[[str], list[Hit]]]:
    key = provider.profile.key()
    assert effective_key(conn) == key
    matrix = open_matrix(data, key)
    assert matrix is not None

    def located(ids: list[int]) -> list[Hit]:
        marks = ",".join("?" * len(ids))
        rows = conn.execute(
            "SELECT c.id, f.path, c.start_line, c.end_line FROM chunks c"
            f" JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
            ids,
        ).fetchall()
        where = {row[0]: (row[1], row[2], row[3]) for row in rows}
        return [where[i] for i in ids if i in where]

    def hits(results: list[SearchResult]) -> list[Hit]:
        return [(r.file, r.start_line, r.end_line) for r in results]

    return {
        "bm25": lambda q: hits(search(conn, data, q, limit=TOP)),
        "dense": lambda q: located([i for i, _ in matrix.top(provider.embed_query(q), TOP)]),
        "hybrid": lambda q: hits(search(conn, data, q, limit=TOP, provider=provider)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "rl-quality")
    parser.add_argument("--bm25-weight", type=float, default=fusion.BM25_WEIGHT)
    parser.add_argument("--max-postings", type=int, default=tokens.MAX_POSTINGS)
    parser.add_argument("--runtime", default="auto")
    parser.add_argument("--window-tokens", type=int, default=WINDOW_TOKENS)
    args = parser.parse_args()
    fusion.BM25_WEIGHT = args.bm25_weight
    tokens.MAX_POSTINGS = args.max_postings
    tokens.MAX_EXTRA_POSTINGS = 4 * args.max_postings
    files = {}
    for path, file in source_files():
        try:
            text = file.read_text(encoding="utf-8")
            ast.parse(text)
        except (SyntaxError, UnicodeDecodeError):
            continue
        files[path] = text
    targets = build_targets(files)
    random.Random(7).shuffle(targets)
    targets = targets[: args.queries]
    deep, blanked = deep_targets(files)
    random.Random(7).shuffle(deep)
    deep = deep[: args.queries]
    args.data.mkdir(parents=True, exist_ok=True)
    conn = connect(args.data / "index.db")
    index(conn, files, blanked)
    provider = LocalProvider(runtime=args.runtime, window_tokens=args.window_tokens)
    started, cpu = time.perf_counter(), time.process_time()
    stats = embed_pending(conn, args.data, provider)
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    windows = conn.execute("SELECT count(*) FROM chunk_windows").fetchone()[0]
    print(f"corpus: {len(files)} files, {chunks} chunks, {windows} windows ({stats.embedded}"
          f" computed now in {time.perf_counter() - started:.0f} s, CPU"
          f" {time.process_time() - cpu:.0f} s); runtime {provider.runtime.name}, windows of"
          f" {args.window_tokens} pieces; {len(targets)} doc/name queries, {len(deep)} deep;"
          f" BM25 weight {fusion.BM25_WEIGHT}, BM25 row budget {tokens.MAX_POSTINGS}")  # fmt: skip
    print(f"{'retriever':<10}{'query':<6}{'MRR@10':>8}{'R@10':>8}{'ms/q':>8}")
    styles = (
        ("doc", targets, lambda t: t.doc_query),
        ("name", targets, lambda t: t.name_query),
        ("deep", deep, lambda t: t.doc_query),
    )
    for name, retrieve in retrievers(conn, args.data, provider).items():
        for style, chosen, query_of in styles:
            mrr, recall, ms = evaluate(chosen, query_of, retrieve)
            print(f"{name:<10}{style:<6}{mrr:>8.3f}{recall:>8.3f}{ms:>8.1f}")


if __name__ == "__main__":
    main()
