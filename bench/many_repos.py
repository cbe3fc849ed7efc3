"""Many repositories at once: linked search, the cross-repository graph, and what a
second worktree of a repository costs.

Run: ``python bench/many_repos.py [--libs 6] [--queries 60] [--no-embed] [--files 500]
[--changed 10] [--only search|worktrees]``.

Merged search (``merged_search``): pip's own source and the libraries it vendors, split
out as they are upstream (``pip/_vendor/rich`` becomes a project ``rich`` of its own, and
``pip._vendor.rich`` imports become ``rich`` ones, as pip's debundling does), each indexed
by its own ``repolens index`` subprocess (embeddings by the real packaged model unless
``--no-embed``). pip links them all (``links`` in its ``.repolens.toml``). Queries are the
first sentences of docstrings of functions drawn from every project, so about one in
``libs + 1`` is answered by pip itself.

Printed, in one run, per query in this process with the model loaded (p50/p95 of wall and
CPU milliseconds):

- single: ``search`` over pip's index alone (the baseline);
- merged: ``linked_search`` over pip and every library, one ranking;
- each side's recall@10 of the function a query was drawn from (single can only find
  pip's own), to show what the extra milliseconds buy;
- the cross-repository graph: edges found from pip into the libraries and the time to
  compute them (cold and cached), and ``callers`` across projects beside ``callers`` in
  the library's index alone.

Second worktree (``second_worktree``): a project of ``--files`` files (pip's own source,
from this interpreter's site-packages) committed to a fresh git repository, each step a
``repolens index`` subprocess with embeddings (the real packaged model), in one fresh
state dir: (1) the first index of the main checkout, everything parsed and embedded;
(2) a second worktree (``git worktree add``), what the shared store saves; (3) a third
worktree with ``REPOLENS_SHARED_STORE=0``, the baseline: what a second worktree cost
before the store, in the same run; (4) a branch switch in the main checkout to a branch
that changes ``--changed`` files, then back. Printed: wall and CPU seconds of each, files
parsed and taken from the store, windows embedded and taken from it, and the second
worktree's time as a share of the first's (the target is 20% or less).

Wall times on a shared machine are pessimistic (the load average is printed); CPU
milliseconds are the steadier figure. Nothing here is asserted.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: no BLAS thread wake-ups

import argparse
import ast
import json
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from _common import Measure, compile_bytecode, load_line, run_measured
from repolens.api import query_provider
from repolens.links import Member, linked_set
from repolens.project import open_project
from repolens.query.crossrepo import Index, linked_edges
from repolens.query.graph import callers
from repolens.query.linked import LinkedIndex, linked_search
from repolens.query.linkedgraph import LinkedGraph
from repolens.query.search import SearchResult, search
from repolens.query.symbols import symbols_by_ids
from repolens.store.db import connect

VENDOR_IMPORT = re.compile(r"\bpip\._vendor\.")
VENDOR_FROM = re.compile(r"^(\s*)from pip\._vendor import ", re.M)


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    project: str
    file: str
    line: int


def _copy_debundled(source: Path, dest: Path) -> int:
    """``source``'s Python files under ``dest``, vendored imports made plain ones."""
    count = 0
    for path in sorted(source.rglob("*.py")):
        if "_vendor" in path.relative_to(source).parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        text = VENDOR_FROM.sub(r"\1import ", VENDOR_IMPORT.sub("", text))
        target = dest / path.relative_to(source.parent)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        count += 1
    return count


def _projects(base: Path, libs: int) -> tuple[Path, list[Path], dict[str, int]]:
    """pip's source and its ``libs`` largest vendored packages, each a project."""
    pip = Path(sysconfig.get_paths()["purelib"]) / "pip"
    vendored = [
        d for d in (pip / "_vendor").iterdir() if d.is_dir() and (d / "__init__.py").exists()
    ]
    vendored.sort(key=lambda d: (-sum(1 for _ in d.rglob("*.py")), d.name))
    files = {"pip": _copy_debundled(pip, base / "pip")}
    roots = []
    for lib in vendored[:libs]:
        files[lib.name] = _copy_debundled(lib, base / lib.name)
        roots.append(base / lib.name)
    links = ", ".join(f'"../{root.name}"' for root in roots)
    (base / "pip" / ".repolens.toml").write_text(f"links = [{links}]\n", encoding="utf-8")
    return base / "pip", roots, files


def _index(root: Path, embed: bool, env: dict[str, str]) -> float:
    args = [sys.executable, "-m", "repolens", "index", ".", *([] if embed else ["--no-embed"])]
    started = time.perf_counter()
    done = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"repolens index failed in {root}:\n{done.stderr}")
    return time.perf_counter() - started


def _queries(roots: list[Path], count: int, seed: int) -> list[Query]:
    """First docstring sentences of functions, drawn evenly from every project."""
    per_project: list[list[Query]] = []
    for root in roots:
        found = []
        for path in sorted(root.rglob("*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                continue
            for node in ast.walk(tree):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                doc = ast.get_docstring(node) or ""
                sentence = doc.strip().split("\n\n")[0].split(". ")[0].replace("\n", " ")
                if len(sentence.split()) >= 5:
                    rel = path.relative_to(root).as_posix()
                    found.append(Query(sentence[:200], root.name, rel, node.lineno))
        per_project.append(found)
    rng = random.Random(seed)
    chosen: list[Query] = []
    while len(chosen) < count and any(per_project):
        for found in per_project:
            if found and len(chosen) < count:
                chosen.append(found.pop(rng.randrange(len(found))))
    return chosen


T = TypeVar("T")


def _timed(run: Callable[[], T], repeat: int) -> tuple[list[float], list[float], T]:
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()  # the last run's answer is returned
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return walls, cpus, result


def _p(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _row(label: str, walls: list[float], cpus: list[float], recall: str) -> str:
    return (
        f"{label:<28} {statistics.median(walls):>8.1f} {_p(walls, 0.95):>8.1f}"
        f" {statistics.median(cpus):>8.1f} {_p(cpus, 0.95):>8.1f}  {recall}"
    )


def merged_search(libs: int, count: int, embed: bool, seed: int) -> None:
    """Single-project against linked search, and the cross-repository graph."""
    with tempfile.TemporaryDirectory(prefix="repolens-many-") as scratch:
        base = Path(scratch)
        app, lib_roots, files = _projects(base, libs)
        env = {**os.environ, "XDG_STATE_HOME": str(base / "state")}
        seconds = {root.name: _index(root, embed, env) for root in [*lib_roots, app]}
        members = linked_set(open_project(app, create=False))
        conns = {m.label: connect(m.project.db_path, readonly=True) for m in members}
        indexes = []
        for member in members:
            conn = conns[member.label]
            provider, _ = query_provider(member.project, conn)
            indexes.append(LinkedIndex(member.label, conn, member.project.data_dir, provider))
        chunks = {label: conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
                  for label, conn in conns.items()}  # fmt: skip
        queries = _queries([app, *lib_roots], count, seed)
        print(f"\nmerged search: pip and {len(lib_roots)} of its vendored libraries as"
              f" {len(members)} projects; {load_line()}")  # fmt: skip
        for label in conns:
            print(f"  {label:<14} {files[label]:>4} files {chunks[label]:>6} chunks,"
                  f" indexed in {seconds[label]:5.1f}s")  # fmt: skip
        mode = "hybrid" if all(i.provider for i in indexes) else "keyword only"
        print(f"{len(queries)} docstring queries ({mode}), ms per query in this process")
        main = indexes[0]
        for q in queries[:3]:  # warm: the model, SQLite pages, the matrices
            search(main.conn, main.data_dir, q.text, provider=main.provider)
            linked_search(indexes, q.text)
        single_w, single_c, merged_w, merged_c = [], [], [], []
        single_hits = merged_hits = 0
        for q in queries:
            w, c, got = _timed(lambda q=q: search(main.conn, main.data_dir, q.text,
                                                  provider=main.provider), 1)  # fmt: skip
            single_w += w
            single_c += c
            single_hits += q.project == "pip" and _found(got, q)
            w, c, got = _timed(lambda q=q: linked_search(indexes, q.text), 1)
            merged_w += w
            merged_c += c
            merged_hits += _found(got, q)
        print(f"{'':<28} {'p50 ms':>8} {'p95 ms':>8} {'p50 cpu':>8} {'p95 cpu':>8}  recall@10")
        print(_row("single project (pip)", single_w, single_c, f"{single_hits}/{len(queries)}"))
        print(_row(f"linked ({len(indexes)} projects)", merged_w, merged_c,
                   f"{merged_hits}/{len(queries)}"))  # fmt: skip
        _graph(members, conns)


def _found(results: list[SearchResult], query: Query) -> bool:
    """Whether the function a query was drawn from is among the top 10 (a single
    project's hits carry no project label: they are pip's)."""
    for result in results[:10]:
        place = (result.project or "pip", result.file)
        if (
            place == (query.project, query.file)
            and result.start_line <= query.line <= result.end_line
        ):
            return True
    return False


def _graph(members: list[Member], conns: dict[str, sqlite3.Connection]) -> None:
    """Cross edges from pip into the libraries: their cost, and callers across."""
    indexes = [Index(m.label, m.project.root, conns[m.label], m.project.db_path) for m in members]
    cold_w, cold_c, edges = _timed(lambda: linked_edges(indexes), 1)
    warm_w, _, _ = _timed(lambda: linked_edges(indexes), 5)
    print(f"\ncross-repository graph: {len(edges)} edges from pip into the libraries;"
          f" computed in {cold_w[0]:.0f} ms ({cold_c[0]:.0f} ms CPU) cold,"
          f" {statistics.median(warm_w):.1f} ms cached")  # fmt: skip
    graph = LinkedGraph(indexes)
    targets: dict[tuple[int, int], int] = {}
    for edge in graph.edges:
        targets[(edge.definer, edge.target)] = targets.get((edge.definer, edge.target), 0) + 1
    top = sorted(targets.items(), key=lambda kv: -kv[1])[:10]
    own_w, across_w, across_extra = [], [], 0
    for (definer, target), _ in top:
        conn = graph.indexes[definer].conn
        sym = symbols_by_ids(conn, [target])[target]
        w, _, own = _timed(lambda conn=conn, sym=sym: callers(conn, sym), 3)
        own_w += w
        w, _, both = _timed(lambda definer=definer, sym=sym: graph.callers(definer, sym), 3)
        across_w += w
        across_extra += len(both) - len(own)
    if top:
        print(f"callers of the {len(top)} library symbols pip uses most: in the library"
              f" alone p50 {statistics.median(own_w):.2f} ms; across projects p50"
              f" {statistics.median(across_w):.2f} ms, {across_extra} more (pip's)")  # fmt: skip


# -- second worktree ---------------------------------------------------------------------

GIT = ("git", "-c", "user.name=bench", "-c", "user.email=bench@repolens", "-c",
       "init.defaultBranch=main")  # fmt: skip
TARGET = 0.20  # second worktree / first index (the target)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True)


def _pip_project(dest: Path, files: int) -> int:
    """The first ``files`` Python files of pip's source (sorted by path) under ``dest``,
    committed to a new git repository; returns how many were copied."""
    source = Path(sysconfig.get_paths()["purelib"]) / "pip"
    chosen = sorted(source.rglob("*.py"))[:files]
    for path in chosen:
        target = dest / "pip" / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "pip's source")
    return len(chosen)


def _index_measured(tree: Path, env: dict[str, str]) -> tuple[Measure, dict[str, Any]]:
    done = run_measured([sys.executable, "-m", "repolens", "index", ".", "--json"],
                        env=env, cwd=tree)  # fmt: skip
    report = next(
        (json.loads(line) for line in reversed(done.stdout.splitlines()) if line.startswith("{")),
        None,
    )
    if done.returncode != 0 or report is None:
        raise SystemExit(f"repolens index failed in {tree}:\n{done.stdout}")
    return done, report


def _worktree_row(label: str, measure: Measure, report: dict[str, Any], first: Measure) -> str:
    index, embed = report["index"], report.get("embed", {})
    return (
        f"{label:<36} {measure.wall:>7.1f} {measure.cpu:>7.1f} {index['parsed']:>7}"
        f" {index.get('reused', 0):>7} {embed.get('embedded', 0):>9}"
        f" {embed.get('shared_hits', 0):>8} {measure.wall / first.wall:>7.0%}"
    )


def _branch_edits(repo: Path, changed: int) -> None:
    """A branch ``other`` on which ``changed`` files gain a function."""
    _git(repo, "checkout", "-q", "-b", "other")
    for number, path in enumerate(sorted((repo / "pip").rglob("*.py"))[:changed]):
        with path.open("a", encoding="utf-8") as out:
            out.write(f"\n\ndef branch_only_{number}(items):\n    return sorted(items)\n")
    _git(repo, "commit", "-q", "-a", "-m", "a branch")
    _git(repo, "checkout", "-q", "main")


def second_worktree(files: int, changed: int) -> None:
    """First index, second worktree, branch switch and back; then the baseline, a
    worktree without the store (last: it costs as much as the first index)."""
    with tempfile.TemporaryDirectory(prefix="repolens-worktrees-") as scratch:
        base = Path(scratch)
        repo = base / "repo"
        repo.mkdir()
        copied = _pip_project(repo, files)
        _branch_edits(repo, changed)
        env = {**os.environ, "XDG_STATE_HOME": str(base / "state")}
        for name in ("second", "baseline"):
            _git(repo, "worktree", "add", "-q", str(base / name), "-b", name)
        print(f"\nsecond worktree: {copied} files of pip, embeddings included; {load_line()}")
        print(f"{'':<36} {'wall s':>7} {'cpu s':>7} {'parsed':>7} {'reused':>7}"
              f" {'embedded':>9} {'shared':>8} {'/first':>7}", flush=True)  # fmt: skip
        first, report = _index_measured(repo, env)
        print(_worktree_row("first index (main checkout)", first, report, first), flush=True)
        second, report = _index_measured(base / "second", env)
        print(_worktree_row("second worktree, shared store", second, report, first), flush=True)
        _git(repo, "checkout", "-q", "other")
        switched, report = _index_measured(repo, env)
        label = f"switch to a branch ({changed} changed)"
        print(_worktree_row(label, switched, report, first), flush=True)
        _git(repo, "checkout", "-q", "main")
        back, report = _index_measured(repo, env)
        print(_worktree_row("switch back to main", back, report, first), flush=True)
        baseline, report = _index_measured(base / "baseline", {**env, "REPOLENS_SHARED_STORE": "0"})
        print(_worktree_row("third worktree, no store (baseline)", baseline, report, first))
        share = second.wall / first.wall
        verdict = "meets" if share <= TARGET else "misses"
        print(f"second worktree: {share:.0%} of the first index's wall time, "
              f"{second.cpu / first.cpu:.0%} of its CPU ({verdict} the {TARGET:.0%} target);"
              f" without the store: {baseline.wall / first.wall:.0%}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--libs", type=int, default=6, help="vendored libraries split out")
    parser.add_argument("--queries", type=int, default=60, help="docstring queries")
    parser.add_argument("--no-embed", action="store_true", help="keyword search only")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--files", type=int, default=500, help="files in the worktree project")
    parser.add_argument("--changed", type=int, default=10, help="files the branch changes")
    parser.add_argument("--only", choices=("search", "worktrees"), help="one part of the two")
    args = parser.parse_args()
    compile_bytecode()
    if args.only != "worktrees":
        merged_search(args.libs, args.queries, not args.no_embed, args.seed)
    if args.only != "search":
        second_worktree(args.files, args.changed)


if __name__ == "__main__":
    main()
