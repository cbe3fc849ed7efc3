"""The file import graph, whole or under one folder, and its aggregation to folders.

Pictures of a codebase (Mermaid diagrams, the explorer's map) need the same few facts: the
indexed files under a folder, which of them import which, and which sit in an import cycle;
and, once there are more files than a picture can hold, the same graph seen one folder level
up, with every import between two folders counted on one edge. Read-only on a connection.
"""

from __future__ import annotations

import difflib
import posixpath
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from repolens.query.analysis import FileLookupError, import_cycles, strongly_connected

ROOT = ""  # the project root as a folder


@dataclass(frozen=True, slots=True)
class FileGraph:
    """Files under ``base`` (path → language), the import statements between them
    counted per (importer, imported) pair, and the files that lie on an import cycle
    (a cycle may pass through files outside ``base``)."""

    base: str
    files: dict[str, str]
    imports: dict[tuple[str, str], int]
    cyclic: frozenset[str]


@dataclass(frozen=True, slots=True)
class Collapsed:
    """A graph seen through ``key`` (a file to the folder that stands for it): each
    group's member files, the import statements between two groups, and the groups that
    hold a file on an import cycle."""

    members: dict[str, list[str]]
    imports: dict[tuple[str, str], int]
    cyclic: frozenset[str]


def folder_scope(conn: sqlite3.Connection, folder: str) -> str:
    """``folder`` as a prefix of indexed paths (``""`` for the root, no trailing slash),
    or FileLookupError with the folders whose name is close."""
    folder = folder.strip().strip("/")
    if folder in ("", "."):
        return ROOT
    row = conn.execute(
        "SELECT 1 FROM files WHERE path LIKE ? ESCAPE '\\' LIMIT 1", (_like_prefix(folder),)
    ).fetchone()
    if row is not None:
        return folder
    folders = sorted(all_folders(str(r[0]) for r in conn.execute("SELECT path FROM files")))
    close = difflib.get_close_matches(folder, folders, n=8, cutoff=0.6)
    raise FileLookupError(f"no indexed file under '{folder}/'", close)


def file_graph(conn: sqlite3.Connection, base: str = ROOT) -> FileGraph:
    """The import graph among the files under ``base`` (see ``folder_scope``)."""
    where, params = (
        ("", []) if base == ROOT else (" WHERE path LIKE ? ESCAPE '\\'", [_like_prefix(base)])
    )
    files = {
        str(path): str(language)
        for path, language in conn.execute(f"SELECT path, language FROM files{where}", params)
    }
    counts: Counter[tuple[str, str]] = Counter()
    rows = conn.execute(
        "SELECT src.path, dst.path FROM imports i JOIN files src ON src.id = i.file_id"
        " JOIN files dst ON dst.id = i.target_file_id WHERE src.id != dst.id"
    )
    for src, dst in rows:
        if src in files and dst in files:
            counts[(str(src), str(dst))] += 1
    cyclic = frozenset(path for cycle in import_cycles(conn, limit=1 << 30) for path in cycle)
    return FileGraph(base, files, dict(counts), cyclic & files.keys())


def collapse(graph: FileGraph, key: Callable[[str], str]) -> Collapsed:
    """``graph`` with each file replaced by ``key(file)``; imports inside one group vanish,
    imports between groups add up."""
    members: dict[str, list[str]] = {}
    for path in sorted(graph.files):
        members.setdefault(key(path), []).append(path)
    imports: Counter[tuple[str, str]] = Counter()
    for (src, dst), count in graph.imports.items():
        a, b = key(src), key(dst)
        if a != b:
            imports[(a, b)] += count
    cyclic = frozenset(key(path) for path in graph.cyclic)
    return Collapsed(members, dict(imports), cyclic)


def cycle_pairs(pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The edges among ``pairs`` that lie on a cycle: both ends in one strongly connected
    component (at folder level a cycle can appear that no file cycle makes, and a file
    cycle inside one folder vanishes)."""
    graph: dict[str, set[str]] = {}
    for src, dst in pairs:
        graph.setdefault(src, set()).add(dst)
        graph.setdefault(dst, set())
    component = {key: n for n, keys in enumerate(strongly_connected(graph)) for key in keys}
    return {
        (src, dst)
        for src, targets in graph.items()
        for dst in targets
        if src != dst and component[src] == component[dst]
    }


def ancestor(path: str, base: str, depth: int) -> str:
    """The folder ``depth`` levels below ``base`` that holds ``path`` (``path`` itself
    when it lies less deep). ``ancestor("a/b/c/x.py", "a", 1) == "a/b"``."""
    inner = path[len(base) + 1 :] if base else path
    parts = inner.split("/")
    if len(parts) <= depth:
        return path
    head = "/".join(parts[:depth])
    return f"{base}/{head}" if base else head


def child_of(path: str, base: str) -> str:
    """The entry directly under ``base`` (a folder or the file itself) that holds ``path``."""
    return ancestor(path, base, 1)


def fold(paths: Iterable[str], base: str, max_nodes: int) -> dict[str, str]:
    """Each of ``paths`` mapped to the entry that stands for it in a picture of at most
    ``max_nodes`` boxes: start from the entries directly under ``base`` and open the
    biggest folder whose entries still fit, until none does. Big folders are seen inside,
    small ones stay shut, and the count never passes the cap (unless ``base`` alone holds
    more entries than that)."""
    groups: dict[str, list[str]] = {}
    for path in sorted(paths):
        groups.setdefault(child_of(path, base), []).append(path)
    closed: set[str] = set()  # folders that did not fit when opened
    while True:
        shut = [k for k, m in groups.items() if m != [k] and k not in closed]
        if not shut:
            break
        biggest = max(shut, key=lambda k: (len(groups[k]), k))
        inside: dict[str, list[str]] = {}
        for path in groups[biggest]:
            inside.setdefault(child_of(path, biggest), []).append(path)
        if len(groups) - 1 + len(inside) <= max_nodes:
            del groups[biggest]
            groups.update(inside)
        else:
            closed.add(biggest)
    return {path: key for key, members in groups.items() for path in members}


def all_folders(paths: Iterable[str]) -> set[str]:
    """Every folder that holds one of ``paths``, at any depth."""
    out: set[str] = set()
    for path in paths:
        folder = posixpath.dirname(path)
        while folder and folder not in out:
            out.add(folder)
            folder = posixpath.dirname(folder)
    return out


def _like_prefix(folder: str) -> str:
    escaped = folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "/%"
