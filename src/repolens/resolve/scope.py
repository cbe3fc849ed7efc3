"""Ladder steps 1 and 2: a bare name in scope, then through the file's imports.

Lookup walks from the innermost enclosing symbol outwards. A local definition or typed
local (a ``Binding``) shadows everything further out, imports included. Class bodies are
skipped on the way out (Python, TS, Go, Rust), unless the language makes class members
visible unqualified (Java). At module level, of several bindings of the name the one in
force wins: the last before the use when the use runs at import time, else the last.
"""

from __future__ import annotations

from operator import itemgetter

from repolens.resolve import members, owners
from repolens.resolve.base import NONE_BUILTIN, NONE_UNKNOWN, LanguageSpec, Value
from repolens.resolve.context import Context
from repolens.resolve.params import parameter_names
from repolens.resolve.project import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    TYPE_KINDS,
    BindingRow,
    FileRow,
    ImportRow,
    Sym,
)

PACKAGE_CONFIDENCE = 0.95
TYPE_NAMES = TYPE_KINDS | {"namespace", "module"}  # what a name in a type position can be


def lookup_name(
    ctx: Context,
    file: FileRow,
    scope_id: int,
    name: str,
    line: int,
    exclude: int | None = None,
    *,
    types_only: bool = False,
    callee: bool = False,
) -> Value:
    """What ``name`` denotes at ``line`` inside ``scope_id`` (ladder steps 1 and 2).
    In a type position (``types_only``) locals, parameters and fields are not candidates:
    ``store store.Store`` names the package ``store``, not the field being declared. Nor
    are they for the ``callee`` of a bare call where a call names a method, never a
    variable (``methods_apart``: Java's ``append(append)`` calls the method)."""
    spec = ctx.spec_of.get(file.id)
    if spec is None:
        return NONE_UNKNOWN
    syms = ctx.project.syms
    sid: int | None = scope_id
    innermost, at_load_time = True, True
    skip_locals = callee and spec.methods_apart
    while sid is not None and sid in syms:
        sym = syms[sid]
        if sym.kind == "file":
            break
        if sym.kind not in CLASS_KINDS:
            found = None if skip_locals else _local(ctx, sym, name, line, exclude, types_only)
            if found is None and sym.kind in CALLABLE_KINDS:
                found = _function_import(ctx, sym, name)
            at_load_time = at_load_time and sym.kind not in CALLABLE_KINDS
            if found is None and spec.implicit_members and members.owned(ctx, sym):
                found = _owner_scope(ctx, spec, sym, name, line, types_only)
        elif types_only:
            found = _local(ctx, sym, name, line, exclude, types_only)
        elif innermost or spec.class_scope_visible:
            found = _class_scope(ctx, spec, sym, name, line, exclude)
        else:
            found = None
        if found is not None:
            return found
        innermost = False
        sid = sym.parent_id
    if types_only:  # `impl<Ix> Graph<Ix> where Ix: IndexType`: bound outside any symbol
        found = _type_variable(ctx, file.symbol, name)
        if found is not None:
            return found
    value = module_scope(ctx, file, name, line if at_load_time else None, exclude, types_only)
    if at_load_time and value.kind == "none" and value.reason == "unknown":
        return _imported_in_a_function(ctx, file.id, name) or value
    return value


def _owner_scope(
    ctx: Context, spec: LanguageSpec, method: Sym, name: str, line: int, types_only: bool
) -> Value | None:
    """Inside a member defined away from its type (``void Store::put() {...}``, Kotlin's
    ``fun Order.total()``) the type's members come before the file's names, as they do in
    the class body."""
    owner = owners.impl_owner(ctx, method)
    if owner is None:
        return None
    if types_only:
        return _local(ctx, owner, name, line, None, types_only)
    return _class_scope(ctx, spec, owner, name, line, None)


def _pick_binding(ctx: Context, bindings: list[BindingRow], line: int | None) -> BindingRow:
    """The binding in force at ``line``: the last one above it. One on the line itself
    only if there is none above, as a use there is nearly always in the right-hand side
    (``url = url.copy_with()`` reads the previous ``url``)."""
    if line is not None and len(bindings) > 1:
        ctx.line_choices += 1
        before = [b for b in bindings if b.line < line] or [b for b in bindings if b.line == line]
        if before:
            return before[-1]
    return bindings[0]


def _local(
    ctx: Context, sym: Sym, name: str, line: int, exclude: int | None, types_only: bool = False
) -> Value | None:
    children = ctx.project.members.get(sym.id, {}).get(name)
    if children and (exclude is not None or types_only):
        children = [
            s for s in children if s.id != exclude and (not types_only or s.kind in TYPE_NAMES)
        ]
    if children:
        if len(children) > 1:
            ctx.line_choices += 1
        return members.symbol_value(members.pick(children, line))
    if types_only:
        return _type_variable(ctx, sym.id, name)
    bindings = ctx.project.bindings.get(sym.id, {}).get(name)
    if bindings and any(b.end_line is not None for b in bindings):
        ctx.line_choices += 1  # a narrowing holds on its lines only
        bindings = [b for b in bindings if b.end_line is None or b.line <= line <= b.end_line]
        # and there it hides what was bound before it, even on its first line (a
        # comprehension's `for`), but not what is bound again inside it
        inner = max((b.line for b in bindings if b.end_line is not None), default=None)
        if inner is not None:
            bindings = [b for b in bindings if b.end_line is not None or b.line > inner]
    if bindings and bindings[-1].line >= line and any(_reads(b, name) for b in bindings):
        ctx.line_choices += 1  # the answer on its line is not the answer on the next
        bindings = [b for b in bindings if not _reads_itself(b, name, line)]
    spec = ctx.spec_of.get(sym.file_id)
    if bindings and bindings[-1].line >= line and spec is not None and spec.declare_before_use:
        ctx.line_choices += 1
        bindings = [b for b in bindings if b.line <= line]
        stated = [b for b in bindings if b.line == line and not b.from_call]
        if stated and spec.line_patterns:  # `Item::Table(t) => t.len()`: in force at once
            return Value("local", binding=stated[-1])
    if bindings:
        return Value("local", binding=_pick_binding(ctx, bindings, line))
    # an untyped parameter shadows globals, its type unknown; only a name its signature
    # spells can be one, so most lookups never read the signature
    if sym.kind in CALLABLE_KINDS and name in sym.signature and name in _parameters(ctx, sym):
        held = spec.parameter_value(ctx, sym, name) if spec and spec.parameter_value else None
        return held or Value("local")
    return None


def _function_import(ctx: Context, fn: Sym, name: str) -> Value | None:
    """What an import inside ``fn`` binds ``name`` to (``from ._impl import raw_terminal
    as f``): in force in that function and the closures in it."""
    found = _function_imports(ctx, fn.file_id).get(name, {}).get(fn.id)
    return members.import_value(ctx, found) if found is not None else None


def _imported_in_a_function(ctx: Context, file_id: int, name: str) -> Value | None:
    """A name only imported inside some function of the file, as a class body or a
    field's type names it: ``from .prepare import RequirementPreparer`` in ``__init__``
    (a lazy import, against an import cycle) types ``self._preparer`` for every method."""
    found = _function_imports(ctx, file_id).get(name)
    return members.import_value(ctx, next(reversed(found.values()))) if found else None


def _function_imports(ctx: Context, file_id: int) -> dict[str, dict[int, ImportRow]]:
    """Local name -> function -> the import inside that function binding it."""
    table = ctx.function_imports.get(file_id)
    if table is None:
        table = ctx.function_imports[file_id] = {}
        for imp in ctx.project.imports.get(file_id, ()):
            if imp.scope_id is not None and (local := ctx.local_name(imp)):
                table.setdefault(local, {})[imp.scope_id] = imp  # the last one of each
    return table


def _type_variable(ctx: Context, scope_id: int, name: str) -> Value | None:
    """A type variable of ``scope_id`` (``<Ix: IndexType>``): the bound it was given."""
    bound = ctx.project.type_bounds.get(scope_id, {}).get(name)
    return Value("local", binding=bound) if bound is not None else None


def _reads_itself(binding: BindingRow, name: str, line: int) -> bool:
    """Whether a use of ``name`` on ``binding``'s line is in its value and reads ``name``
    from further out: ``assert := assert.New(t)``, ``let s = s.trim()``, a module's
    ``client = client.Client()``. Only the lines after it see the new binding."""
    return binding.line == line and _reads(binding, name)


def _reads(binding: BindingRow, name: str) -> bool:
    """Whether ``binding``'s value is computed from ``name`` itself."""
    value = binding.type_name
    return value == name or value.startswith((name + ".", name + "::", name + "->"))


def _parameters(ctx: Context, fn: Sym) -> frozenset[str]:
    found = ctx.parameters.get(fn.id)
    if found is None:
        spec = ctx.spec_of.get(fn.file_id)
        name_last = spec is not None and spec.param_name_last
        found = ctx.parameters[fn.id] = parameter_names(fn.signature, name_last=name_last)
    return found


def _class_scope(
    ctx: Context, spec: LanguageSpec, cls: Sym, name: str, line: int, exclude: int | None
) -> Value | None:
    if not spec.implicit_members:
        return _local(ctx, cls, name, line, exclude)
    found = members.class_member(ctx, cls, name)
    if found is None:
        found = members.field_binding(ctx, cls, name)
    return found


Binder = Value | ImportRow  # what binds a name at module level
_NO_EXCLUDE = -1


def module_table(ctx: Context, file: FileRow) -> dict[str, list[tuple[int, int, Binder]]]:
    """Name -> (line, symbol id or -1, binder) for every module-level binding of the file,
    by line: definitions, typed globals without a definition, and imports (those made
    inside a function bind only there)."""
    table = ctx.module_tables.get(file.id)
    if table is not None:
        return table
    table = {}
    for name, syms in ctx.project.members.get(file.symbol, {}).items():
        kept = [s for s in members.without_companions(syms) if not members.detached(ctx, s)]
        if kept:
            table[name] = [(s.start_line, s.id, members.symbol_value(s)) for s in kept]
    for name, bindings in ctx.project.bindings.get(file.symbol, {}).items():
        if name not in table:
            table[name] = [(b.line, _NO_EXCLUDE, Value("local", binding=b)) for b in bindings]
    for imp in ctx.project.imports.get(file.id, ()):
        local = ctx.local_name(imp) if imp.scope_id is None else None  # see _function_import
        if local:
            table.setdefault(local, []).append((imp.line, _NO_EXCLUDE, imp))
    for entries in table.values():
        entries.sort(key=itemgetter(0))  # by line
    ctx.module_tables[file.id] = table
    return table


def module_scope(
    ctx: Context,
    file: FileRow,
    name: str,
    line: int | None,
    exclude: int | None = None,
    types_only: bool = False,
) -> Value:
    """``name`` at module level: definitions, typed globals and imports of the file, then
    the rest of its package, wildcard imports and the language's builtins. In a type
    position (``types_only``) a typed global is no candidate: ``checks: checks.Check[]``
    names the imported module, not a variable of that name."""
    spec = ctx.spec_of.get(file.id)
    if spec is None:
        return NONE_UNKNOWN
    if line is None and exclude is None:  # the common case: a use inside a function
        key = (file.id, name, types_only)
        return ctx.globals.get(key, _module_scope, ctx, file, spec, name, None, None, types_only)
    return _module_scope(ctx, file, spec, name, line, exclude, types_only)


def _module_scope(
    ctx: Context,
    file: FileRow,
    spec: LanguageSpec,
    name: str,
    line: int | None,
    exclude: int | None,
    types_only: bool = False,
) -> Value:
    entries = module_table(ctx, file).get(name)
    if entries and (exclude is not None or types_only):
        entries = [
            entry
            for entry in entries
            if entry[1] != exclude and not (types_only and _is_variable(entry[2]))
        ]
    if not entries:
        return _beyond_file(ctx, file, spec, name)
    chosen = entries[-1][2]
    if line is not None and len(entries) > 1:
        ctx.line_choices += 1
        own = any(_reads_itself(b, name, line) for b in _module_bindings(ctx, file, name))
        before = [binder for at, _, binder in entries if at < line or (at == line and not own)]
        chosen = before[-1] if before else entries[0][2]
    return members.import_value(ctx, chosen) if isinstance(chosen, ImportRow) else chosen


def _is_variable(binder: Binder) -> bool:
    """Whether a module-level binder is a typed global, a value without a definition."""
    return isinstance(binder, Value) and binder.kind == "local"


def _module_bindings(ctx: Context, file: FileRow, name: str) -> list[BindingRow]:
    return ctx.project.bindings.get(file.symbol, {}).get(name, [])


def _beyond_file(ctx: Context, file: FileRow, spec: LanguageSpec, name: str) -> Value:
    if spec.package_scope:
        module = ctx.module_of(file.id)
        for fid in module.files if module is not None else ():
            if fid != file.id:
                found = members.top_level(ctx, fid, name)
                if found:
                    value = members.symbol_value(members.pick(found))
                    return value.weaker(PACKAGE_CONFIDENCE, "resolved-import")
    for imp in ctx.project.imports.get(file.id, ()):
        starred = members.wildcard_member(ctx, imp, name) if imp.is_wildcard else None
        if starred is not None:
            return starred
    macro = _crate_macro(ctx, file, name) if spec.crate_macros else None
    if macro is not None:
        return macro
    return NONE_BUILTIN if name in spec.builtins else NONE_UNKNOWN


def _crate_macro(ctx: Context, file: FileRow, name: str) -> Value | None:
    """The one top-level ``macro_rules! name`` of the file's crate: ``#[macro_use] mod
    macros;`` makes a module's macros visible in the modules after it, ``#[macro_export]``
    everywhere. Macros inside a function or an inline module stay there."""
    crate = _crate_of(ctx, file.id)
    found = [
        sym
        for sym in ctx.project.by_name.get(name, ())
        if sym.kind == "macro"
        and sym.parent_id == ctx.file(sym.file_id).symbol
        and crate is not None
        and _crate_of(ctx, sym.file_id) == crate
    ]
    if len(found) != 1:
        return None
    return members.symbol_value(found[0]).weaker(PACKAGE_CONFIDENCE, "resolved-import")


def _crate_of(ctx: Context, file_id: int) -> str | None:
    module = ctx.module_of(file_id)
    return module.key.split("::", 1)[0] if module is not None else None
