"""Dead code: symbols nothing in the project uses, judged conservatively.

A false "unused" invites an agent to delete live code, so every doubt spares a symbol or
moves it to "possibly unused" with the reason: entry points, tests, framework
registrations, overrides and public API are spared; a name that an unresolved reference
carries, or that the code mentions outside the symbol (dispatch tables, ``getattr``
strings, callbacks stored in containers), makes it only "possibly" unused.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field

from repolens.query.symbols import CLASS_KINDS, SymbolRef, is_test_path, row_to_ref

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

_CANDIDATE_SQL = (
    "SELECT s.id, s.name, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature,"
    " f.path, f.module, s.parent_id, s.decorators, s.is_exported, f.language, f.exports"
    " FROM symbols s JOIN files f ON f.id = s.file_id"
)


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
        self.unresolved: dict[str, str] = {}  # name -> one place it is used unresolved
        for name, path, line, receiver in conn.execute(
            "SELECT r.name, f.path, r.line, r.receiver FROM refs r JOIN files f"
            " ON f.id = r.file_id WHERE r.resolved = 0 ORDER BY f.path, r.line"
        ):
            shown = f"{receiver}.{name}" if receiver else str(name)
            self.unresolved.setdefault(str(name), f"unresolved `{shown}` at {path}:{line}")
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


def _registering_decorator(row: sqlite3.Row) -> str:
    """The first decorator that may register the symbol with a framework (or make it a
    property), as written; "" when it carries none."""
    for text in str(row[10] or "").splitlines():
        head = text.strip().lstrip("@#[").split("(", 1)[0].rstrip("]").strip()
        if head and head not in _PLAIN_DECORATORS:
            return text.strip()
    return ""


def _registered(row: sqlite3.Row) -> bool:
    return bool(_registering_decorator(row))


def entry_reason(conn: sqlite3.Connection, sym: SymbolRef) -> str:
    """Why ``sym`` may run with no caller in the graph ("" when nothing suggests it): a
    registering decorator, an entry-point or test name, or a base method it overrides
    (callers of the base may dispatch to it). Lets "no callers" be said with its caveat."""
    row = conn.execute(_CANDIDATE_SQL + " WHERE s.id = ?", (sym.id,)).fetchone()
    if row is None:
        return ""
    decorator = _registering_decorator(row)
    if decorator:
        decorator = decorator if decorator.startswith(("@", "#")) else f"@{decorator}"
        return f"decorated with {decorator}: a framework may call it"
    if _is_entry_point(row):
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
    why: dict[int, str] = {}
    for row in sorted(ctx.rows.values(), key=lambda r: (str(r[7]), int(r[4]))):
        if str(row[3]) not in kinds or int(row[0]) in ctx.used:
            continue
        if _is_entry_point(row) or _registered(row) or _is_local(ctx, row):
            continue
        if _overrides(ctx, row) or _is_api(ctx, row):
            continue
        ref = row_to_ref((*tuple(row)[:9], row[12]))
        reason = ctx.unresolved.get(ref.name) or _mention(conn, ref)
        if reason:
            why[ref.id] = reason
        (possibly if reason else dead).append(ref)
    unparsed = [
        str(r[0])
        for r in conn.execute(
            "SELECT path FROM files WHERE parse_status IN ('failed', 'partial') ORDER BY path"
        )
    ]
    cap = max(limit, 0)
    shown = {r.id for r in possibly[:cap]}
    return DeadCodeReport(
        dead[:cap], possibly[:cap], len(dead), len(possibly), unparsed,
        {k: v for k, v in why.items() if k in shown},
    )  # fmt: skip


def _mention(conn: sqlite3.Connection, ref: SymbolRef) -> str | None:
    """Where the code names ``ref`` outside its own definition (a dispatch table, a
    ``getattr`` string, a callback stored in a list), found through the keyword index;
    ``None`` when nowhere, or when the index has no chunks to tell."""
    try:
        rows = conn.execute(
            "SELECT f.path, c.start_line, c.text FROM chunks_fts JOIN chunks c"
            " ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id"
            " WHERE chunks_fts MATCH ? ORDER BY f.path, c.start_line LIMIT ?",
            (f'body:"{ref.name}"', _MENTION_CHUNKS),
        ).fetchall()
    except sqlite3.OperationalError:  # a name FTS cannot parse, or no chunks table
        return None
    # Definitions of the name (this one, and same-named ones elsewhere) are not mentions;
    # calls made inside them are refs, which the graph already judged.
    spans = conn.execute(
        "SELECT f.path, s.start_line, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE s.name = ?",
        (ref.name,),
    ).fetchall()
    word = re.compile(rf"(?<![\w$]){re.escape(ref.name)}(?![\w$])")
    for path, start, text in rows:
        for match in word.finditer(str(text)):
            line = int(start) + str(text).count("\n", 0, match.start())
            if not any(path == p and first <= line <= last for p, first, last in spans):
                return f"mentioned at {path}:{line}"
    return None


def dead_code(
    conn: sqlite3.Connection,
    *,
    kinds: tuple[str, ...] = ("function", "method", "class"),
    limit: int = 200,
) -> list[SymbolRef]:
    """The certain part of ``dead_code_report``: unused, and the name shows up nowhere
    else. See the report for "possibly unused" symbols, their reasons and truncation."""
    return dead_code_report(conn, kinds=kinds, limit=limit).dead
