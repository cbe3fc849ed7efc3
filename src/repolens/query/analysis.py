"""Whole-graph analyses: file dependencies, import cycles and index statistics.

Read-only on a ``sqlite3.Connection``; every result cites ``path:line``. Dead code, which
needs more judgement, is in ``repolens.query.deadcode``.
"""

from __future__ import annotations

import difflib
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from repolens.query.symbols import FILE_KIND, matching_files, symbols_by_ids


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


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
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
    cycles = [c for c in strongly_connected(graph) if len(c) > 1 or c[0] in graph.get(c[0], set())]
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
    references left unresolved, and why), the file dependency graph's shape, and the most
    connected symbols."""
    symbols = dict(conn.execute("SELECT kind, count(*) FROM symbols GROUP BY kind ORDER BY kind"))
    edges = dict(conn.execute("SELECT kind, count(*) FROM edges GROUP BY kind ORDER BY kind"))
    languages, reasons = _language_stats(conn)
    return {
        "files": sum(entry["files"] for entry in languages.values()),
        "symbols": symbols,
        "edges": edges,
        "languages": languages,
        "unresolved_reasons": reasons,
        "dependencies": file_graph_stats(conn, top=top),
        "most_connected": _most_connected(conn, top),
    }


def file_graph_stats(conn: sqlite3.Connection, *, top: int = 10) -> dict[str, Any]:
    """The file dependency graph's shape, over source files (those of a language with a
    parser; prose and data files import nothing by nature): the average number of project
    files each imports, the orphans (files that import no project file and that no project
    file imports — often dead modules, scripts or entry points), and the files with the
    most import links in and out."""
    from repolens.parse.languages import SPEC_MODULES

    source = sorted(
        str(path)
        for path, language in conn.execute("SELECT path, language FROM files")
        if language in SPEC_MODULES
    )
    graph = _import_graph(conn)
    importers: dict[str, int] = defaultdict(int)
    for importer, targets in graph.items():
        for target in targets - {importer}:
            importers[target] += 1
    linked = [(p, len(graph.get(p, set()) - {p}), importers.get(p, 0)) for p in source]
    orphans = [p for p, out, into in linked if not out and not into]
    ranked = sorted((r for r in linked if r[1] + r[2]), key=lambda r: (-(r[1] + r[2]), r[0]))
    total_out = sum(out for _, out, _ in linked)
    return {
        "source_files": len(source),
        "average_dependencies": round(total_out / len(source), 2) if source else 0.0,
        "orphans": len(orphans),
        "orphan_files": orphans[: max(top, 0)],
        "most_connected_files": [
            {"file": p, "imports": out, "imported_by": into} for p, out, into in ranked[:top]
        ],
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
    """Symbols with the most non-structural edges in and out (file symbols left out).
    Degrees are counted per index (target, source) and merged here: one GROUP BY per
    direction reads the covering index instead of sorting every edge."""
    degree: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for slot, column in enumerate(("target_id", "source_id")):
        rows = conn.execute(
            f"SELECT {column}, count(*) FROM edges WHERE kind != 'contains' GROUP BY {column}"
        )
        for sid, count in rows:
            degree[int(sid)][slot] = int(count)
    ranked = sorted(degree.items(), key=lambda item: -(item[1][0] + item[1][1]))
    out: list[dict[str, Any]] = []
    for start in range(0, len(ranked), 200):  # skip file symbols until ``top`` are found
        chunk = dict(ranked[start : start + 200])
        refs = symbols_by_ids(conn, list(chunk))
        for sid, (n_in, n_out) in chunk.items():
            ref = refs.get(sid)
            if ref is not None and ref.kind != FILE_KIND and len(out) < top:
                out.append({"symbol": ref.full_name, "kind": ref.kind, "file": ref.file,
                            "line": ref.line, "in": n_in, "out": n_out})  # fmt: skip
        if len(out) >= top:
            break
    return out
