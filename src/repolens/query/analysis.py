"""Whole-graph analyses: file dependencies, import cycles, dead code and index statistics.

Read-only on a ``sqlite3.Connection``; every result cites ``path:line``.
"""

from __future__ import annotations

import difflib
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from repolens.query.symbols import (
    CLASS_KINDS,
    FILE_KIND,
    SymbolRef,
    full_name_of,
    is_test_path,
    matching_files,
    row_to_ref,
)


class FileLookupError(Exception):
    """A path names no indexed file, or several. ``candidates`` are close paths."""

    def __init__(self, message: str, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.candidates = candidates or []


@dataclass(frozen=True, slots=True)
class ImportLink:
    """One import statement seen from either end. ``file:line`` is the importing statement;
    ``target`` is the imported project file, or ``None`` when it is outside the project or
    could not be resolved (then ``module`` is all we know)."""

    file: str
    line: int
    module: str
    name: str | None
    target: str | None


@dataclass(frozen=True, slots=True)
class FileDeps:
    """What a file imports (resolved to project files, or not) and who imports it."""

    file: str
    imports: list[ImportLink] = field(default_factory=list)
    unresolved: list[ImportLink] = field(default_factory=list)
    importers: list[ImportLink] = field(default_factory=list)


def resolve_file(conn: sqlite3.Connection, path: str) -> str:
    """The one indexed path ``path`` names (exactly or as a suffix), else FileLookupError."""
    paths = matching_files(conn, path)
    if len(paths) == 1:
        return paths[0]
    if paths:
        raise FileLookupError(f"'{path}' matches {len(paths)} files; give more of the path", paths)
    every = [str(r[0]) for r in conn.execute("SELECT path FROM files")]
    base = path.rsplit("/", 1)[-1]
    close = [p for p in every if p.rsplit("/", 1)[-1] == base]
    close += difflib.get_close_matches(path, every, n=5, cutoff=0.6)
    raise FileLookupError(f"no indexed file '{path}'", list(dict.fromkeys(close))[:10])


_IMPORT_SQL = (
    "SELECT src.path, i.line, i.module, i.name, dst.path FROM imports i"
    " JOIN files src ON src.id = i.file_id LEFT JOIN files dst ON dst.id = i.target_file_id"
)


def _link(row: sqlite3.Row | tuple[Any, ...]) -> ImportLink:
    return ImportLink(str(row[0]), int(row[1]), str(row[2]), row[3], row[4])


def file_deps(conn: sqlite3.Connection, path: str) -> FileDeps:
    """Imports of ``path`` split into resolved (a project file) and unresolved (external or
    unknown modules), and the import statements in other files that reach it."""
    found = resolve_file(conn, path)
    outgoing = [
        _link(r)
        for r in conn.execute(_IMPORT_SQL + " WHERE src.path = ? ORDER BY i.line, i.id", (found,))
    ]
    incoming = [
        _link(r)
        for r in conn.execute(
            _IMPORT_SQL + " WHERE dst.path = ? AND src.path != ? ORDER BY src.path, i.line",
            (found, found),
        )
    ]
    return FileDeps(
        file=found,
        imports=[link for link in outgoing if link.target is not None],
        unresolved=[link for link in outgoing if link.target is None],
        importers=incoming,
    )


def _import_graph(conn: sqlite3.Connection) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    rows = conn.execute(
        "SELECT DISTINCT src.path, dst.path FROM imports i JOIN files src ON src.id = i.file_id"
        " JOIN files dst ON dst.id = i.target_file_id"
    )
    for src, dst in rows:
        graph[str(src)].add(str(dst))
    return graph


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (import graphs can be deeper than the recursion limit),
    visiting nodes and neighbours in sorted order so the output is deterministic."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, neighbours = work[-1]
            child = next(neighbours, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def import_cycles(conn: sqlite3.Connection, *, limit: int = 50) -> list[list[str]]:
    """File import cycles: every strongly connected component of more than one file, plus
    files that import themselves. Each cycle's paths are sorted; cycles come largest first,
    then by first path. Use ``cycle_links`` to show the import lines that close them."""
    graph = _import_graph(conn)
    cycles = [c for c in _strongly_connected(graph) if len(c) > 1 or c[0] in graph.get(c[0], set())]
    cycles.sort(key=lambda c: (-len(c), c))
    return cycles[: max(limit, 0)]


def cycle_links(conn: sqlite3.Connection, files: list[str]) -> list[ImportLink]:
    """The import statements between ``files`` (one cycle), in path and line order."""
    if not files:
        return []
    marks = ",".join("?" * len(files))
    rows = conn.execute(
        _IMPORT_SQL + f" WHERE src.path IN ({marks}) AND dst.path IN ({marks})"
        " ORDER BY src.path, i.line",
        [*files, *files],
    )
    return [_link(r) for r in rows]


def graph_stats(conn: sqlite3.Connection, *, top: int = 10) -> dict[str, Any]:
    """Size and health of the graph: counts by kind, per-language resolution (the share of
    references left unresolved, and why), and the most connected symbols."""
    symbols = dict(conn.execute("SELECT kind, count(*) FROM symbols GROUP BY kind ORDER BY kind"))
    edges = dict(conn.execute("SELECT kind, count(*) FROM edges GROUP BY kind ORDER BY kind"))
    languages, reasons = _language_stats(conn)
    return {
        "files": sum(entry["files"] for entry in languages.values()),
        "symbols": symbols,
        "edges": edges,
        "languages": languages,
        "unresolved_reasons": reasons,
        "most_connected": _most_connected(conn, top),
    }


def _language_stats(
    conn: sqlite3.Connection,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, int]]]:
    """Per language counts and unresolved reasons. Each table is scanned once, grouped by
    file (joins per row cost seconds on large indexes); ``edges`` leaves out structural
    ``contains`` edges so it counts what resolution produced."""
    language = {int(i): str(lang) for i, lang in conn.execute("SELECT id, language FROM files")}
    stats: dict[str, dict[str, Any]] = {}
    reasons: dict[str, dict[str, int]] = {}

    def entry(file_id: int) -> dict[str, Any]:
        keys = ("files", "symbols", "edges", "refs", "unresolved")
        return stats.setdefault(language.get(file_id, "?"), dict.fromkeys(keys, 0))

    for file_id in language:
        entry(file_id)["files"] += 1
    counts = {
        "symbols": "SELECT file_id, count(*) FROM symbols WHERE kind != 'file' GROUP BY file_id",
        "edges": "SELECT file_id, count(*) FROM edges WHERE kind != 'contains' GROUP BY file_id",
        "refs": "SELECT file_id, count(*) FROM refs GROUP BY file_id",
    }
    for key, sql in counts.items():
        for file_id, count in conn.execute(sql):
            entry(int(file_id))[key] += int(count)
    rows = conn.execute(
        "SELECT file_id, reason, count(*) FROM refs WHERE resolved = 0 GROUP BY file_id, reason"
    )
    for file_id, reason, count in rows:
        entry(int(file_id))["unresolved"] += int(count)
        per = reasons.setdefault(language.get(int(file_id), "?"), {})
        per[str(reason or "unknown")] = per.get(str(reason or "unknown"), 0) + int(count)
    for item in stats.values():
        item["unresolved_share"] = (
            round(item["unresolved"] / item["refs"], 3) if item["refs"] else 0.0
        )
    ordered = {k: dict(sorted(v.items())) for k, v in sorted(reasons.items())}
    return dict(sorted(stats.items())), ordered


def _most_connected(conn: sqlite3.Connection, top: int) -> list[dict[str, Any]]:
    """Symbols with the most non-structural edges in and out (file symbols left out)."""
    rows = conn.execute(
        "WITH degree AS ("
        " SELECT target_id AS id, 1 AS inc, 0 AS outc FROM edges WHERE kind != 'contains'"
        " UNION ALL SELECT source_id, 0, 1 FROM edges WHERE kind != 'contains')"
        " SELECT s.kind, s.qualified_name, f.path, f.module, s.start_line,"
        " sum(d.inc) AS n_in, sum(d.outc) AS n_out FROM degree d"
        " JOIN symbols s ON s.id = d.id JOIN files f ON f.id = s.file_id"
        " WHERE s.kind != ? GROUP BY d.id ORDER BY n_in + n_out DESC, f.path, s.start_line"
        " LIMIT ?",
        (FILE_KIND, max(top, 0)),
    )
    return [
        {
            "symbol": full_name_of(str(kind), str(qname), str(path), str(module or "")),
            "kind": kind,
            "file": path,
            "line": line,
            "in": n_in,
            "out": n_out,
        }
        for kind, qname, path, module, line, n_in, n_out in rows
    ]


# -- dead code ---------------------------------------------------------------------------

# Decorators that do not register the function anywhere: a symbol carrying only these is
# still dead when nothing calls it. Any other decorator (routes, fixtures, CLI commands,
# @property...) may make it reachable in ways the graph cannot see.
_PLAIN_DECORATORS = frozenset(
    {
        "staticmethod", "classmethod", "cache", "functools.cache", "lru_cache",
        "functools.lru_cache", "wraps", "functools.wraps", "final", "typing.final",
        "inline", "must_use", "allow", "deny", "warn", "doc", "deprecated", "Deprecated",
        "SuppressWarnings", "Nullable", "NonNull",
    }
)  # fmt: skip
_ENTRY_NAMES = frozenset({"main", "__main__", "init", "setup", "teardown"})
_INDEX_FILES = frozenset(
    {"__init__.py", "index.js", "index.mjs", "index.cjs", "index.jsx", "index.ts", "index.tsx",
     "index.mts", "lib.rs", "mod.rs"}
)  # fmt: skip
_CONTRACT_KINDS = frozenset({"interface", "protocol", "trait"})

_CANDIDATE_SQL = (
    "SELECT s.id, s.name, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature,"
    " f.path, f.module, s.parent_id, s.decorators, s.is_exported, f.language, f.exports"
    " FROM symbols s JOIN files f ON f.id = s.file_id"
)


@dataclass(frozen=True, slots=True)
class DeadCodeReport:
    """Symbols nothing in the project uses. ``dead``: no incoming edge and no unresolved
    reference with their name; ``possibly``: no incoming edge, but an unresolved reference
    somewhere carries their name (a dynamic or untyped call may reach them).
    ``unparsed_files`` failed or partly failed to parse: their uses are unknown."""

    dead: list[SymbolRef]
    possibly: list[SymbolRef]
    total_dead: int
    total_possibly: int
    unparsed_files: list[str]

    @property
    def truncated(self) -> bool:
        return len(self.dead) < self.total_dead or len(self.possibly) < self.total_possibly


class _DeadCodeContext:
    """Facts about the whole graph that the per-symbol exclusions consult."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.used = {
            int(r[0])
            for r in conn.execute(
                "SELECT target_id FROM edges WHERE kind != 'contains' AND source_id != target_id"
                " UNION SELECT target_symbol_id FROM imports WHERE target_symbol_id IS NOT NULL"
            )
        }
        self.unresolved_names = {
            str(r[0]) for r in conn.execute("SELECT DISTINCT name FROM refs WHERE resolved = 0")
        }
        self.overriding = {
            int(r[0])
            for r in conn.execute(
                "SELECT source_id FROM edges WHERE kind IN ('overrides', 'implements')"
            )
        }
        self.bases: dict[int, list[int]] = defaultdict(list)
        for src, dst in conn.execute(
            "SELECT source_id, target_id FROM edges WHERE kind IN ('extends', 'implements')"
        ):
            self.bases[int(src)].append(int(dst))
        self.foreign_base = {
            int(r[0])
            for r in conn.execute(
                "SELECT DISTINCT source_id FROM refs WHERE kind IN ('extends', 'implements')"
                " AND resolved = 0 AND reason != 'builtin' AND source_id IS NOT NULL"
            )
        }
        self.reexported = {
            int(r[0])
            for r in conn.execute(
                "SELECT target_symbol_id FROM imports WHERE is_reexport = 1"
                " AND target_symbol_id IS NOT NULL"
            )
        }
        self.rows = {int(r[0]): r for r in conn.execute(_CANDIDATE_SQL)}
        self._members: dict[int, set[str]] = {}

    def members(self, class_id: int) -> set[str]:
        if class_id not in self._members:
            rows = self.conn.execute("SELECT name FROM symbols WHERE parent_id = ?", (class_id,))
            self._members[class_id] = {str(r[0]) for r in rows}
        return self._members[class_id]

    def ancestors(self, class_id: int) -> list[int]:
        seen: list[int] = []
        todo = list(self.bases.get(class_id, ()))
        while todo and len(seen) < 100:
            base = todo.pop()
            if base not in seen:
                seen.append(base)
                todo.extend(self.bases.get(base, ()))
        return seen


def _is_local(ctx: _DeadCodeContext, row: sqlite3.Row) -> bool:
    """Defined inside a function: a closure is used by being returned or passed, which
    parsers rarely record as a reference; linters judge local code better than a graph."""
    parent = ctx.rows.get(int(row[9])) if row[9] is not None else None
    return parent is not None and str(parent[3]) in ("function", "method", "constructor")


def _is_entry_point(row: sqlite3.Row) -> bool:
    name, path = str(row[1]), str(row[7])
    return (
        str(row[3]) == "test"
        or is_test_path(path)
        or name in _ENTRY_NAMES
        or name.startswith(("test_", "Test", "Benchmark", "Example"))
        or (name.startswith("__") and name.endswith("__"))
        or path.rsplit("/", 1)[-1] == "__main__.py"
    )


def _registered(row: sqlite3.Row) -> bool:
    """Carries a decorator that may register it with a framework (or make it a property)."""
    for text in str(row[10] or "").splitlines():
        head = text.strip().lstrip("@#[").split("(", 1)[0].rstrip("]").strip()
        if head and head not in _PLAIN_DECORATORS:
            return True
    return False


def _is_api(ctx: _DeadCodeContext, row: sqlite3.Row) -> bool:
    """Part of a package's public surface: listed in ``__all__``, re-exported, exported from
    an index file (``__init__.py``, ``index.ts``, ``lib.rs``), an exported Go name, or a
    public member of such a class."""
    sid, name, path, language = int(row[0]), str(row[1]), str(row[7]), str(row[12])
    exported = bool(row[11])
    if sid in ctx.reexported or name in str(row[13] or "").split("\n"):
        return True
    if exported and (path.rsplit("/", 1)[-1] in _INDEX_FILES or language == "go"):
        return True
    parent = ctx.rows.get(int(row[9])) if row[9] is not None else None
    if parent is not None and str(parent[3]) in CLASS_KINDS and not name.startswith("_"):
        return _is_api(ctx, parent)
    return False


def _overrides(ctx: _DeadCodeContext, row: sqlite3.Row) -> bool:
    """Overrides a base method, implements an interface member, or sits in a class whose
    base lies outside the project (a framework hook, ``visit_*``, ``run``...)."""
    sid, name = int(row[0]), str(row[1])
    if sid in ctx.overriding:
        return True
    if row[9] is None:
        return False
    parent_id = int(row[9])
    parent = ctx.rows.get(parent_id)
    if parent is None or str(parent[3]) not in CLASS_KINDS:
        return False
    if str(parent[3]) in _CONTRACT_KINDS or parent_id in ctx.foreign_base:
        return True
    return any(
        name in ctx.members(base) or base in ctx.foreign_base for base in ctx.ancestors(parent_id)
    )


def dead_code_report(
    conn: sqlite3.Connection,
    *,
    kinds: tuple[str, ...] = ("function", "method", "class"),
    limit: int = 200,
) -> DeadCodeReport:
    """Functions, methods and classes that no edge reaches, minus entry points (``main``,
    ``__main__``, tests, dunders), symbols registered by decorators, functions local to
    another function, overrides and interface implementations, and public API
    (``__all__``, index-file exports, ``pub`` in ``lib.rs``).
    Only direct use is checked: code used only by other dead code is not reported."""
    ctx = _DeadCodeContext(conn)
    dead: list[SymbolRef] = []
    possibly: list[SymbolRef] = []
    for row in sorted(ctx.rows.values(), key=lambda r: (str(r[7]), int(r[4]))):
        if str(row[3]) not in kinds or int(row[0]) in ctx.used:
            continue
        if _is_entry_point(row) or _registered(row) or _is_local(ctx, row):
            continue
        if _overrides(ctx, row) or _is_api(ctx, row):
            continue
        target = possibly if str(row[1]) in ctx.unresolved_names else dead
        target.append(row_to_ref(tuple(row)[:9]))
    unparsed = [
        str(r[0])
        for r in conn.execute(
            "SELECT path FROM files WHERE parse_status IN ('failed', 'partial') ORDER BY path"
        )
    ]
    cap = max(limit, 0)
    return DeadCodeReport(dead[:cap], possibly[:cap], len(dead), len(possibly), unparsed)


def dead_code(
    conn: sqlite3.Connection,
    *,
    kinds: tuple[str, ...] = ("function", "method", "class"),
    limit: int = 200,
) -> list[SymbolRef]:
    """The certain part of ``dead_code_report``: unused, and no unresolved reference carries
    the name. See the report for "possibly unused" symbols and truncation."""
    return dead_code_report(conn, kinds=kinds, limit=limit).dead
