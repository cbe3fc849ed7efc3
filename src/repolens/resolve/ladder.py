"""The resolution ladder for one reference: scope, imports, receiver types, name match.

The first three steps are exact (``receivers``, ``scope``, ``members``); the last
(``namematch``) is a scored guess taken only when nothing exact applies and the name is
not a builtin. A call that lands on a class is an instantiation: it gets an
``instantiates`` edge to the class *and* a ``calls`` edge to the constructor the project
defines for it (``__init__``, ``constructor``, possibly inherited), so that "who calls
``__init__``" and "who creates ``Repo``" both have answers.
"""

from __future__ import annotations

from repolens.resolve import members, namematch, owners, receivers, scope
from repolens.resolve.answers import Hit, Outcome, unresolved
from repolens.resolve.base import NONE_BUILTIN, NONE_DYNAMIC, NONE_EXTERNAL, NONE_UNKNOWN, Value
from repolens.resolve.context import Context
from repolens.resolve.project import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    FUNCTION_KINDS,
    INTERFACE_KINDS,
    OBJECT_KIND,
    TYPE_KINDS,
    FileRow,
    RefRow,
    Sym,
)
from repolens.resolve.syntax import parse_receiver

ALIAS_KINDS = frozenset({"variable", "constant"})  # `StyleType = Union[str, Style]`
VARIABLE_KINDS = ALIAS_KINDS  # module-level names whose uses as a receiver are references
GUESSABLE = frozenset({"unknown", "dynamic"})  # receivers whose type nothing states
TYPE_REFS = frozenset({"type_of", "returns", "extends", "implements"})
NAMED_TYPES = TYPE_REFS | {"instantiates"}  # references that name a type
VALUE_USES = frozenset({"calls", "references"})  # a name used as a value, not a type or path
CALL_KINDS = frozenset({"calls", "instantiates"})  # what a variable standing for another runs
DEFINITION_KINDS = frozenset({"extends", "implements", "decorates"})
FITS = {
    # a module-level name bound to a made function (`parseAsync = _parseAsync(err)`,
    # `dataclass = partial(attrs, ...)`, `ib = attrib`) is what such a call runs, and so
    # is a function-valued field (`config.onPause()` with `onPause: () => void`); a macro
    # invocation (Rust `parse!(...)`, C `MAX(a, b)`) calls the macro it names
    "calls": FUNCTION_KINDS | CLASS_KINDS | ALIAS_KINDS | {"field", "macro"},
    "instantiates": CLASS_KINDS | ALIAS_KINDS | {"component"},  # Vue/Svelte `<OrderRow/>`
    "extends": CLASS_KINDS,
    "implements": CLASS_KINDS,
    "type_of": TYPE_KINDS | ALIAS_KINDS,
    "returns": TYPE_KINDS | ALIAS_KINDS,
    "decorates": FUNCTION_KINDS | CLASS_KINDS,
}


def definition_scope(ctx: Context, ref: RefRow) -> tuple[int, int | None]:
    """Where a reference is evaluated, and a symbol it cannot mean. Bases and decorators
    are evaluated before the definition they belong to binds its name (``class Foo(Foo)``
    extends an imported ``Foo``), so they are looked up from the definition's parent."""
    if ref.kind in DEFINITION_KINDS:
        source = ctx.project.syms.get(ref.source_id)
        if source is not None and source.parent_id is not None:
            return source.parent_id, source.id
    return ref.source_id, None


def evaluate(ctx: Context, ref: RefRow) -> tuple[Value, Value | None]:
    """Steps 1-3: what the reference denotes, and its receiver's value (None if bare)."""
    file = ctx.file(ref.file_id)
    scope_id, exclude = definition_scope(ctx, ref)
    spec = ctx.spec_of.get(ref.file_id)
    if ref.receiver is None and spec is not None:
        if ref.name in spec.class_self_names:
            return receivers.eval_receiver(ctx, file, scope_id, ref.name, ref.line), None
        if ref.kind == "calls" and spec.super_calls_constructor:
            # `super(...)`, `this(...)`, C#'s `: base(...)`
            to_base = ref.name == "super" or _names_base(ctx, file, ref.name)
            if to_base or ref.name in spec.self_names:
                return _delegated(ctx, scope_id, to_base), None
    types_only = ref.kind in TYPE_REFS
    if ref.receiver is None:
        value = scope.lookup_name(
            ctx, file, scope_id, ref.name, ref.line, exclude,
            types_only=types_only, callee=ref.kind == "calls",
        )  # fmt: skip
        return value, None
    receiver = _receiver(ctx, file, scope_id, ref.receiver, ref.line, types_only)
    if receiver.kind == "none":
        return receiver, receiver
    value = receivers.attribute(ctx, receiver, ref.name)
    if value.kind == "none" and receiver.kind == "instance":
        value = _extension(ctx, file, scope_id, ref, receiver) or value
    if value.kind == "none" and _invoked(ctx, ref, receiver):
        value = receiver  # `Base.prototype.save.call(this)` calls `Base.save`
    return value, receiver


def _receiver(
    ctx: Context, file: FileRow, scope_id: int, text: str, line: int, types_only: bool
) -> Value:
    """What a receiver holds. References in one scope share receivers (``self.repo.get``,
    ``self.repo.put``), so the value is remembered like an answer (see ``resolve_ref``)."""
    key = (file.id, scope_id, text, types_only)
    known = ctx.receivers.get(key)
    if known is not None:
        return known
    choices, cuts = ctx.line_choices, ctx.cycles.cuts
    value = receivers.eval_receiver(ctx, file, scope_id, text, line, types_only=types_only)
    value = receivers.value_type(ctx, value)
    if ctx.line_choices == choices and ctx.cycles.cuts == cuts:
        ctx.receivers[key] = value
    return value


def _invoked(ctx: Context, ref: RefRow, receiver: Value) -> bool:
    """Whether ``ref`` calls the function its receiver names through a method every
    function has (``LanguageSpec.invokers``)."""
    spec = ctx.spec_of.get(ref.file_id)
    return (
        spec is not None
        and ref.name in spec.invokers
        and ref.kind == "calls"
        and receiver.kind == "symbol"
        and receiver.sym is not None
        and receiver.sym.kind in CALLABLE_KINDS
    )


def _extension(
    ctx: Context, file: FileRow, scope_id: int, ref: RefRow, receiver: Value
) -> Value | None:
    """``order.total()`` where the receiver's class lacks ``total`` but the name in scope is
    a function declared on that class (or a base) from outside it: a Kotlin extension
    function imported by name."""
    found = scope.lookup_name(ctx, file, scope_id, ref.name, ref.line)
    sym = found.sym
    if found.kind != "symbol" or sym is None or receiver.sym is None:
        return None
    if not members.owned(ctx, sym):
        return None
    owner = owners.impl_owner(ctx, sym)
    ancestry, _ = members.mro(ctx, receiver.sym)
    if owner is None or all(v.sym is not owner for v in ancestry):
        return None
    return found.via(receiver).weaker(1.0, "resolved-type")


def _names_base(ctx: Context, file: FileRow, name: str) -> bool:
    """Whether the language's word for the base is ``name`` (C# ``base``): its layout
    answers that word with an unbound ``super`` value."""
    layout = ctx.layout(file.id)
    root = layout.path_root(file, name) if layout is not None else None
    return root is not None and root.kind == "super" and root.sym is None


def _delegated(ctx: Context, scope_id: int, to_base: bool) -> Value:
    """What a `super(...)`/`this(...)` call runs: in a constructor, the constructor of the
    bases (or a sibling one); in another method (Ruby's `super`), the bases' method of
    the same name."""
    cls = owners.enclosing_class(ctx, scope_id)
    if cls is None:
        return NONE_UNKNOWN
    method = _enclosing(ctx, scope_id, FUNCTION_KINDS)
    if to_base and method is not None and not _is_constructor(ctx, method):
        found = members.class_member(ctx, cls, method.name, skip_self=True)
        return found if found is not None else receivers.missing_member(ctx, cls, method.name)
    if not to_base and method is not None:
        init = members.sibling_constructor(ctx, cls, method)
        return init if init is not None else NONE_UNKNOWN
    init = members.constructor(ctx, cls, skip_self=to_base)
    if init is None:  # bases without a written constructor, or outside the project
        return NONE_EXTERNAL if members.mro(ctx, cls)[1] else NONE_BUILTIN
    return init


def _is_constructor(ctx: Context, sym: Sym) -> bool:
    spec = ctx.spec_of.get(sym.file_id)
    return sym.kind == "constructor" or (spec is not None and sym.name in spec.constructor_names)


def _enclosing(ctx: Context, sym_id: int | None, kinds: frozenset[str]) -> Sym | None:
    """The innermost symbol of one of ``kinds`` around ``sym_id`` (itself included)."""
    syms = ctx.project.syms
    while sym_id is not None and sym_id in syms:
        sym = syms[sym_id]
        if sym.kind in kinds:
            return sym
        sym_id = sym.parent_id
    return None


def resolve_ref(ctx: Context, ref: RefRow) -> Outcome:
    """The edges a reference makes, or why none. Most references repeat another one of
    the same scope (``self.x.append`` ten times in a method): their answer is reused
    unless a choice on the way depended on the line or a cycle was cut."""
    key = (ref.file_id, ref.source_id, ref.kind, ref.name, ref.receiver)
    known = ctx.outcomes.get(key)
    if known is not None:
        return known
    choices, cuts = ctx.line_choices, ctx.cycles.cuts
    outcome = _resolve_ref(ctx, ref)
    if ref.receiver is not None:
        outcome = _with_receiver_use(ctx, ref, outcome)
    if ctx.line_choices == choices and ctx.cycles.cuts == cuts:
        ctx.outcomes[key] = outcome
    return outcome


def _resolve_ref(ctx: Context, ref: RefRow) -> Outcome:
    spec = ctx.spec_of.get(ref.file_id)
    if spec is None:
        return unresolved("unknown")
    value, receiver = evaluate(ctx, ref)
    if ref.kind in CALL_KINDS and value.kind in ("local", "symbol"):
        target = receivers.aliased_value(ctx, value)
        if target is None and ref.kind == "calls":
            target = receivers.called_method(ctx, value)
        if target is not None:
            return _stood_for(ctx, ref, value, target)
    if value.kind == "none":
        if receiver is None and value.reason == "unknown":
            if spec.bare_name_match:
                value = namematch.match(ctx, ref, spec, method=False)
            if value.reason == "unknown" and _may_be_local(ctx, ref):
                value = NONE_DYNAMIC  # a parameter or local variable: known only at run time
            elif value.reason == "unknown" and _from_library(ctx, ref):
                value = NONE_EXTERNAL
        elif receiver is not None and (
            (receiver.kind == "none" and receiver.reason in GUESSABLE) or _open(receiver)
        ):
            value = namematch.match(ctx, ref, spec, method=True)
    return finish(ctx, ref, value)


def _with_receiver_use(ctx: Context, ref: RefRow, outcome: Outcome) -> Outcome:
    """The outcome, plus a ``references`` edge to the module-level variable or constant
    the receiver starts with: ``request_started.send(self)`` uses ``request_started``
    whatever ``send`` turns out to be, and "who uses ``request_started``" must say so."""
    segments = parse_receiver(ref.receiver or "")
    if not segments or segments[0].literal or segments[0].ops[:1] == "c":
        return outcome  # a call's result is the call's own reference
    spec = ctx.spec_of.get(ref.file_id)
    name = segments[0].name
    if spec is None or name in spec.self_names or name in spec.class_self_names:
        return outcome
    names = _variable_names(ctx)
    if all(segment.name not in names for segment in segments):
        return outcome  # most receivers: `self.x`, a local, a module (`os.path`)
    scope_id, _ = definition_scope(ctx, ref)
    found = scope.lookup_name(ctx, ctx.file(ref.file_id), scope_id, name, ref.line)
    for segment in segments[1:]:  # `flask.request_started.send`: a module's variable
        if found.kind != "module" or segment.ops[:1] == "c":
            break
        found = receivers.attribute(ctx, found, segment.name)
    sym = found.sym
    if found.kind != "symbol" or sym is None or sym.kind not in VARIABLE_KINDS:
        return outcome
    parent = ctx.project.syms.get(sym.parent_id) if sym.parent_id is not None else None
    if parent is not None and parent.kind != "file":
        return outcome  # a class's field or a function's local: not a module-level name
    used = Hit(sym, "references", round(found.confidence, 3), found.provenance)
    return Outcome(outcome.hits, outcome.reason, (*outcome.uses, used))


def _variable_names(ctx: Context) -> frozenset[str]:
    """Every name a module-level variable or constant has, or an import binds (an alias
    of one): a receiver naming none of them cannot start with such a variable."""
    if ctx.variable_names is None:
        project = ctx.project
        found = {
            sym.name
            for sym in project.syms.values()
            if sym.kind in VARIABLE_KINDS and sym.parent_id == project.files[sym.file_id].symbol
        }
        found.update(imp.alias for imps in project.imports.values() for imp in imps if imp.alias)
        ctx.variable_names = frozenset(found)
    return ctx.variable_names


def _stood_for(ctx: Context, ref: RefRow, value: Value, target: Value) -> Outcome:
    """A call of a variable that stands for something else calls that, and uses the
    variable: the function or class it holds (``const { isArray } = utils``), or the
    call method of the instance it holds (``_aborter(404)`` with ``_aborter =
    Aborter()``)."""
    called = finish(ctx, ref, target)
    if value.kind != "symbol" or value.sym is None:
        return called
    used = Hit(value.sym, "references", round(value.confidence, 3), value.provenance)
    return Outcome((*called.hits, used), called.reason)


OPEN_KINDS = frozenset({OBJECT_KIND, "trait"})  # receivers whose members may be others'


def _open(receiver: Value) -> bool:
    """A receiver lacking a member that may still be another's: an object (``const
    methods = { ... }``) whose methods are mixed into other values (``Object.assign(arr,
    methods)``), so ``this`` in them may be any of those; or a trait's value, which is
    some implementor (``Self`` of a trait's method, a type variable's first bound of
    several), whose own methods the trait does not list."""
    return receiver.sym is not None and receiver.sym.kind in OPEN_KINDS


def _from_library(ctx: Context, ref: RefRow) -> bool:
    """Whether an unknown type name may come from a library's wildcard import: ``URL``
    after Java's ``import java.net.*;``."""
    return ref.kind in NAMED_TYPES and any(
        imp.is_wildcard and members.import_target(ctx, imp).reason == "external"
        for imp in ctx.project.imports.get(ref.file_id, ())
    )


def _may_be_local(ctx: Context, ref: RefRow) -> bool:
    """Whether an unknown bare name may be a parameter or local variable: a value used
    inside a function, never a type (``Dynamic ry`` names a class even in a method)."""
    if ref.kind in NAMED_TYPES:
        return False
    return _enclosing(ctx, ref.source_id, CALLABLE_KINDS) is not None


def base_value(ctx: Context, ref: RefRow) -> Value:
    """A base class named by an ``extends``/``implements`` reference."""
    value, receiver = evaluate(ctx, ref)
    if value.kind == "none" and value.reason == "unknown" and receiver is None:
        spec = ctx.spec_of.get(ref.file_id)
        if spec is not None:
            value = namematch.match(ctx, ref, spec, method=False)
    if value.kind == "class" or value.kind == "none":
        return value
    return NONE_UNKNOWN


def finish(ctx: Context, ref: RefRow, value: Value) -> Outcome:
    """Edges for what the reference denotes, if its kind fits the reference: of a union,
    those of each alternative (``s.send()`` with ``s: ObjectStream | ByteStream``)."""
    if value.kind == "union":
        outcomes = [finish(ctx, ref, alt) for alt in value.alternatives]
        hits = tuple(hit for outcome in outcomes for hit in outcome.hits)
        return Outcome(hits) if hits else outcomes[0]
    if value.kind == "none":
        return unresolved(value.reason or "unknown")
    if value.kind == "module" and ref.kind in VALUE_USES:
        value = _namesake(ctx, ref, value)
    if value.kind == "module":
        files = value.module.files if value.module is not None else []
        if ref.kind == "references" and files:
            target = ctx.sym(ctx.file(files[0]).symbol)
            return Outcome((Hit(target, "references", value.confidence, value.provenance),))
        return unresolved("unknown")
    if value.sym is None or (value.kind != "class" and value.kind != "symbol"):
        return unresolved("dynamic")
    sym, kind = value.sym, ref.kind
    hit = Hit(sym, kind, round(value.confidence, 3), value.provenance)
    if sym.kind in CLASS_KINDS:
        if kind == "instantiates" or (kind == "calls" and sym.kind != OBJECT_KIND):
            return Outcome(_instantiation(ctx, hit))  # an object called is a function
        source = ctx.project.syms.get(ref.source_id)
        in_class = source is not None and source.kind not in INTERFACE_KINDS
        if kind == "extends" and sym.kind in INTERFACE_KINDS and in_class:
            kind = "implements"
        return Outcome((Hit(sym, kind, hit.confidence, hit.provenance),))
    fits = FITS.get(kind)
    if fits is not None and sym.kind not in fits:
        return unresolved("dynamic" if kind == "calls" else "unknown")
    return Outcome((hit,))


def _namesake(ctx: Context, ref: RefRow, value: Value) -> Value:
    """A module used as a value means the function named like it, where the language
    keeps the two apart; otherwise the module itself."""
    spec = ctx.spec_of.get(ref.file_id)
    if spec is None or not spec.namespaces_apart or value.module is None:
        return value
    found = members.namesake(ctx, value.module)
    return found.via(value) if found is not None else value


def _instantiation(ctx: Context, hit: Hit) -> tuple[Hit, ...]:
    made = Hit(hit.target, "instantiates", hit.confidence, hit.provenance)
    init = members.constructor(ctx, hit.target)
    if init is None or init.sym is None:
        return (made,)
    confidence = round(min(hit.confidence, init.confidence), 3)
    return made, Hit(init.sym, "calls", confidence, hit.provenance, "constructor")
