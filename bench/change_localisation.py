"""Change localisation on real git history: a commit's message -> the functions it edited.

For each project (a local git clone) the commits after a start revision become queries. A
commit counts when it is no merge or revert and changes 1-4 source files that are not
tests. The project's files are unpacked under the cache and indexed (graph, BM25 and,
unless ``--no-embed``, embeddings) at the commit's parent: when the changed files differ
there from what is indexed, the tree moves to the parent file by file and the index is
updated, so unchanged chunks keep their vectors and a run takes minutes. Gold: the
functions and methods at the parent whose lines the diff removes or changes, or inside
which it inserts (hunks mapped onto the innermost function span); commits that touch no
existing function are left out. Query: the commit message (subject and body, trailers
dropped).

Printed per project and over all, in one run:

- ``bm25``: a plain BM25 baseline over the parent's functions (one document per function,
  identifiers split and kept whole, k1 1.2, b 0.75), independent of repolens's ranking;
- ``search``: repolens's hybrid search, top 10 chunks; a gold function is found when a
  chunk of its file overlaps its lines;
- ``context 8k`` / ``context 32k``: the context answer as the MCP tool renders it at that
  budget; a gold function is found when the answer shows code from its first line or
  cites it (``path:line`` of its definition); ranks count the answer's symbols in order;
- R@10: the share of a commit's gold functions found, averaged over commits; MRR: the
  reciprocal rank of the first gold function found (0 when none); chars: the average
  length of the context answer.

The trees and their indexes are kept in ``--cache``, so a second run mostly queries.

    python bench/change_localisation.py /tmp/flask /tmp/httpx@v0.23.0 /tmp/gin
        [--commits 40] [--back 300] [--cache DIR] [--no-embed] [--show]

``PATH@REV`` chooses the start; by default it is ``--back`` commits (first parent) before
the clone's HEAD.
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import repolens
from repolens.api import Codebase, query_provider
from repolens.discover.languages import EXTENSIONS
from repolens.embed.base import EmbeddingProvider
from repolens.query.search import search
from repolens.query.symbols import is_test_path

TOP = 10
MAX_SOURCE_FILES = 4
MAX_QUERY_CHARS = 2000
BUDGETS = (8_000, 32_000)
FUNCTION_KINDS = ("function", "method", "constructor")
NOT_CODE = frozenset({
    "markdown", "rst", "text", "json", "yaml", "toml", "xml", "html", "css", "scss", "less",
    "stylus", "liquid",
})  # fmt: skip
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.MULTILINE)
_TRAILER = re.compile(r"^[A-Za-z][\w-]*: .+$|^\(cherry picked from .*\)$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CODE_HEADER = re.compile(r"^### .+ — (\S+?):(\d+)(?:-(\d+))?$")
_CODE_LINE = re.compile(r"^[ >]?\s*(\d+)  ")


@dataclass(frozen=True, slots=True)
class Function:
    path: str
    name: str  # qualified
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Case:
    commit: str
    query: str
    gold: tuple[Function, ...]


@dataclass(slots=True)
class Score:
    """Per-retriever sums over cases."""

    recall: float = 0.0
    mrr: float = 0.0
    chars: int = 0
    cases: int = 0

    def add(self, found: Sequence[bool], first: int | None, chars: int = 0) -> None:
        self.recall += sum(found) / len(found)
        self.mrr += 1 / first if first else 0.0
        self.chars += chars
        self.cases += 1

    def merge(self, other: Score) -> None:
        self.recall, self.mrr = self.recall + other.recall, self.mrr + other.mrr
        self.chars, self.cases = self.chars + other.chars, self.cases + other.cases


@dataclass(slots=True)
class Report:
    name: str
    base: str
    commits_seen: int = 0
    cases: list[Case] = field(default_factory=list)
    scores: dict[str, Score] = field(default_factory=dict)
    updates: int = 0
    index_seconds: float = 0.0
    query_seconds: float = 0.0


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


# -- the cases -------------------------------------------------------------------------------


def base_revision(repo: Path, rev: str | None, back: int) -> str:
    if rev:
        return git(repo, "rev-parse", f"{rev}^{{commit}}").strip()
    chain = git(repo, "rev-list", "--first-parent", f"--max-count={back + 1}", "HEAD").split()
    return chain[-1]


def is_source(path: str) -> bool:
    suffix = Path(path).suffix.lower()
    return EXTENSIONS.get(suffix, "text") not in NOT_CODE and not is_test_path(path)


def query_of(message: str) -> str:
    lines = [ln for ln in message.strip().splitlines() if not _TRAILER.match(ln.strip())]
    return " ".join(" ".join(lines).split())[:MAX_QUERY_CHARS]


def commits_after(repo: Path, base: str) -> Iterator[tuple[str, str]]:
    """(commit, parent) for non-merge commits after ``base``, oldest first."""
    for line in git(repo, "rev-list", "--reverse", "--no-merges", "--parents",
                    f"{base}..HEAD").splitlines():  # fmt: skip
        commit, *parents = line.split()
        if len(parents) == 1:
            yield commit, parents[0]


def blob(repo: Path, rev: str, path: str) -> str | None:
    out = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", f"{rev}:{path}"],
                         capture_output=True, text=True)  # fmt: skip
    return out.stdout.strip() or None


def changed_lines(repo: Path, parent: str, commit: str, path: str) -> list[tuple[int, int]]:
    """Old-side hunks as (start, count); count 0 is an insertion after ``start``."""
    diff = git(repo, "diff", "-U0", "--no-renames", "--no-color", parent, commit, "--", path)
    return [(int(a), int(b) if b else 1) for a, b in _HUNK.findall(diff)]


def innermost(functions: list[Function], first: int, last: int) -> Function | None:
    around = [f for f in functions if f.start <= first and last <= f.end]
    return min(around, key=lambda f: f.end - f.start) if around else None


def edited(functions: list[Function], hunks: list[tuple[int, int]]) -> set[Function]:
    found: set[Function] = set()
    for start, count in hunks:
        if count == 0:
            hit = innermost(functions, start, start + 1) if start else None
            found.update([hit] if hit else [])
            continue
        for line in range(start, start + count):
            hit = innermost(functions, line, line)
            found.update([hit] if hit else [])
    return found


def case_of(repo: Path, commit: str, parent: str, seen: set[str]) -> tuple[str, list[str]] | None:
    """The query and the changed source files that existed at the parent, when the commit
    is a case at all (its functions are judged once the index is at the parent)."""
    query = query_of(git(repo, "log", "-1", "--format=%B", commit))
    if not query or query.lower().startswith(("revert", "merge")) or query in seen:
        return None
    names = git(repo, "diff", "--name-only", "--no-renames", parent, commit).split("\n")
    sources = [p for p in names if p and is_source(p)]
    if not 1 <= len(sources) <= MAX_SOURCE_FILES:
        return None
    old = [p for p in sources if blob(repo, parent, p) is not None]
    return (query, old) if old else None


# -- the index -------------------------------------------------------------------------------


@dataclass(slots=True)
class Tree:
    """A project's files at one revision, unpacked under the cache (no .git: the index sees
    only the files) and indexed there; moved to another revision file by file, so the
    index is brought up to date rather than rebuilt, and unchanged chunks keep their
    vectors."""

    repo: Path
    root: Path
    rev: str = ""

    def __post_init__(self) -> None:
        marker = self.root / ".bench-rev"
        self.rev = marker.read_text().strip() if marker.exists() else ""

    def move_to(self, rev: str) -> None:
        if rev == self.rev:
            return
        if not self.rev:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root.mkdir(parents=True)
            self._unpack(rev, [])
        else:
            changes = git(self.repo, "diff", "--name-status", "--no-renames", self.rev, rev)
            wanted = []
            for line in changes.splitlines():
                status, path = line.split("\t", 1)
                if status.startswith("D"):
                    (self.root / path).unlink(missing_ok=True)
                else:
                    wanted.append(path)
            if wanted:
                self._unpack(rev, wanted)
        self.rev = rev
        (self.root / ".bench-rev").write_text(rev)

    def _unpack(self, rev: str, paths: list[str]) -> None:
        with tempfile.TemporaryFile() as archive:
            subprocess.run(["git", "-C", str(self.repo), "archive", rev, "--", *paths],
                           stdout=archive, check=True)  # fmt: skip
            archive.seek(0)
            with tarfile.open(fileobj=archive) as tar:
                for member in tar.getmembers():  # a file replacing a link or the reverse
                    target = self.root / member.name
                    if not member.isdir() and (target.is_symlink() or target.is_file()):
                        target.unlink()
                tar.extractall(self.root, filter="data")


def functions_of(code: Codebase) -> dict[str, list[Function]]:
    marks = ",".join("?" * len(FUNCTION_KINDS))
    with code.reader() as conn:
        rows = conn.execute(
            "SELECT f.path, s.qualified_name, s.start_line, s.end_line FROM symbols s"
            f" JOIN files f ON f.id = s.file_id WHERE s.kind IN ({marks})",
            FUNCTION_KINDS,
        ).fetchall()
    by_file: dict[str, list[Function]] = {}
    for path, name, start, end in rows:
        by_file.setdefault(path, []).append(Function(path, name, start, end))
    return by_file


# -- the retrievers --------------------------------------------------------------------------


def words(text: str) -> list[str]:
    """Identifiers kept whole and split into their words, lowercased."""
    out = []
    for word in _WORD.findall(text):
        parts = [p.lower() for p in _PART.findall(word)]
        out.append(word.lower())
        out.extend(p for p in parts if p != word.lower())
    return out


class BM25:
    """Okapi BM25 over one document per function."""

    def __init__(self, docs: list[tuple[Function, str]], k1: float = 1.2, b: float = 0.75):
        self.docs = [(f, Counter(words(text))) for f, text in docs]
        self.k1, self.b = k1, b
        self.avg = sum(sum(c.values()) for _, c in self.docs) / max(len(self.docs), 1)
        df: Counter[str] = Counter()
        for _, counts in self.docs:
            df.update(counts.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def top(self, query: str, limit: int) -> list[Function]:
        terms = set(words(query)) & self.idf.keys()
        scored = []
        for function, counts in self.docs:
            length = sum(counts.values())
            value = 0.0
            for term in terms:
                tf = counts.get(term, 0)
                if tf:
                    norm = tf + self.k1 * (1 - self.b + self.b * length / self.avg)
                    value += self.idf[term] * tf * (self.k1 + 1) / norm
            if value > 0:
                scored.append((value, function))
        scored.sort(key=lambda p: -p[0])
        return [f for _, f in scored[:limit]]


def bm25_of(root: Path, by_file: dict[str, list[Function]]) -> BM25:
    docs = []
    for path, functions in by_file.items():
        try:
            lines = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        docs.extend((f, "\n".join(lines[f.start - 1 : f.end])) for f in functions)
    return BM25(docs)


def overlaps(function: Function, path: str, start: int, end: int) -> bool:
    return path == function.path and start <= function.end and end >= function.start


def judge(
    gold: Sequence[Function], ranked: Sequence[Callable[[Function], bool]]
) -> tuple[list[bool], int | None]:
    """Which gold functions any of ``ranked`` finds, and the rank of the first that does."""
    found = [any(test(g) for test in ranked) for g in gold]
    first = next((r for r, test in enumerate(ranked, 1) if any(test(g) for g in gold)), None)
    return found, first


def shown_in(answer: str) -> tuple[set[tuple[str, int]], set[str]]:
    """The (path, line) pairs of code an answer shows, and every ``path:line`` it cites."""
    shown: set[tuple[str, int]] = set()
    path = None
    for line in answer.splitlines():
        header = _CODE_HEADER.match(line)
        if header:
            path = header.group(1)
            continue
        number = _CODE_LINE.match(line) if path else None
        if number and path:
            shown.add((path, int(number.group(1))))
        elif line.startswith("#"):
            path = None
    cited = set(re.findall(r"(\S+:\d+)", answer))
    return shown, cited


def context_answer(
    code: Codebase, conn: sqlite3.Connection, provider: EmbeddingProvider | None, query: str,
    budget: int,
) -> tuple[str, list[tuple[str, int, int]]]:  # fmt: skip
    """The rendered answer (as the MCP tool and the CLI give it) and its symbols' spans in
    rank order. Under ``PYTHONPATH=<a checkout of 766efcc>/src`` (the baseline of the
    change-localisation figures, before ``present.context.context_answer`` existed) the
    answer is put together from the parts the MCP tool used then."""
    try:
        from repolens.present.context import context_answer as present_context
    except ImportError:
        from repolens.mcp.source import SourceCache
        from repolens.mcp.tools_search import languages_of
        from repolens.present.context import render_context
        from repolens.query.context import build_context

        source = SourceCache(code.root, conn)
        bundle = build_context(conn, code.project.data_dir, query, read_lines=source,
                               budget=budget, provider=provider)  # fmt: skip
        languages = languages_of(conn, {item.symbol.file for item in bundle.items})
        answer = render_context(bundle, language_of=languages)
    else:
        answer, bundle = present_context(conn, code.project, query, budget=budget,
                                         provider=provider)  # fmt: skip
    return answer, [(i.symbol.file, i.symbol.line, i.symbol.end_line) for i in bundle.items]


def evaluate(
    code: Codebase, conn: sqlite3.Connection, provider: EmbeddingProvider | None, case: Case,
    bm25: BM25, scores: dict[str, Score], show: bool,
) -> None:  # fmt: skip
    ranked_bm25 = bm25.top(case.query, TOP)
    found, first = judge(case.gold, [lambda g, f=f: g == f for f in ranked_bm25])
    scores.setdefault("bm25", Score()).add(found, first)
    hits = search(conn, code.project.data_dir, case.query, limit=TOP, provider=provider)
    tests = [lambda g, h=h: overlaps(g, h.file, h.start_line, h.end_line) for h in hits]
    found, first = judge(case.gold, tests)
    scores.setdefault("search", Score()).add(found, first)
    if show:
        print(f"  {case.commit[:10]} {case.query[:90]!r}")
        print(f"    gold: {', '.join(g.name for g in case.gold)}")
        print(f"    search: {sum(found)}/{len(found)} first {first}")
    for budget in BUDGETS:
        answer, spans = context_answer(code, conn, provider, case.query, budget)
        shown, cited = shown_in(answer)
        found = [(g.path, g.start) in shown or f"{g.path}:{g.start}" in cited for g in case.gold]
        rank_tests = [lambda g, s=s: overlaps(g, *s) and g.start >= s[1] for s in spans]
        first = judge(case.gold, rank_tests)[1] if any(found) else None
        scores.setdefault(f"context {budget // 1000}k", Score()).add(found, first, len(answer))
        if show:
            print(f"    context {budget // 1000}k: {sum(found)}/{len(found)} first {first}"
                  f" chars {len(answer)}")  # fmt: skip


# -- the run ---------------------------------------------------------------------------------


def run_project(spec: str, args: argparse.Namespace) -> Report:
    """Walk the commits after the start oldest first; when a case's files at its parent
    differ from the indexed tree, move the tree to that parent and update the index."""
    path, _, rev = spec.partition("@")
    repo = Path(path).resolve()
    start = base_revision(repo, rev or None, args.back)
    report = Report(repo.name, start)
    tree = Tree(repo, args.cache / repo.name)
    code = repolens.open(tree.root) if tree.rev else None
    by_file: dict[str, list[Function]] = {}
    bm25: BM25 | None = None
    seen: set[str] = set()
    for commit, parent in commits_after(repo, start):
        if len(report.cases) >= args.commits:
            break
        report.commits_seen += 1
        found = case_of(repo, commit, parent, seen)
        if found is None:
            continue
        query, old = found
        if (
            code is None
            or bm25 is None
            or any(blob(repo, parent, p) != blob(repo, tree.rev, p) for p in old)
        ):
            tree.move_to(parent)
            code = code or repolens.open(tree.root)
            started = time.perf_counter()
            code.index(embed=not args.no_embed)
            report.index_seconds += time.perf_counter() - started
            report.updates += 1
            by_file = functions_of(code)
            bm25 = bm25_of(tree.root, by_file)
        gold: set[Function] = set()
        for file in old:
            gold |= edited(by_file.get(file, []), changed_lines(repo, parent, commit, file))
        if not gold:
            continue
        seen.add(query)
        case = Case(commit, query, tuple(sorted(gold, key=lambda f: (f.path, f.start))))
        report.cases.append(case)
        started = time.perf_counter()
        with code.reader() as conn:
            provider, why = query_provider(code.project, conn)
            if provider is None and not args.no_embed:
                print(f"  ({report.name}: {why})")
            evaluate(code, conn, provider, case, bm25, report.scores, args.show)
        report.query_seconds += time.perf_counter() - started
    return report


def table(reports: list[Report]) -> None:
    names = ["bm25", "search", *(f"context {b // 1000}k" for b in BUDGETS)]
    head = f"{'project':<12}{'cases':>6}{'gold':>6}"
    head += "".join(f"{n + ' R@10':>16}{'MRR':>7}" for n in names)
    head += "".join(f"{f'chars {b // 1000}k':>11}" for b in BUDGETS)
    print(head)
    total: dict[str, Score] = {n: Score() for n in names}
    gold = 0
    for report in [*reports, None]:
        if report is None:
            scores, label, cases = total, "all", total["bm25"].cases
            n_gold = gold
        else:
            scores, label, cases = report.scores, report.name, len(report.cases)
            n_gold = sum(len(c.gold) for c in report.cases)
            gold += n_gold
            for n in names:
                total[n].merge(report.scores.get(n, Score()))
        row = f"{label:<12}{cases:>6}{n_gold:>6}"
        for n in names:
            s = scores.get(n, Score())
            row += f"{s.recall / max(s.cases, 1):>16.3f}{s.mrr / max(s.cases, 1):>7.3f}"
        for b in BUDGETS:
            s = scores.get(f"context {b // 1000}k", Score())
            row += f"{s.chars / max(s.cases, 1):>11.0f}"
        print(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="+", help="git clones, each PATH or PATH@BASE")
    parser.add_argument("--commits", type=int, default=40, help="cases per project at most")
    parser.add_argument("--back", type=int, default=300)
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "rl-change-bench")  # fmt: skip
    parser.add_argument("--no-embed", action="store_true")
    parser.add_argument("--show", action="store_true", help="print every case")
    args = parser.parse_args()
    reports = []
    for spec in args.repos:
        report = run_project(spec, args)
        print(f"{report.name}: from {report.base[:10]}, {report.commits_seen} commits read,"
              f" {len(report.cases)} cases; {report.updates} index updates"
              f" {report.index_seconds:.0f} s, queries {report.query_seconds:.0f} s")  # fmt: skip
        reports.append(report)
    table(reports)


if __name__ == "__main__":
    main()
