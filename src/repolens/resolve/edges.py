"""Every non-``contains`` edge one file writes, and what its refs and imports resolved to.

An edge belongs to the file it is written in (``edges.file_id``), so re-resolving a file
replaces exactly its edges: references (``calls``, ``instantiates``, ``extends``...) from
its code, ``overrides`` from its methods, and ``imports`` from its file symbol to the file
symbols of the project modules it loads.

Direction is always "the symbol whose code says it -> what it means": a caller -> its
callee, a class -> its base (``extends``/``implements``), a method -> the base method it
``overrides``, a decorated definition -> its decorator (``decorates``), a function -> the
types of its parameters (``type_of``) and result (``returns``), a function passing a
callback -> the callback (``references``). Module-level code is the file symbol.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from repolens.resolve import ladder, members, owners
from repolens.resolve.answers import Outcome, unresolved
from repolens.resolve.base import PROVENANCE_RANK
from repolens.resolve.context import Context
from repolens.resolve.project import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    FileRow,
    ImportRow,
    RefRow,
    RefTuple,
    Sym,
    ref_row,
)

log = logging.getLogger(__name__)

# source, target, kind, file, line, col, confidence, provenance, metadata
EdgeRow = tuple[int, int, str, int, int, int, float, str, str]
# a reference whose answer changed: resolved, reason, id, and whether ``resolved`` flipped
Answer = tuple[int, str, int, bool]


@dataclass(slots=True)
class FileResult:
    edges: list[EdgeRow] = field(default_factory=list)
    refs: list[Answer] = field(default_factory=list)
    imports: list[tuple[int | None, int | None, int]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # one per unresolved reference


def resolve_file(ctx: Context, file: FileRow, refs: list[RefTuple]) -> FileResult:
    """Resolve one file's references (rows as read), overrides and imports.

    Most references repeat an answer already found (see ``ladder.resolve_ref``), so a
    row is looked up by its key first and made a ``RefRow`` only when it needs the ladder
    (on sympy, more than half of the rows never do)."""
    ctx.forget_file_memos()
    ctx.trim_memos()
    result = FileResult()
    edges, outcomes = result.edges, ctx.outcomes
    seen: set[tuple[int, int, str, int, int]] = set()
    for row in refs:
        ref_id, file_id, source_id, kind, name, receiver, line, col, resolved, reason = row
        outcome = outcomes.get((file_id, source_id, kind, name, receiver))
        if outcome is None:
            outcome = _outcome(ctx, ref_row(row))
        for hit in (*outcome.hits, *outcome.uses) if outcome.uses else outcome.hits:
            target, edge_kind = hit.target.id, hit.kind
            key = (source_id, target, edge_kind, line, col)
            if key not in seen:
                seen.add(key)
                edges.append(
                    (source_id, target, edge_kind, file_id, line, col, hit.confidence,
                     hit.provenance, hit.metadata)
                )  # fmt: skip
        answer = 1 if outcome.hits else 0
        if not answer:
            result.reasons.append(outcome.reason)
        if answer != resolved or outcome.reason != reason:
            result.refs.append((answer, outcome.reason, ref_id, answer != resolved))
    result.edges.extend(_overrides(ctx, file))
    used = {ctx.sym(e[1]).file_id for e in result.edges}
    result.edges.extend(_imports(ctx, file, used, result))
    return result


def _outcome(ctx: Context, ref: RefRow) -> Outcome:
    """The ladder's answer; a failure on one odd reference costs that reference only."""
    try:
        return ladder.resolve_ref(ctx, ref)
    except RecursionError:  # a pathological chain of definitions
        return unresolved("unknown")
    except Exception:
        path = ctx.file(ref.file_id).path
        log.warning("cannot resolve %s at %s:%d", ref.name, path, ref.line, exc_info=True)
        return unresolved("unknown")


def _overrides(ctx: Context, file: FileRow) -> list[EdgeRow]:
    """A method overrides the first same-named method up its class's ancestry: methods
    of the classes in this file, and methods this file defines away from their class
    (C++ ``int Counter::weight() const {...}``). The ancestry is the whole class's, so a
    C# partial part without a base list of its own overrides through the other parts."""
    found: list[EdgeRow] = []
    for sym in ctx.project.file_syms.get(file.id, ()):
        if sym.kind in CLASS_KINDS:
            for children in ctx.project.members.get(sym.id, {}).values():
                found.extend(_override(ctx, file, sym, children[-1]))
        elif sym.kind in CALLABLE_KINDS and _detached(ctx, sym):
            owner = owners.impl_owner(ctx, sym)
            if owner is not None:
                found.extend(_override(ctx, file, owner, sym))
    return found


def _detached(ctx: Context, method: Sym) -> bool:
    """Defined outside its class's body, which its qualified name still names."""
    parent = ctx.project.syms.get(method.parent_id) if method.parent_id is not None else None
    return "." in method.qname and (parent is None or parent.kind not in CLASS_KINDS)


def _override(ctx: Context, file: FileRow, cls: Sym, method: Sym) -> list[EdgeRow]:
    if method.kind not in CALLABLE_KINDS:
        return []
    base = members.class_member(ctx, cls, method.name, skip_self=True)
    if base is None or base.sym is None or base.sym.kind not in CALLABLE_KINDS:
        return []
    provenance = max(base.provenance, "resolved-type", key=PROVENANCE_RANK.__getitem__)
    return [
        (method.id, base.sym.id, "overrides", file.id, method.start_line, 0,
         round(base.confidence, 3), provenance, "")
    ]  # fmt: skip


def _imports(ctx: Context, file: FileRow, used: set[int], result: FileResult) -> list[EdgeRow]:
    """File-to-file ``imports`` edges (one per target file, at its first import line)."""
    first_line: dict[int, int] = {}
    for imp in ctx.project.imports.get(file.id, ()):
        found = import_targets(ctx, imp)
        targets = found.files(used)
        result.imports.append((targets[0] if targets else None, found.symbol, imp.id))
        for target in targets:
            if target != file.id and target not in first_line:
                first_line[target] = imp.line
    return [
        (file.symbol, ctx.file(target).symbol, "imports", file.id, line, 0, 1.0,
         "resolved-import", "")
        for target, line in sorted(first_line.items(), key=lambda t: (t[1], ctx.file(t[0]).path))
    ]  # fmt: skip


@dataclass(frozen=True, slots=True)
class ImportTargets:
    candidates: tuple[int, ...]  # every file of the module (or the binding's file)
    symbol: int | None  # the symbol the import binds, if one

    def files(self, used: set[int]) -> list[int]:
        """The files the importer depends on: for a multi-file package (Go, Java), those
        defining what it uses (the first one if it uses nothing resolved)."""
        if len(self.candidates) <= 1:
            return list(self.candidates)
        return [f for f in self.candidates if f in used] or list(self.candidates[:1])


def import_targets(ctx: Context, imp: ImportRow) -> ImportTargets:
    """The project files an import loads, and the symbol it binds.

    A name from a one-file module depends on that file (a barrel, not where the name is
    finally defined: that is the barrel's own import).
    """
    resolved = ctx.import_result(imp)
    if resolved is None or resolved.module is None:
        return ImportTargets((), None)
    value = members.import_target(ctx, imp) if imp.is_wildcard else members.import_value(ctx, imp)
    symbol = value.sym.id if value.kind in ("class", "symbol") and value.sym else None
    files = (resolved.loads or resolved.module).files
    if value.kind == "module" and value.module is not None and resolved.loads is None:
        files = value.module.files
    elif symbol is not None and len(files) > 1 and value.sym is not None:
        files = [value.sym.file_id]
    return ImportTargets(tuple(files), symbol)
