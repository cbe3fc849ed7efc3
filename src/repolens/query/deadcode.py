"""Dead code: symbols nothing in the project uses, judged conservatively.

A false "unused" invites an agent to delete live code, so every doubt spares a symbol or
moves it to "possibly unused" with the reason: entry points, tests, framework
registrations, overrides and public API are spared; a name that an unresolved reference
carries, or that the code mentions outside the symbol (dispatch tables, ``getattr``
strings, callbacks stored in containers), makes it only "possibly" unused.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from repolens.query.entrypoints import entry_symbol_ids
from repolens.query.symbols import CLASS_KINDS, SYMBOL_COLUMNS, SymbolRef, is_test_path, row_to_ref

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
_MENTION_CHUNKS = 50  # chunks read per name when looking for a textual mention

_ROW_SQL = (
    f"SELECT {SYMBOL_COLUMNS}, s.parent_id, s.decorators, s.is_exported, f.exports"
    " FROM symbols s JOIN files f ON f.id = s.file_id"
)
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


class _Row(NamedTuple):
    """A symbol with what the exclusions look at; the first ten fields are
    ``SYMBOL_COLUMNS`` so ``row_to_ref(row[:10])`` works."""

    id: int
    name: str
    qualified_name: str
    kind: str
    line: int
    end_line: int
    signature: str
    path: str
    module: str
    language: str
    parent: int | None
    decorators: str
    exported: int
    exports: str


def _rows(conn: sqlite3.Connection, where: str = "", params: tuple[object, ...] = ()) -> list[_Row]:
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: 10x cheaper than sqlite3.Row on big indexes
    return [_Row(*r) for r in cursor.execute(_ROW_SQL + where, params)]


@dataclass(frozen=True, slots=True)
class DeadCodeReport:
    """Symbols nothing in the project uses. ``dead``: no incoming edge, and the name is
    neither carried by an unresolved reference nor mentioned elsewhere in the code;
    ``possibly``: no incoming edge, but ``why[symbol.id]`` says where the name shows up.
    ``unparsed_files`` failed or partly failed to parse: their uses are unknown."""

    dead: list[SymbolRef]
    possibly: list[SymbolRef]
    total_dead: int
    total_possibly: int
    unparsed_files: list[str]
    why: dict[int, str] = field(default_factory=dict)

    @property
    def truncated(self) -> bool:
        return len(self.dead) < self.total_dead or len(self.possibly) < self.total_possibly


class _DeadCodeContext:
    """Facts about the whole graph that the per-symbol exclusions consult, each loaded in
    one query (per-symbol queries cost seconds on a 100k-symbol index)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.used = self._ids(
            "SELECT target_id FROM edges WHERE kind != 'contains' AND source_id != target_id"
            " UNION SELECT target_symbol_id FROM imports WHERE target_symbol_id IS NOT NULL"
        )
        self.unresolved_names = {
            str(r[0]) for r in conn.execute("SELECT DISTINCT name FROM refs WHERE resolved = 0")
        }
        self.overriding = self._ids(
            "SELECT source_id FROM edges WHERE kind IN ('overrides', 'implements')"
        )
        self.bases: dict[int, list[int]] = defaultdict(list)
        for src, dst in conn.execute(
            "SELECT source_id, target_id FROM edges WHERE kind IN ('extends', 'implements')"
        ):
            self.bases[int(src)].append(int(dst))
        self.foreign_base = self._ids(
            "SELECT source_id FROM refs WHERE kind IN ('extends', 'implements')"
            " AND resolved = 0 AND reason != 'builtin' AND source_id IS NOT NULL"
        )
        self.reexported = self._ids(
            "SELECT target_symbol_id FROM imports WHERE is_reexport = 1"
            " AND target_symbol_id IS NOT NULL"
        )
        self.entries = entry_symbol_ids(conn)  # commands, mains, tasks, serverless handlers
        self.rows = {row.id: row for row in _rows(conn)}
        self.members: dict[int, set[str]] = defaultdict(set)
        self.spans: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
        for row in self.rows.values():
            if row.parent is not None:
                self.members[row.parent].add(row.name)
            self.spans[row.name].append((row.path, row.line, row.end_line))

    def _ids(self, sql: str) -> set[int]:
        return {int(r[0]) for r in self.conn.execute(sql)}

    def parent(self, row: _Row) -> _Row | None:
        return self.rows.get(row.parent) if row.parent is not None else None

    def ancestors(self, class_id: int) -> list[int]:
        seen: list[int] = []
        todo = list(self.bases.get(class_id, ()))
        while todo and len(seen) < 100:
            base = todo.pop()
            if base not in seen:
                seen.append(base)
                todo.extend(self.bases.get(base, ()))
        return seen


def _is_local(ctx: _DeadCodeContext, row: _Row) -> bool:
    """Defined inside a function: a closure is used by being returned or passed, which
    parsers rarely record as a reference; linters judge local code better than a graph."""
    parent = ctx.parent(row)
    return parent is not None and parent.kind in ("function", "method", "constructor")


def _is_entry_point(row: _Row) -> bool:
    name = row.name
    return (
        row.kind == "test"
        or is_test_path(row.path)
        or name in _ENTRY_NAMES
        or name.startswith(("test_", "Test", "Benchmark", "Example"))
        or (name.startswith("__") and name.endswith("__"))
        or row.path.rsplit("/", 1)[-1] == "__main__.py"
    )


def _registering_decorator(row: _Row) -> str:
    """The first decorator that may register the symbol with a framework (or make it a
    property), as written; "" when it carries none."""
    for text in row.decorators.splitlines():
        head = text.strip().lstrip("@#[").split("(", 1)[0].rstrip("]").strip()
        if head and head not in _PLAIN_DECORATORS:
            return text.strip()
    return ""


def entry_reason(conn: sqlite3.Connection, sym: SymbolRef) -> str:
    """Why ``sym`` may run with no caller in the graph ("" when nothing suggests it): a
    registering decorator, an entry-point or test name, or a base method it overrides
    (callers of the base may dispatch to it). Lets "no callers" be said with its caveat."""
    rows = _rows(conn, " WHERE s.id = ?", (sym.id,))
    if not rows:
        return ""
    decorator = _registering_decorator(rows[0])
    if decorator:
        decorator = decorator if decorator.startswith(("@", "#")) else f"@{decorator}"
        return f"decorated with {decorator}: a framework may call it"
    if _is_entry_point(rows[0]):
        return "an entry point or test: run by a tool, not called"
    base = conn.execute(
        "SELECT s.qualified_name, f.path, s.start_line FROM edges e JOIN symbols s"
        " ON s.id = e.target_id JOIN files f ON f.id = s.file_id"
        " WHERE e.source_id = ? AND e.kind IN ('overrides', 'implements') LIMIT 1",
        (sym.id,),
    ).fetchone()
    if base:
        return f"overrides {base[0]} ({base[1]}:{base[2]}): its callers may dispatch here"
    return ""


def _is_api(ctx: _DeadCodeContext, row: _Row) -> bool:
    """Part of a package's public surface: listed in ``__all__``, re-exported, exported from
    an index file (``__init__.py``, ``index.ts``, ``lib.rs``), an exported Go name, or a
    public member of such a class."""
    if row.id in ctx.reexported or row.name in row.exports.split("\n"):
        return True
    if row.exported and (row.path.rsplit("/", 1)[-1] in _INDEX_FILES or row.language == "go"):
        return True
    parent = ctx.parent(row)
    if parent is not None and parent.kind in CLASS_KINDS and not row.name.startswith("_"):
        return _is_api(ctx, parent)
    return False


def _overrides(ctx: _DeadCodeContext, row: _Row) -> bool:
    """Overrides a base method, implements an interface member, or sits in a class whose
    base lies outside the project (a framework hook, ``visit_*``, ``run``...)."""
    if row.id in ctx.overriding:
        return True
    parent = ctx.parent(row)
    if parent is None or parent.kind not in CLASS_KINDS:
        return False
    if parent.kind in _CONTRACT_KINDS or parent.id in ctx.foreign_base:
        return True
    return any(
        row.name in ctx.members[base] or base in ctx.foreign_base
        for base in ctx.ancestors(parent.id)
    )


def _spared(ctx: _DeadCodeContext, row: _Row) -> bool:
    return (
        _is_entry_point(row)
        or row.id in ctx.entries
        or bool(_registering_decorator(row))
        or _is_local(ctx, row)
        or _overrides(ctx, row)
        or _is_api(ctx, row)
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
    why: dict[int, str] = {}
    candidates = [r for r in ctx.rows.values() if r.kind in kinds and r.id not in ctx.used]
    for row in sorted(candidates, key=lambda r: (r.path, r.line)):
        if _spared(ctx, row):
            continue
        ref = row_to_ref(row[:10])
        if row.name in ctx.unresolved_names:
            possibly.append(ref)
        elif mention := _mention(conn, ref, ctx.spans[row.name]):
            why[ref.id] = mention
            possibly.append(ref)
        else:
            dead.append(ref)
    cap = max(limit, 0)
    for ref in possibly[:cap]:
        why.setdefault(ref.id, _unresolved_example(conn, ref.name))
    unparsed = [
        str(r[0])
        for r in conn.execute(
            "SELECT path FROM files WHERE parse_status IN ('failed', 'partial') ORDER BY path"
        )
    ]
    shown = {r.id for r in possibly[:cap]}
    return DeadCodeReport(
        dead[:cap], possibly[:cap], len(dead), len(possibly), unparsed,
        {k: v for k, v in why.items() if k in shown},
    )  # fmt: skip


def _unresolved_example(conn: sqlite3.Connection, name: str) -> str:
    row = conn.execute(
        "SELECT f.path, r.line, r.receiver FROM refs r JOIN files f ON f.id = r.file_id"
        " WHERE r.name = ? AND r.resolved = 0 ORDER BY f.path, r.line LIMIT 1",
        (name,),
    ).fetchone()
    if row is None:
        return ""
    shown = f"{row[2]}.{name}" if row[2] else name
    return f"unresolved `{shown}` at {row[0]}:{row[1]}"


def _mention(
    conn: sqlite3.Connection, ref: SymbolRef, definitions: list[tuple[str, int, int]]
) -> str | None:
    """Where the code names ``ref`` outside any definition of that name (a dispatch table,
    a ``getattr`` string, a callback stored in a list), found through the keyword index;
    ``None`` when nowhere, or when the index has no chunks to tell. Calls made inside
    same-named definitions are refs, which the graph already judged."""
    try:
        rows = conn.execute(
            "SELECT f.path, c.start_line, c.text FROM chunks_fts JOIN chunks c"
            " ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id"
            " WHERE chunks_fts MATCH ? LIMIT ?",
            (f'body:"{ref.name}"', _MENTION_CHUNKS),
        ).fetchall()
    except sqlite3.OperationalError:  # a name FTS cannot parse, or no chunks table
        return None
    for path, start, text in sorted(rows, key=lambda r: (r[0], r[1])):
        for line in _word_lines(str(text), ref.name, int(start)):
            if not any(path == p and first <= line <= last for p, first, last in definitions):
                return f"mentioned at {path}:{line}"
    return None


def _word_lines(text: str, word: str, first_line: int) -> list[int]:
    """Lines where ``word`` occurs as a whole identifier (a plain scan: compiling a regex
    per name costs more than the search on large indexes)."""
    lines, at = [], text.find(word)
    while at >= 0:
        end = at + len(word)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if before not in _IDENT_CHARS and after not in _IDENT_CHARS:
            lines.append(first_line + text.count("\n", 0, at))
        at = text.find(word, end)
    return lines


def dead_code(
    conn: sqlite3.Connection,
    *,
    kinds: tuple[str, ...] = ("function", "method", "class"),
    limit: int = 200,
) -> list[SymbolRef]:
    """The certain part of ``dead_code_report``: unused, and the name shows up nowhere
    else. See the report for "possibly unused" symbols, their reasons and truncation."""
    return dead_code_report(conn, kinds=kinds, limit=limit).dead
