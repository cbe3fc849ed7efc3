"""From a diff to what it affects: the symbols whose lines changed, everything that depends
on them (callers, subclasses, overrides, transitively), and the tests among those, ranked
nearest first.

Changed lines are matched against the index, which describes the tree as last indexed; a
changed file the index does not know, or whose content moved on since, is reported rather
than guessed at. A change outside any symbol (module-level code) counts as a change of its
file's module.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from repolens.discover.gitdiff import FileChange
from repolens.query.impact import ImpactHit, impact
from repolens.query.symbols import (
    FILE_KIND,
    SYMBOL_COLUMNS,
    SYMBOL_FROM,
    SymbolRef,
    is_test_code,
    row_to_ref,
)


@dataclass(frozen=True, slots=True)
class ChangedSymbol:
    symbol: SymbolRef
    lines: list[int]  # the changed lines inside it


@dataclass(slots=True)
class Affected:
    """``changed`` in file order; ``dependents`` nearest first (each with the changed
    symbol it depends on through ``via``); ``tests`` the test symbols among both, plus
    test files that changed; ``unindexed`` changed paths the index does not hold."""

    changed: list[ChangedSymbol] = field(default_factory=list)
    dependents: list[ImpactHit] = field(default_factory=list)
    tests: list[SymbolRef] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unindexed: list[str] = field(default_factory=list)
    truncated: bool = False


def affected(
    conn: sqlite3.Connection, changes: list[FileChange], *, depth: int = 3, limit: int = 500
) -> Affected:
    result = Affected()
    for change in changes:
        if change.path is None:
            result.deleted.append(change.old_path or "?")
            continue
        found = _changed_in(conn, change.path, change.lines)
        if found is None:
            result.unindexed.append(change.path)
        result.changed += found or []
    seen = {c.symbol.id for c in result.changed}
    for item in result.changed:
        reach = impact(conn, item.symbol, depth=depth, limit=limit)
        result.truncated |= reach.truncated
        for hit in reach.hits:
            if hit.symbol.id not in seen:
                seen.add(hit.symbol.id)
                result.dependents.append(hit)
    result.dependents.sort(key=lambda h: (h.depth, -h.confidence, h.symbol.file, h.symbol.line))
    symbols = [c.symbol for c in result.changed] + [h.symbol for h in result.dependents]
    result.tests = [s for s in symbols if _is_test(s)]
    return result


def _changed_in(
    conn: sqlite3.Connection, path: str, lines: list[int]
) -> list[ChangedSymbol] | None:
    """The innermost symbols holding ``lines`` of ``path`` (``None``: not indexed)."""
    rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE f.path = ?", (path,)
    ).fetchall()
    if not rows:
        return None
    refs = [row_to_ref(row) for row in rows]
    module = next((r for r in refs if r.kind == FILE_KIND), None)
    inner: dict[int, ChangedSymbol] = {}
    for line in lines:
        holding = [
            r for r in refs if r.kind != FILE_KIND and r.line <= line <= max(r.end_line, r.line)
        ]
        best = min(holding, key=lambda r: (r.end_line - r.line, -r.line), default=module)
        if best is not None:
            inner.setdefault(best.id, ChangedSymbol(best, [])).lines.append(line)
    return sorted(inner.values(), key=lambda c: c.symbol.line)


def _is_test(sym: SymbolRef) -> bool:
    return sym.kind != FILE_KIND and is_test_code(sym)
