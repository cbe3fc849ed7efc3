"""Cross-repository edges: an app's references to a package a linked project defines,
resolved into that project's symbols, at query time.

Each project's index stays its own: nothing is written into either. The resolver of the
app (the importer) left its imports of the package with no target file (``external``)
and the references through them unresolved; the library (the definer) holds the
package's modules, its exported symbols and its own re-exports. Matching the two when a
question is asked costs one pass over the importer's unresolved imports and references
(cached per pair of index files, by their stat), and stays right whatever changed in
either since: stored edges keyed by another index's symbol ids would need refreshing each
time the other index is written, by a writer that does not own it.

A package is known by what importers write (the definer's own names for it):

- a module name as the definer's resolver recorded it (``files.module``): Python import
  names (``shelf.slug``), Go import paths under the module path of its ``go.mod``
  (``example.com/shelf/textutil``), Rust paths under the crate name of its
  ``Cargo.toml`` (``shelf_tools::slug``), Java/Kotlin/Scala classes by package (Maven and
  Gradle artifacts are imported that way: ``com.acme.shelf.Slugs``);
- an npm package name (``@acme/shelf``, also each workspace's ``package.json``), bound to
  the file its ``types``/``module``/``main`` names, else ``src/index.*`` or ``index.*``;
  ``@acme/shelf/sub`` to ``sub`` under the package.

A name imported from such a module is the module-level symbol of that name, or one the
module re-exports (``from .slug import slugify`` in ``__init__``, ``export * from``). A
reference then resolves when it names an imported symbol (``slugify()``), a member of an
imported module or class (``slugs.slugify()``, ``textutil.Slugify()``,
``Slugs.slugify()``), or a method of a variable
whose stated type is an imported class (``catalog.add()`` after ``catalog =
Catalog()``). Such edges are ``linked-import`` edges: import-bound, confidence 0.9 (0.8
through a variable's type).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from repolens.query.symbols import CLASS_KINDS

PROVENANCE = "linked-import"
IMPORT_CONFIDENCE = 0.9
TYPED_CONFIDENCE = 0.8
KEPT_KINDS = frozenset({"calls", "instantiates", "extends", "implements", "references"})
ENTRY_STEMS = ("src/index", "index", "src/main", "main", "lib/index")
SOURCE_SUFFIXES = (".ts", ".tsx", ".mts", ".js", ".mjs", ".jsx", ".cjs")
MAX_REEXPORT_DEPTH = 4
_TYPE_WRAPPERS = re.compile(r"^[*&\s]+|\[.*\]|<.*>|\?$")


@dataclass(frozen=True, slots=True)
class CrossEdge:
    """A reference in project ``importer`` resolved to a symbol of project ``definer``
    (indexes into the linked set); ``file:line`` is the reference's place in the importer."""

    importer: int
    definer: int
    source: int
    target: int
    kind: str
    file: str
    line: int
    confidence: float
    via: str  # the import as written: "shelf.slug", "@acme/shelf"
    provenance: str = PROVENANCE


@dataclass(frozen=True, slots=True)
class Index:
    """One project of the set: where it lives and a read-only connection to its index."""

    label: str
    root: Path
    conn: sqlite3.Connection
    db_path: Path


@dataclass(frozen=True, slots=True)
class _Target:
    """What an importer's local name stands for in the definer: a symbol, or a module
    (its files)."""

    symbol: int | None = None
    files: tuple[int, ...] = ()
    via: str = ""


@dataclass(slots=True)
class _Package:
    """What a definer offers to importers (see module docstring)."""

    modules: dict[str, list[int]] = field(default_factory=dict)
    npm: dict[str, str] = field(default_factory=dict)  # package name -> its folder ("" = root)
    paths: dict[str, int] = field(default_factory=dict)  # file path -> file id


def _package(definer: Index) -> _Package:
    found = _Package()
    conn = definer.conn
    for file_id, path, module in conn.execute("SELECT id, path, module FROM files"):
        found.paths[str(path)] = int(file_id)
        if module:
            found.modules.setdefault(str(module), []).append(int(file_id))
        folder, _, name = str(path).rpartition("/")
        if name == "package.json":
            package = _json_name(definer.root / path)
            if package:
                found.npm[package] = folder
    return found


def _json_name(path: Path) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else ""


def _entry_files(package: _Package, root: Path, folder: str) -> list[int]:
    """The file an npm package's importers get: what its package.json names (a built
    ``dist/`` path tried in ``src/`` too), else an index file."""
    prefix = f"{folder}/" if folder else ""
    try:
        data = json.loads((root / prefix / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    named = [data.get(key) for key in ("types", "typings", "module", "main", "source")]
    stems: list[str] = []
    for value in named:
        if isinstance(value, str) and value:
            stem = re.sub(r"\.(d\.ts|[cm]?[jt]sx?)$", "", value.removeprefix("./"))
            stems += [stem, re.sub(r"^(dist|build|lib|out)/", "src/", stem)]
    for stem in [*stems, *ENTRY_STEMS]:
        found = _source_file(package, prefix + stem)
        if found:
            return found
    return []


def _source_file(package: _Package, stem: str) -> list[int]:
    for candidate in [stem, *(stem + s for s in SOURCE_SUFFIXES),
                      *(f"{stem}/index{s}" for s in SOURCE_SUFFIXES)]:  # fmt: skip
        if candidate in package.paths:
            return [package.paths[candidate]]
    return []


def _module_files(package: _Package, root: Path, spec: str) -> list[int]:
    """The definer's files an import of ``spec`` reaches, or ``[]``: not this package."""
    if spec in package.modules:
        return package.modules[spec]
    for name, folder in package.npm.items():
        if spec == name:
            return _entry_files(package, root, folder)
        if spec.startswith(name + "/"):
            prefix = f"{folder}/" if folder else ""
            sub = spec[len(name) + 1 :]
            return _source_file(package, prefix + sub) or _source_file(
                package, f"{prefix}src/{sub}"
            )
    return []


class _Definer:
    """Looking names up in one definer, remembering what was asked."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.package = _package(index)
        self._members: dict[tuple[tuple[int, ...], str], int | None] = {}

    def module(self, spec: str) -> tuple[int, ...]:
        return tuple(_module_files(self.package, self.index.root, spec))

    def member(self, files: tuple[int, ...], name: str, depth: int = 0) -> int | None:
        """The module-level symbol ``name`` of ``files``, or the one they re-export."""
        key = (files, name)
        if key not in self._members:
            self._members[key] = self._find_member(files, name, depth)
        return self._members[key]

    def _find_member(self, files: tuple[int, ...], name: str, depth: int) -> int | None:
        if not files or depth > MAX_REEXPORT_DEPTH:
            return None
        conn, marks = self.index.conn, ",".join("?" * len(files))
        row = conn.execute(
            "SELECT s.id FROM symbols s JOIN symbols p ON p.id = s.parent_id"
            f" WHERE s.file_id IN ({marks}) AND p.kind = 'file' AND s.name = ?"
            " AND s.is_exported = 1 ORDER BY s.start_line LIMIT 1",
            [*files, name],
        ).fetchone()
        if row is not None:
            return int(row[0])
        imports = conn.execute(
            "SELECT name, alias, is_wildcard, target_file_id, target_symbol_id FROM imports"
            f" WHERE file_id IN ({marks}) ORDER BY line",
            list(files),
        ).fetchall()
        for imported, alias, _, _, symbol in imports:
            if symbol is not None and (alias or imported) == name:
                return int(symbol)
        for _, _, wildcard, target_file, _ in imports:
            if wildcard and target_file is not None:
                found = self.member((int(target_file),), name, depth + 1)
                if found is not None:
                    return found
        return None

    def class_member(self, class_id: int, name: str) -> int | None:
        row = self.index.conn.execute(
            "SELECT id FROM symbols WHERE parent_id = ? AND name = ? ORDER BY start_line LIMIT 1",
            (class_id, name),
        ).fetchone()
        return int(row[0]) if row else None

    def kind(self, symbol: int) -> str:
        row = self.index.conn.execute("SELECT kind FROM symbols WHERE id = ?", (symbol,))
        found = row.fetchone()
        return str(found[0]) if found else ""


def _bindings(definer: _Definer, importer: Index) -> dict[int, dict[str, _Target]]:
    """Per importer file: each local name its unresolved imports bind to the definer."""
    out: dict[int, dict[str, _Target]] = {}
    rows = importer.conn.execute(
        "SELECT file_id, module, name, alias FROM imports WHERE target_file_id IS NULL"
        " ORDER BY file_id, line"
    )
    for file_id, spec, name, alias in rows:
        target = _bound(definer, str(spec), str(name) if name else None)
        if target is None:
            continue
        names = out.setdefault(int(file_id), {})
        if name or alias:
            names[str(alias or name)] = target
        else:  # `import shelf.slug` (used as written), Go's package name (last segment)
            names[str(spec)] = target
            names[str(spec).rsplit("/", 1)[-1]] = target
    return out


def _bound(definer: _Definer, spec: str, name: str | None) -> _Target | None:
    """What importing ``name`` from ``spec`` (or ``spec`` itself) gives in the definer:
    a submodule (Python's ``from shelf import slug``, Rust's ``use shelf::slug``; for
    Java, Kotlin and Scala the file of class ``Slugs`` in ``import com.acme.Slugs``,
    with that class), else a module-level symbol, else ``None``."""
    files = definer.module(spec)
    if name is None:
        return _Target(files=files, via=spec) if files else None
    for joined in (f"{spec}.{name}", f"{spec}::{name}"):
        sub = definer.module(joined)
        if sub:
            return _Target(definer.member(sub, name), sub, via=joined)
    symbol = definer.member(files, name) if files else None
    return _Target(symbol, via=spec) if symbol is not None else None


def _type_name(text: str) -> str:
    return _TYPE_WRAPPERS.sub("", text.strip()).strip()


def cross_edges(importer: Index, definer: Index) -> list[CrossEdge]:
    """The importer's unresolved references that resolve into the definer (see module
    docstring), with both projects' places in the set still to be filled in."""
    lookup = _Definer(definer)
    bound = _bindings(lookup, importer)
    if not bound:
        return []
    conn = importer.conn
    file_symbols = {int(f): int(s) for f, s in conn.execute(
        "SELECT file_id, id FROM symbols WHERE kind = 'file'")}  # fmt: skip
    paths = {int(f): str(p) for f, p in conn.execute("SELECT id, path FROM files")}
    edges: list[CrossEdge] = []
    for file_id, names in bound.items():
        types = _typed_names(conn, file_id)
        refs = conn.execute(
            "SELECT source_id, kind, name, receiver, line FROM refs"
            " WHERE file_id = ? AND resolved = 0 ORDER BY line, col",
            (file_id,),
        )
        for source, kind, name, receiver, line in refs:
            found = _resolve(lookup, names, types, source, str(name), receiver)
            if found is None:
                continue
            target, via, sure = found
            source_id = int(source) if source is not None else file_symbols.get(file_id)
            if source_id is None:
                continue
            edge_kind = _edge_kind(str(kind), lookup.kind(target))
            edges.append(CrossEdge(0, 0, source_id, target, edge_kind, paths[file_id],
                                   int(line), sure, via))  # fmt: skip
    return edges


def _typed_names(conn: sqlite3.Connection, file_id: int) -> dict[tuple[int | None, str], str]:
    """(scope, variable) -> the type the code states for it, in one importer file."""
    rows = conn.execute(
        "SELECT scope_id, name, type_name FROM bindings WHERE file_id = ? ORDER BY line",
        (file_id,),
    )
    return {(scope, str(name)): _type_name(str(type_name)) for scope, name, type_name in rows}


def _resolve(
    lookup: _Definer,
    names: dict[str, _Target],
    types: dict[tuple[int | None, str], str],
    source: int | None,
    name: str,
    receiver: str | None,
) -> tuple[int, str, float] | None:
    """The definer symbol one reference reaches, how it was imported, and how sure."""
    if not receiver:
        target = names.get(name)
        if target is not None and target.symbol is not None:
            return target.symbol, target.via, IMPORT_CONFIDENCE
        return None
    imported = names.get(receiver)
    if imported is not None:
        symbol = lookup.member(imported.files, name) if imported.files else None
        owner = imported.symbol
        if symbol is None and owner is not None and lookup.kind(owner) in CLASS_KINDS:
            symbol = lookup.class_member(owner, name)  # `Slugs.slugify()`: a static member
        return (symbol, imported.via, IMPORT_CONFIDENCE) if symbol is not None else None
    type_name = types.get((source, receiver)) or types.get((None, receiver))
    return _typed_member(lookup, names, type_name, name) if type_name else None


def _typed_member(
    lookup: _Definer, names: dict[str, _Target], type_name: str, name: str
) -> tuple[int, str, float] | None:
    """Member ``name`` of the imported class a variable's stated type names
    (``Catalog``, ``textutil.Catalog``)."""
    head, _, tail = type_name.rpartition(".")
    owner: int | None = None
    via = ""
    if head and head in names and names[head].files:
        owner, via = lookup.member(names[head].files, tail), names[head].via
    elif not head and tail in names:
        owner, via = names[tail].symbol, names[tail].via
    if owner is None or lookup.kind(owner) not in CLASS_KINDS:
        return None
    member = lookup.class_member(owner, name)
    return (member, via, TYPED_CONFIDENCE) if member is not None else None


def _edge_kind(ref_kind: str, target_kind: str) -> str:
    if ref_kind == "calls" and target_kind in CLASS_KINDS:
        return "instantiates"
    return ref_kind if ref_kind in KEPT_KINDS else "references"


_cache: dict[tuple[str, str], tuple[tuple[int, ...], list[CrossEdge]]] = {}
_cache_lock = threading.Lock()


def _stamp(paths: Iterable[Path]) -> tuple[int, ...]:
    """What changes when an index is written: its file's and its WAL's size and mtime."""
    out: list[int] = []
    for path in paths:
        for part in (path, path.with_name(path.name + "-wal")):
            try:
                stat = os.stat(part)
            except OSError:
                out += [-1, -1]
                continue
            out += [stat.st_size, stat.st_mtime_ns]
    return tuple(out)


def linked_edges(indexes: Sequence[Index]) -> list[CrossEdge]:
    """Every cross edge among ``indexes``: each project as importer of every other. A
    reference two projects could answer (both define the package) goes to the first in
    the set's order, as a module path resolves to the first match."""
    edges: list[CrossEdge] = []
    for a, importer in enumerate(indexes):
        taken: set[tuple[str, int, int, str]] = set()
        for b, definer in enumerate(indexes):
            if a == b:
                continue
            key = (str(importer.db_path), str(definer.db_path))
            stamp = _stamp([importer.db_path, definer.db_path])
            with _cache_lock:
                cached = _cache.get(key)
            if cached is not None and cached[0] == stamp:
                found = cached[1]
            else:
                found = cross_edges(importer, definer)
                with _cache_lock:
                    _cache[key] = (stamp, found)
            for edge in found:
                site = (edge.file, edge.line, edge.source, edge.kind)
                if site not in taken:
                    taken.add(site)
                    edges.append(replace(edge, importer=a, definer=b))
    return edges
