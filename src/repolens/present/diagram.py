"""Diagrams of the graph as data: boxes, arrows, groups, and what was folded away.

Four pictures, each built from the query layer and kept to a node cap so it stays readable:

- ``files``: the file import graph of a folder (or one file's neighbourhood), files grouped
  by folder, cycles marked; past the cap, whole folders stand for their files.
- ``calls``: a symbol's callers and callees to a depth.
- ``flow``: what a symbol (or a route) sets going, following calls forward.
- ``path``: the shortest call chain from one symbol to another, each hop's call site.

A symbol picture past the cap shows its symbols by file, then by folder. Every fold is
written into ``notes`` so the reader knows the picture is a summary, never that it is all.
Rendering to text (Mermaid) is ``repolens.present.mermaid``'s job.
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from repolens.present.format import plural
from repolens.query.analysis import FileLookupError
from repolens.query.filegraph import (
    ROOT,
    FileGraph,
    collapse,
    cycle_pairs,
    file_graph,
    fold,
    folder_scope,
)
from repolens.query.flow import flow
from repolens.query.graph import (
    SymbolRef,
    callees,
    callers,
    find_symbol,
    trace_path,
    unresolved_calls,
)
from repolens.query.symbols import matching_files

KINDS = ("files", "calls", "flow", "path")
DEFAULT_MAX_NODES = 60
CALL_KINDS = ("calls", "instantiates")
SURE = 0.9  # edges below this confidence are drawn dashed
_PER_NODE = 40  # neighbours read per symbol while walking


@dataclass(slots=True)
class Node:
    """One box. ``group`` is the folder (or file) drawn around it, ``""`` for none;
    ``tags`` are styles: ``cycle``, ``root``, ``folder``, ``lang-<language>``."""

    key: str
    label: str
    group: str = ""
    tags: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Edge:
    source: str
    target: str
    label: str = ""
    sure: bool = True
    cycle: bool = False


@dataclass(slots=True)
class Diagram:
    """What a picture shows; ``direction`` is Mermaid's (``LR``, ``TD``)."""

    title: str
    direction: str
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, node: Node) -> Node:
        return self.nodes.setdefault(node.key, node)


# --- files -----------------------------------------------------------------------------


def files_diagram(conn: sqlite3.Connection, base: str, max_nodes: int) -> Diagram:
    """The import graph of the files under ``base`` (``""``: the whole project)."""
    graph = file_graph(conn, base)
    where = f"under {base}/" if base else "of the project"
    diagram = Diagram(f"file imports {where}", "LR")
    if not graph.files:
        diagram.notes.append(f"no indexed file {where}")
        return diagram
    if len(graph.files) <= max_nodes:
        _draw_files(diagram, graph, sorted(graph.files))
    else:
        _draw_folders(diagram, graph, fold(graph.files, base, max_nodes))
    _mark_cycle_edges(diagram)
    if graph.cyclic:
        diagram.notes.append(f"{plural(len(graph.cyclic), 'file')} on import cycles (marked red)")
    return diagram


def file_diagram(conn: sqlite3.Connection, path: str, depth: int, max_nodes: int) -> Diagram:
    """One file, what it imports and what imports it, ``depth`` hops each way."""
    graph = file_graph(conn)
    out: dict[str, set[str]] = {}
    into: dict[str, set[str]] = {}
    for src, dst in graph.imports:
        out.setdefault(src, set()).add(dst)
        into.setdefault(dst, set()).add(src)
    shown, frontier, cut = {path}, {path}, 0
    for _ in range(max(depth, 1)):
        step = sorted({n for f in frontier for n in out.get(f, set()) | into.get(f, set())} - shown)
        room = max(max_nodes - len(shown), 0)
        if len(step) > room:
            cut, step = len(step) - room, step[:room]
        shown.update(step)
        frontier = set(step)
        if cut:
            break
    sub = FileGraph(
        graph.base,
        {p: graph.files[p] for p in shown},
        {k: v for k, v in graph.imports.items() if k[0] in shown and k[1] in shown},
        graph.cyclic & shown,
    )
    diagram = Diagram(f"imports of {path}, {plural(depth, 'hop')} each way", "LR")
    _draw_files(diagram, sub, sorted(shown))
    diagram.nodes[path].tags.add("root")
    _mark_cycle_edges(diagram)
    if cut:
        diagram.notes.append(
            f"{plural(cut, 'more file')} at the last hop left out (node cap"
            f" {max_nodes}; raise --max-nodes)"
        )
    return diagram


def _draw_files(diagram: Diagram, graph: FileGraph, paths: Sequence[str]) -> None:
    for path in paths:
        tags = {f"lang-{graph.files[path]}"} | ({"cycle"} if path in graph.cyclic else set())
        folder = posixpath.dirname(path)
        diagram.add(Node(path, posixpath.basename(path), folder, tags))
    for src, dst in sorted(graph.imports):
        if src in diagram.nodes and dst in diagram.nodes:
            diagram.edges.append(Edge(src, dst))


def _draw_folders(diagram: Diagram, graph: FileGraph, keys: dict[str, str]) -> None:
    """Files drawn as the entries ``keys`` maps them to: some files, some shut folders."""
    seen = collapse(graph, keys.__getitem__)
    shut: list[str] = []
    for key, members in sorted(seen.members.items()):
        is_file = members == [key]
        tags = {f"lang-{graph.files[key]}"} if is_file else {"folder"}
        if key in seen.cyclic:
            tags.add("cycle")
        name = posixpath.basename(key)
        label = name if is_file else f"{name}/ ({plural(len(members), 'file')})"
        diagram.add(Node(key, label, posixpath.dirname(key), tags))
        if not is_file:
            shut.append(f"{key}/ ({len(members)})")
    for (src, dst), count in sorted(seen.imports.items()):
        diagram.edges.append(Edge(src, dst, plural(count, "import")))
    folded = sum(len(seen.members[k]) for k in seen.members if seen.members[k] != [k])
    listed = ", ".join(shut[:12]) + (f", … {len(shut) - 12} more" if len(shut) > 12 else "")
    diagram.notes.append(
        f"collapsed: {plural(len(graph.files), 'file')} exceed the node cap; {folded} of them"
        f" are drawn as {plural(len(shut), 'folder')}: {listed}. Give --scope FOLDER to open"
        " one, or raise --max-nodes"
    )


def _mark_cycle_edges(diagram: Diagram) -> None:
    """Edges on a cycle of the drawn graph, and their ends, are marked."""
    on_cycle = cycle_pairs((edge.source, edge.target) for edge in diagram.edges)
    for edge in diagram.edges:
        if (edge.source, edge.target) in on_cycle:
            edge.cycle = True
            diagram.nodes[edge.source].tags.add("cycle")
            diagram.nodes[edge.target].tags.add("cycle")


# --- symbols ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Link:
    source: SymbolRef
    target: SymbolRef
    line: int
    confidence: float
    kind: str


def calls_diagram(conn: sqlite3.Connection, sym: SymbolRef, depth: int, max_nodes: int) -> Diagram:
    """``sym``'s callers and callees, ``depth`` hops each way."""
    found, links, cut = _walk(conn, sym, depth, max_nodes * 4)
    diagram = Diagram(f"calls around {sym.full_name}, {plural(depth, 'hop')} each way", "LR")
    _draw_symbols(diagram, sym, found, links, max_nodes)
    _note_walk(diagram, conn, sym, cut)
    return diagram


def flow_diagram(conn: sqlite3.Connection, sym: SymbolRef, depth: int, max_nodes: int) -> Diagram:
    """What ``sym`` sets going (``query.flow``): its callees, theirs, to ``depth``; a
    route's handler first (or, for an inline handler, the calls on the route's lines).
    Edges are labelled with the line of the call."""
    result = flow(conn, sym, depth=depth, limit=max_nodes * 4)
    found: dict[int, tuple[SymbolRef, int]] = {sym.id: (sym, 0)}
    links = []
    for node in result.nodes:
        parent = sym if node.parent < 0 else result.nodes[node.parent].symbol
        found.setdefault(node.symbol.id, (node.symbol, node.depth))
        links.append(_Link(parent, node.symbol, node.line, node.confidence, node.edge_kind))
    diagram = Diagram(f"flow from {sym.full_name}, {plural(depth, 'hop')} deep", "TD")
    _draw_symbols(diagram, sym, found, links, max_nodes)
    if result.truncated:
        diagram.notes.append(f"the flow was cut at {plural(len(result.nodes), 'node')}")
    _note_walk(diagram, conn, sym, 0)
    return diagram


def path_diagram(
    conn: sqlite3.Connection, src: SymbolRef, dst: SymbolRef, max_depth: int
) -> Diagram | None:
    """The shortest call chain from ``src`` to ``dst``; ``None`` when there is none within
    ``max_depth`` hops."""
    traced = trace_path(conn, src, dst, max_depth=max_depth)
    if traced is None:
        return None
    hops = traced.hops
    diagram = Diagram(f"call path {src.full_name} → {dst.full_name}", "LR")
    previous = src
    diagram.add(_symbol_node(src, {"root"}))
    for hop in hops:
        diagram.add(_symbol_node(hop.symbol, {"root"} if hop.symbol.id == dst.id else set()))
        site = f"{hop.file}:{hop.line}"
        diagram.edges.append(
            Edge(str(previous.id), str(hop.symbol.id), site, hop.confidence >= SURE)
        )
        previous = hop.symbol
    diagram.notes.append(f"{plural(len(hops), 'hop')}; edge labels are the call sites")
    return diagram


def _walk(
    conn: sqlite3.Connection, root: SymbolRef, depth: int, limit: int
) -> tuple[dict[int, tuple[SymbolRef, int]], list[_Link], int]:
    """Breadth-first from ``root`` both ways: symbols found (with their hop count), the
    links between them, and how many neighbours the ``limit`` left out."""
    found: dict[int, tuple[SymbolRef, int]] = {root.id: (root, 0)}
    links: list[_Link] = []
    frontier = [root]
    cut = 0
    for level in range(1, max(depth, 1) + 1):
        nxt: list[SymbolRef] = []
        for sym in frontier:
            hits = [(h, True) for h in callees(conn, sym, kinds=CALL_KINDS, limit=_PER_NODE)]
            hits += [(h, False) for h in callers(conn, sym, kinds=CALL_KINDS, limit=_PER_NODE)]
            for hit, forward in hits:
                other = hit.symbol
                if other.id not in found:
                    if len(found) >= limit:
                        cut += 1
                        continue
                    found[other.id] = (other, level)
                    nxt.append(other)
                src, dst = (sym, other) if forward else (other, sym)
                links.append(_Link(src, dst, hit.line, hit.confidence, hit.edge_kind))
        frontier = nxt
    return found, links, cut


def _draw_symbols(
    diagram: Diagram,
    root: SymbolRef,
    found: dict[int, tuple[SymbolRef, int]],
    links: list[_Link],
    max_nodes: int,
) -> None:
    """Symbols as boxes grouped by file; past ``max_nodes`` every symbol but the root is
    folded into its file, and past it again files into folders."""
    refs = [ref for ref, _ in found.values()]
    key_of = {ref.id: str(ref.id) for ref in refs}
    if len(refs) > max_nodes:
        files = {ref.file for ref in refs if ref.id != root.id}
        if len(files) + 1 <= max_nodes:
            key_of = {ref.id: ref.file for ref in refs}
            level = "their files"
        else:
            folders = fold(files, ROOT, max_nodes - 1)
            key_of = {ref.id: folders.get(ref.file, ref.file) for ref in refs}
            level = "their files and folders"
        key_of[root.id] = str(root.id)
        diagram.notes.append(
            f"collapsed: {plural(len(refs), 'symbol')} over the node cap {max_nodes}; all but"
            f" {root.full_name} are drawn as {level} (raise --max-nodes or --depth less)"
        )
    members: dict[str, list[SymbolRef]] = {}
    for ref in refs:
        members.setdefault(key_of[ref.id], []).append(ref)
    for key, group in members.items():
        if len(group) == 1 and key == str(group[0].id):
            diagram.add(_symbol_node(group[0], {"root"} if group[0].id == root.id else set()))
        else:
            name = key.rstrip("/")
            diagram.add(Node(key, f"{name} ({plural(len(group), 'symbol')})", "", {"folder"}))
    seen: dict[tuple[str, str], Edge] = {}
    for link in links:
        a, b = key_of[link.source.id], key_of[link.target.id]
        if a == b:
            continue
        edge = seen.get((a, b))
        if edge is None:
            label = f"L{link.line}" if link.kind != "routes_to" else "route"
            seen[(a, b)] = Edge(a, b, label, link.confidence >= SURE)
        else:
            edge.label = ""  # several call sites: the arrow alone says it
            edge.sure = edge.sure or link.confidence >= SURE
    diagram.edges.extend(seen.values())


def _symbol_node(sym: SymbolRef, tags: set[str]) -> Node:
    return Node(str(sym.id), f"{sym.qualified_name} ({sym.kind})", sym.file, tags)


def _note_walk(diagram: Diagram, conn: sqlite3.Connection, root: SymbolRef, cut: int) -> None:
    if cut:
        diagram.notes.append(f"{plural(cut, 'more neighbour')} not walked (node cap)")
    unresolved = unresolved_calls(conn, root)
    unknown = [u for u in unresolved if u["reason"] not in ("builtin", "external")]
    if unknown:
        diagram.notes.append(
            f"{plural(len(unknown), 'call')} out of {root.qualified_name} could not be"
            " resolved and are not drawn"
        )
    if any(not e.sure for e in diagram.edges):
        diagram.notes.append("dashed arrows are uncertain edges (name match)")


# --- choosing the picture --------------------------------------------------------------


class DiagramError(ValueError):
    """A diagram cannot be drawn as asked; the message says what to give instead."""


DEFAULT_DEPTH = {"files": 1, "calls": 1, "flow": 3, "path": 8}


def build(
    conn: sqlite3.Connection,
    *,
    kind: str | None,
    scope: str | None,
    to: str | None = None,
    depth: int | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> Diagram:
    """The picture asked for. ``scope`` is a folder or a file (root-relative, already
    confined) or a symbol; without ``kind`` a folder or file gives ``files`` and a symbol
    ``calls``. Raises DiagramError, SymbolLookupError or FileLookupError."""
    if kind is not None and kind not in KINDS:
        raise DiagramError(f"unknown diagram kind '{kind}'; one of {', '.join(KINDS)}")
    if max_nodes < 2:
        raise DiagramError("max_nodes must be at least 2")
    text = (scope or "").strip()
    chosen = kind or ("files" if not text or _is_file_scope(conn, text) else "calls")
    hops = depth if depth is not None else DEFAULT_DEPTH[chosen]
    if hops < 1:
        raise DiagramError("depth must be at least 1")
    if chosen == "files":
        files = matching_files(conn, text) if text else []
        if len(files) == 1:
            return file_diagram(conn, files[0], hops, max_nodes)
        try:
            return files_diagram(conn, folder_scope(conn, text), max_nodes)
        except FileLookupError:
            if files:
                raise FileLookupError(f"'{text}' matches {len(files)} files", files) from None
            raise
    if not text:
        raise DiagramError(f"a '{chosen}' diagram needs a symbol: give --scope SYMBOL")
    sym = find_symbol(conn, text)
    if chosen == "calls":
        return calls_diagram(conn, sym, hops, max_nodes)
    if chosen == "flow":
        return flow_diagram(conn, sym, hops, max_nodes)
    if not to:
        raise DiagramError("a 'path' diagram needs two symbols: --scope FROM --to TO")
    dst = find_symbol(conn, to)
    drawn = path_diagram(conn, sym, dst, hops)
    if drawn is None:
        raise DiagramError(
            f"no call path from {sym.full_name} to {dst.full_name} within {plural(hops, 'hop')}"
            " (raise --depth; calls the resolver could not connect are not followed)"
        )
    return drawn


def _is_file_scope(conn: sqlite3.Connection, text: str) -> bool:
    """Whether ``text`` names an indexed file or a folder holding some."""
    if text in (".", "/") or matching_files(conn, text):
        return True
    try:
        folder_scope(conn, text)
    except FileLookupError:
        return False
    return True
