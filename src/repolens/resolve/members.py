"""What a module, an import or a class makes visible.

Imports are followed to their definition through re-exports and barrels (``__init__.py``,
``index.ts``, ``pub use``, ``export * from``); classes are searched along their bases. Both
walks are memoised per run and cut cycles (see ``Context``).
"""

from __future__ import annotations

from repolens.resolve import owners, receivers, scope
from repolens.resolve.base import (
    NONE_EXTERNAL,
    NONE_UNKNOWN,
    LanguageSpec,
    Module,
    Value,
)
from repolens.resolve.context import Context
from repolens.resolve.project import CALLABLE_KINDS, CLASS_KINDS, FUNCTION_KINDS, ImportRow, Sym

IMPORT_CONFIDENCE = 0.95
INHERITED_CONFIDENCE = 0.9
MEMBER_KINDS = frozenset({"method", "constructor", "property"})


def symbol_value(sym: Sym, confidence: float = 1.0, provenance: str = "parsed") -> Value:
    kind = "class" if sym.kind in CLASS_KINDS else "symbol"
    return Value(kind, sym=sym, confidence=confidence, provenance=provenance)


def owned(ctx: Context, sym: Sym) -> bool:
    """A callable at the top of its file whose qualified name starts with the type it
    belongs to: a member defined away from its type (C++ ``Store::put``, a Go method), a
    Kotlin extension function (``Order.total``). Inside it, that type's members are in
    scope where members are visible unqualified."""
    return (
        sym.kind in CALLABLE_KINDS
        and sym.qname != sym.name
        and sym.parent_id == ctx.file(sym.file_id).symbol
    )


def detached(ctx: Context, sym: Sym) -> bool:
    """An owned method (not a function) whose qualified name starts with a class's name:
    reached through that class, never as a bare name of its file. Functions with a
    qualified name (Elixir's ``Order.new``, Kotlin extensions, imported by name) and
    methods of a table (Lua's ``M.place``) are names of their module."""
    if sym.kind not in MEMBER_KINDS or not owned(ctx, sym):
        return False
    owner = sym.qname.rsplit(".", 2)[-2]
    return any(s.kind in CLASS_KINDS for s in ctx.project.by_name.get(owner, ()))


def top_level(ctx: Context, file_id: int, name: str) -> list[Sym]:
    """The file's top-level definitions of ``name``, detached members left out."""
    return [s for s in ctx.project.top_level(file_id, name) if not detached(ctx, s)]


def without_companions(syms: list[Sym]) -> list[Sym]:
    """Same-named definitions less the companion objects of a class among them (Scala's
    ``object Order`` beside ``class Order``): the name denotes the class, and the
    companion's members are found through it (they share its qualified name)."""
    if len(syms) < 2:  # most names: one definition
        return syms
    classes = {s.qname for s in syms if s.kind in CLASS_KINDS and not s.is_static}
    if not classes:
        return syms
    return [s for s in syms if not (s.kind in CLASS_KINDS and s.is_static and s.qname in classes)]


def pick(syms: list[Sym], line: int | None = None) -> Sym:
    """Of several same-named definitions, the one in force at ``line`` (the last one
    before it), or the last one when the use runs later (inside a function)."""
    syms = without_companions(syms)
    if line is not None:
        before = [s for s in syms if s.start_line <= line]
        if before:
            return before[-1]
        return syms[0]
    return syms[-1]


def import_value(ctx: Context, imp: ImportRow) -> Value:
    """What an import binds: a module, a symbol, or why it is not in the project."""
    return ctx.imports.get(imp.id, _import_value, ctx, imp)


def import_target(ctx: Context, imp: ImportRow) -> Value:
    """The module (or class) an import reads from, before taking its member."""
    return _target(ctx, imp)[0]


def _target(ctx: Context, imp: ImportRow) -> tuple[Value, str | None]:
    return ctx.targets.get(imp.id, _compute_target, ctx, imp)


def _compute_target(ctx: Context, imp: ImportRow) -> tuple[Value, str | None]:
    result = ctx.import_result(imp)
    if result is None:
        return NONE_UNKNOWN, None
    if result.external:
        return NONE_EXTERNAL, None
    if result.module is None:
        return NONE_UNKNOWN, None
    path, last = result.path, None
    if path and not imp.is_wildcard:
        path, last = path[:-1], path[-1]
    value = Value(
        "module", module=result.module, confidence=IMPORT_CONFIDENCE, provenance="resolved-import"
    )
    for name in path:
        value = receivers.attribute(ctx, value, name)
    return value, last


def _import_value(ctx: Context, imp: ImportRow) -> Value:
    target, name = _target(ctx, imp)
    if name is None or target.kind == "none":
        return target
    if target.module is not None and target.module is ctx.module_of(imp.file_id):
        # a file importing from itself: its own names (`export default foo`) whether
        # exported or not, else a submodule (`from . import sub` in a package)
        own = top_level(ctx, imp.file_id, name)
        if own:
            return symbol_value(pick(own)).via(target)
        child = target.module.children.get(name)
        return Value("module", module=child).via(target) if child else NONE_UNKNOWN
    return receivers.attribute(ctx, target, name)


def module_spec(ctx: Context, module: Module) -> LanguageSpec | None:
    return ctx.spec_of.get(module.files[0]) if module.files else None


def module_member(ctx: Context, module: Module, name: str) -> Value | None:
    """A module's member ``name``: its own definition, a name it imports (when its
    language re-exports imports), a wildcard re-export, or a submodule."""
    return ctx.members.get((id(module), name), _module_member, ctx, module, name)


def _module_member(ctx: Context, module: Module, name: str) -> Value | None:
    spec = module_spec(ctx, module)
    if spec is not None:
        for fid in module.files:
            syms = top_level(ctx, fid, name)
            if spec.exported_only:
                syms = [s for s in syms if s.is_exported]
            if syms:
                child = module.children.get(name)
                if child is not None and syms[-1].kind == "module":
                    return Value("module", module=child)  # Rust `mod x;`: the file x.rs
                return symbol_value(pick(syms))
        found = _reexported(ctx, module, name, spec)
        if found is not None:
            return found
    child = module.children.get(name)
    return Value("module", module=child) if child is not None else None


def namesake(ctx: Context, module: Module) -> Value | None:
    """The non-module item its parent module holds under ``module``'s name, defined there
    or re-exported (``pub use dijkstra::dijkstra;`` beside ``mod dijkstra;``): what a call
    of the name means where modules and values are apart (``namespaces_apart``)."""
    parent = module.parent
    if parent is None:
        return None
    name = next((n for n, child in parent.children.items() if child is module), None)
    spec = module_spec(ctx, parent)
    if name is None or spec is None:
        return None
    for fid in parent.files:
        syms = [s for s in top_level(ctx, fid, name) if s.kind != "module"]
        if syms:
            return symbol_value(pick(syms))
    return _reexported(ctx, parent, name, spec, values_only=True)


def _reexported(
    ctx: Context, module: Module, name: str, spec: LanguageSpec, values_only: bool = False
) -> Value | None:
    """What ``module`` re-exports as ``name``; with ``values_only``, never a module."""
    for fid in module.files:
        for _, _, binder in scope.module_table(ctx, ctx.file(fid)).get(name, ()):
            if isinstance(binder, ImportRow) and (spec.imports_are_members or binder.is_reexport):
                value = import_value(ctx, binder)
                if values_only and value.kind == "module":
                    continue
                if value.kind != "none" or value.reason == "external":
                    return value
    for fid in module.files:
        for imp in ctx.project.imports.get(fid, ()):
            if imp.is_wildcard and (spec.imports_are_members or imp.is_reexport):
                starred = wildcard_member(ctx, imp, name)
                if starred is not None and not (values_only and starred.kind == "module"):
                    return starred
    return None


def wildcard_member(ctx: Context, imp: ImportRow, name: str) -> Value | None:
    """``name`` as brought in by a wildcard import (``from m import *``, ``export * from``,
    ``use m::*``, ``import a.b.*``), honouring ``__all__`` and private names."""
    spec = ctx.spec_of.get(imp.file_id)
    target = import_target(ctx, imp)
    if target.kind == "none" or spec is None:
        return None
    if spec.wildcard_needs_public and target.module is not None:
        exported = [n for fid in target.module.files for n in ctx.file(fid).exports]
        if (exported and name not in exported) or (not exported and name.startswith("_")):
            return None
    if target.kind == "module" and target.module is not None:
        found = module_member(ctx, target.module, name)
    else:
        found = receivers.attribute(ctx, target, name)
        found = None if found.kind == "none" else found
    return found.via(target) if found is not None else None


def bases(ctx: Context, cls: Sym) -> list[Value]:
    """A class's direct bases in declaration order (``none`` values for bases outside the
    project or unknown), resolved where the class is defined."""
    return ctx.bases.get(cls.id, _bases, ctx, cls)


def _bases(ctx: Context, cls: Sym) -> list[Value]:
    return [
        ctx.base_value(ctx, ref)
        for part in parts(ctx, cls)
        for ref in ctx.project.bases.get(part.id, ())
    ]


def parts(ctx: Context, cls: Sym) -> list[Sym]:
    """The class and its other parts: a C# ``partial`` class is one symbol per file, each
    with its own base list, all of them the one class of their namespace."""
    found = [cls]
    for fid in _module_files(ctx, cls):
        if fid != cls.file_id:
            found.extend(
                s for s in ctx.project.by_qname.get((fid, cls.qname), ()) if s.kind == cls.kind
            )
    return found


def mro(ctx: Context, cls: Sym) -> tuple[list[Value], bool]:
    """The class and its ancestors, depth first, left to right, each once, each as sure as
    the chain that reached it; and whether some ancestor lies outside the project."""
    return ctx.mros.get(cls.id, _mro, ctx, cls)


def _mro(ctx: Context, cls: Sym) -> tuple[list[Value], bool]:
    order: list[Value] = []
    seen: set[int] = set()
    incomplete = False
    stack = [Value("class", sym=cls)]
    while stack:
        value = stack.pop()
        assert value.sym is not None
        if value.sym.id in seen:
            continue
        seen.add(value.sym.id)
        order.append(value)
        parents = bases(ctx, value.sym)
        for parent in reversed(parents):
            if parent.kind == "class" and parent.sym is not None:
                stack.append(parent.via(value).weaker(INHERITED_CONFIDENCE))
            else:
                incomplete = True
    return order, incomplete


def own_member(ctx: Context, cls: Sym, name: str) -> Sym | None:
    """A member defined in the class body, or beside it (Go methods, Rust ``impl``, C++
    ``Type::m``). Where members may be defined away from the body, the body may only
    declare one (a C++ ``virtual``): its definition in the class's module is the code."""
    found = ctx.project.members.get(cls.id, {}).get(name)
    spec = ctx.spec_of.get(cls.file_id)
    if not found:
        found = _beside(ctx, cls, name)
    elif spec is not None and spec.impls_anywhere:
        found = _defined_beside(ctx, cls, name) or found
    if found and name == cls.name:  # Java-style constructors are not members by name
        found = [s for s in found if s.kind != "constructor"]
    if len(found) > 1:  # a property's getter, not its setter defined after it
        found = [s for s in found if not _writes_only(s)] or found
    return found[-1] if found else None


def _writes_only(sym: Sym) -> bool:
    """A property's setter or deleter (``@x.setter``, ``set x(v)``): reading the
    property gives neither its value nor runs its code."""
    if sym.signature.startswith("set "):
        return True
    return any(d.endswith((".setter", ".deleter")) for d in sym.decorators.split("\n"))


def _beside(ctx: Context, cls: Sym, name: str) -> list[Sym]:
    """Definitions of ``cls.name`` outside the class body: in its file, or anywhere in its
    module where top-level names are shared (a Go package, a C++ header and its sources);
    else, where methods may be defined in any file (Rust ``impl``, C++ ``Type::m``), those
    whose qualified name denotes this class from where they stand."""
    qname = f"{cls.qname}.{name}"
    for fid in _module_files(ctx, cls):
        found = ctx.project.by_qname.get((fid, qname))
        if found:
            return found
    spec = ctx.spec_of.get(cls.file_id)
    if spec is None or not spec.impls_anywhere:
        return []
    tail = f"{cls.name}.{name}"
    return [
        s
        for s in ctx.project.by_name.get(name, ())
        if s.qname.endswith(tail) and owners.impl_owner(ctx, s) is cls
    ]


def _defined_beside(ctx: Context, cls: Sym, name: str) -> list[Sym]:
    """Definitions of ``cls.name`` outside the body, in the class's module only."""
    qname = f"{cls.qname}.{name}"
    for fid in _module_files(ctx, cls):
        found = [s for s in ctx.project.by_qname.get((fid, qname), ()) if s.parent_id != cls.id]
        if found:
            return found
    return []


def _module_files(ctx: Context, cls: Sym) -> list[int]:
    """Files whose top-level names the class's file shares (its package), or just it."""
    spec = ctx.spec_of.get(cls.file_id)
    module = ctx.module_of(cls.file_id)
    if module is None or spec is None or not spec.package_scope:
        return [cls.file_id]
    return module.files


def class_member(ctx: Context, cls: Sym, name: str, *, skip_self: bool = False) -> Value | None:
    """``name`` looked up on a class and its ancestors (the first class that has it)."""
    order, _ = mro(ctx, cls)
    for owner in order[1:] if skip_self else order:
        assert owner.sym is not None
        found = own_member(ctx, owner.sym, name)
        if found is not None:
            return symbol_value(found).via(owner)
    return None


def field_binding(ctx: Context, cls: Sym, name: str) -> Value | None:
    """An attribute whose type the class states (``self.repo = Repo()``, ``repo: Repo``)."""
    spec = ctx.spec_of.get(cls.file_id)
    keys = [f"{me}.{name}" for me in sorted(spec.self_names)] if spec else []
    keys.append(name)
    order, _ = mro(ctx, cls)
    for owner in order:
        assert owner.sym is not None
        scope = ctx.project.bindings.get(owner.sym.id, {})
        for key in keys:
            found = scope.get(key)
            if found:
                return Value("local", binding=found[0]).via(owner)
    return None


def constructor(ctx: Context, cls: Sym, *, skip_self: bool = False) -> Value | None:
    """The constructor that instantiating ``cls`` runs (or, with ``skip_self``, that its
    ``super(...)`` runs), if the project defines one. What instantiating runs is kept per
    class (every call of a class asks), unless its ancestry was cut short on the way."""
    if skip_self:
        return _constructor(ctx, cls, skip_self=True)
    if cls.id in ctx.inits:
        return ctx.inits[cls.id]
    cuts = ctx.cycles.cuts
    found = _constructor(ctx, cls, skip_self=False)
    if ctx.cycles.cuts == cuts:
        ctx.inits[cls.id] = found
    return found


def _constructor(ctx: Context, cls: Sym, *, skip_self: bool) -> Value | None:
    order, _ = mro(ctx, cls)
    for owner in order[1:] if skip_self else order:
        assert owner.sym is not None
        own = _own_constructor(ctx, owner.sym)
        if own is not None:
            return symbol_value(own).via(owner)
    return None


def sibling_constructor(ctx: Context, cls: Sym, caller: Sym) -> Value | None:
    """The constructor a ``this(...)`` in constructor ``caller`` delegates to: another
    one of its class (overloads are not told apart by their parameters)."""
    other = next((s for s in _own_constructors(ctx, cls) if s.id != caller.id), None)
    return symbol_value(other) if other is not None else None


def _own_constructor(ctx: Context, cls: Sym) -> Sym | None:
    if cls.id not in ctx.constructors:
        found = _own_constructors(ctx, cls)
        ctx.constructors[cls.id] = found[0] if found else None
    return ctx.constructors[cls.id]


def _own_constructors(ctx: Context, cls: Sym) -> list[Sym]:
    spec = ctx.spec_of.get(cls.file_id)
    if spec is None:
        return []
    found = [
        sym
        for children in ctx.project.members.get(cls.id, {}).values()
        for sym in children
        if sym.kind == "constructor"
        or (sym.kind in FUNCTION_KINDS and sym.name in spec.constructor_names)
    ]
    if not found:  # C++ `Store::Store() {...}` in a source file
        found = [s for s in _beside(ctx, cls, cls.name) if s.kind == "constructor"]
    return found
