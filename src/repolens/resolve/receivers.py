"""Receiver types: what ``self.repo.store`` or ``make().client`` denotes.

A receiver is evaluated left to right: its head is looked up in scope (or is ``self``,
``cls``, ``super()``, a Rust path root), then each ``.name`` is an attribute of the value
so far and each ``()`` a call (a class gives an instance, a function its declared return
type). Types come from bindings (annotations, constructor assignments, typed parameters)
and return annotations; nothing here guesses by name.
"""

from __future__ import annotations

from collections.abc import Callable

from repolens.resolve import members, owners, scope, stated
from repolens.resolve.base import (
    NONE_BUILTIN,
    NONE_DYNAMIC,
    NONE_EXTERNAL,
    NONE_UNKNOWN,
    Value,
    one_of,
)
from repolens.resolve.context import Context
from repolens.resolve.project import (
    CALL_ELEMENT,
    CALL_RESULT,
    CALLABLE_KINDS,
    CLASS_KINDS,
    ELEMENT_OF,
    FUNCTION_KINDS,
    SECOND_RESULT,
    VALUE_OF,
    BindingRow,
    FileRow,
    Sym,
)
from repolens.resolve.syntax import (
    Segment,
    is_mapping,
    parse_receiver,
    result_at,
    subscript_item,
    yielded_type,
)

TYPE_CONFIDENCE = 0.9
SELF_CONFIDENCE = 0.95
CONTAINER_KINDS = frozenset({"namespace", "module"})  # TS namespaces, Rust inline modules
RETURN = "return"  # the binding the parser makes of an unannotated function's last return
VARIABLE_KINDS = frozenset({"variable", "constant", "field", "property", "enum_member"})
YIELDERS = ("contextmanager", "fixture")  # decorators making a generator give its item


def eval_receiver(
    ctx: Context, file: FileRow, scope_id: int, text: str, line: int, *, types_only: bool = False
) -> Value:
    """The value a receiver expression denotes at ``line`` in ``scope_id`` (in a type
    position when ``types_only``: its head is then never a variable)."""
    segments = parse_receiver(text)
    if segments is None:
        return NONE_DYNAMIC
    head = segments[0]
    if head.literal:
        return NONE_BUILTIN
    next_sep = segments[1].sep if len(segments) > 1 else ""
    value, ops = _head(ctx, file, scope_id, head, next_sep, line, types_only)
    value = apply_ops(ctx, value, ops)
    for segment in segments[1:]:
        if value.kind == "none":
            break
        if segment.ops[:1] != "c":
            value = apply_ops(ctx, attribute(ctx, value, segment.name), segment.ops)
            continue
        item = _item_value(ctx, value) if _is_getter(ctx, file, segment.name) else None
        if item is None:  # a method, not a builtin container's getter
            item = _called_through(ctx, value, attribute(ctx, value, segment.name))
        value = apply_ops(ctx, item, segment.ops[1:])
    return value


SELF_TYPES = frozenset({"Self", "self", "this"})


def _called_through(ctx: Context, receiver: Value, member: Value) -> Value:
    """What calling ``member``, found on ``receiver``, gives. A method declared to return
    ``Self`` gives the receiver's own class, which may be a subclass of the method's
    (``sub.copy().only_sub()``) or, for a trait's, an implementor (``T::make()``)."""
    result = call_value(ctx, member)
    fn = member.sym if member.kind == "symbol" else None
    if fn is None or fn.kind not in CALLABLE_KINDS or fn.return_type.strip() not in SELF_TYPES:
        return result
    own = value_type(ctx, receiver)
    if own.kind in ("instance", "class") and own.sym is not None and own.sym.kind in CLASS_KINDS:
        return Value("instance", sym=own.sym).via(result)
    return result


def _is_getter(ctx: Context, file: FileRow, method: str) -> bool:
    """Whether ``method`` gives an item of a builtin container (``LanguageSpec.
    item_getters``); it does so only where the container's type is stated, so a project
    class's own ``get`` is still looked up as any method is."""
    spec = ctx.spec_of.get(file.id)
    return spec is not None and method in spec.item_getters


def _head(
    ctx: Context,
    file: FileRow,
    scope_id: int,
    head: Segment,
    next_sep: str,
    line: int,
    types_only: bool,
) -> tuple[Value, str]:
    """The value of a receiver's first segment, and the call/subscript ops left on it."""
    spec, layout = ctx.spec_of.get(file.id), ctx.layout(file.id)
    name, ops = head.name, head.ops
    if spec is None or layout is None:
        return NONE_UNKNOWN, ops
    if name in spec.class_self_names or (name in spec.self_names and next_sep != "::"):
        cls = owners.enclosing_class(ctx, scope_id)
        if cls is None and not spec.self_outside_classes:
            return NONE_UNKNOWN, ops
        if cls is not None:
            kind = "class" if name in spec.class_self_names else "instance"
            value = Value(kind, sym=cls, confidence=SELF_CONFIDENCE, provenance="resolved-type")
            return value, ops
    rooted = None
    if spec.paths_first:  # Rust: `crate`, `super`, `self::`, a crate's name
        rooted = _inline_root(ctx, scope_id, name) or layout.path_root(file, name)
    if rooted is not None:
        return rooted, ops
    if name == "super" and spec.self_names:
        return _super(ctx, scope_id), ops[1:] if ops.startswith("c") else ops
    found = scope.lookup_name(ctx, file, scope_id, name, line, types_only=types_only)
    if found.kind == "none" and not types_only and spec.paths_first:
        # `Ty::is_directed()`: a path's head may name a type variable, which a value
        # lookup skips (`impl<Ty: EdgeType>`: the method is its bound's)
        found = scope.lookup_name(ctx, file, scope_id, name, line, types_only=True)
    if found.kind == "none" or _is_namespace(found):
        # perhaps a fully qualified name (`com.acme.Util.f()`); a namespace declared in one
        # file (`namespace shop {`) is open: the layout knows every file that adds to it
        found = layout.path_root(file, name) or found
    if found.kind == "super" and found.sym is None:  # the layout's keyword for the base
        found = _super(ctx, scope_id)  # of the enclosing class: C# `base`, PHP `parent`
    return found, ops


def _super(ctx: Context, scope_id: int) -> Value:
    """The enclosing class, its lookups starting at its bases."""
    cls = owners.enclosing_class(ctx, scope_id)
    if cls is None:
        return NONE_UNKNOWN
    return Value("super", sym=cls, confidence=SELF_CONFIDENCE, provenance="resolved-type")


def _is_namespace(value: Value) -> bool:
    return value.kind == "symbol" and value.sym is not None and value.sym.kind == "namespace"


def _inline_root(ctx: Context, scope_id: int, name: str) -> Value | None:
    """``self``/``super`` inside an inline ``mod m { ... }``: that module, or the one
    around it (the file's own module when ``m`` is at its top)."""
    if name not in ("self", "super"):
        return None
    syms = ctx.project.syms
    inline: list[Sym] = []
    sid: int | None = scope_id
    while sid is not None and sid in syms:
        if syms[sid].kind == "module":
            inline.append(syms[sid])
        sid = syms[sid].parent_id
    if not inline:
        return None
    if name == "self":
        return members.symbol_value(inline[0])
    if len(inline) > 1:
        return members.symbol_value(inline[1])
    module = ctx.module_of(inline[0].file_id)
    return Value("module", module=module) if module is not None else None


def apply_ops(ctx: Context, value: Value, ops: str) -> Value:
    for op in ops:
        if value.kind == "none":
            return value
        value = call_value(ctx, value) if op == "c" else subscript_value(ctx, value)
    return value


def subscript_value(ctx: Context, value: Value) -> Value:
    """``value[i]``: an element or mapped value of what its binding states (``conns:
    list[Conn]``, ``by_name: dict[str, Conn]``), else unknown at run time."""
    found = _item_value(ctx, value)
    if found is not None:
        return found.weaker(TYPE_CONFIDENCE, "resolved-type")
    held = value_type(ctx, value)
    return held if held.kind == "none" else NONE_DYNAMIC


def _item_value(ctx: Context, value: Value, *, mappings_only: bool = False) -> Value | None:
    """An item of ``value`` as the type its binding states gives it (``subscript_item``),
    or None: no stated type, or one whose items are not known."""
    binding = value.binding if value.kind == "local" else _variable_binding(ctx, value)
    if binding is None or binding.from_call:  # only a type as written has items to read
        return None
    file = ctx.file(binding.file_id)
    item = subscript_item(binding.type_name)
    if not item and not mappings_only:
        held = stated.type_value(ctx, file, binding.scope_id, binding.type_name, binding.line)
        defined = _defined_item(ctx, held)
        return defined.via(value) if defined is not None else None
    if not item or (mappings_only and not is_mapping(binding.type_name)):
        return None
    return stated.type_value(ctx, file, binding.scope_id, item, binding.line).via(value)


def _defined_item(ctx: Context, held: Value) -> Value | None:
    """An item of an instance of a type defined as a container (Go's ``type Errors
    []FieldError``): what the type says iterating it ``yields``."""
    if held.kind != "instance" or held.sym is None or not held.sym.yields:
        return None
    file, scope_id = owners.written_in(ctx, held.sym)
    return stated.type_value(ctx, file, scope_id, held.sym.yields, held.sym.start_line)


def attribute(ctx: Context, value: Value, name: str) -> Value:
    """``value.name``: a module member, a class member, or an instance's method/field;
    of a union, that of each alternative that has it."""
    if value.kind in ("symbol", "local"):
        value = value_type(ctx, value)
    if value.kind == "union":
        return one_of([attribute(ctx, alt, name) for alt in value.alternatives])
    if value.kind == "module" and value.module is not None:
        found = members.module_member(ctx, value.module, name)
        return found.via(value) if found is not None else NONE_UNKNOWN
    if value.kind == "class" and value.sym is not None and _is_prototype(ctx, value.sym, name):
        return Value("instance", sym=value.sym).via(value)
    if value.kind == "instance" and _holds_class(ctx, value, name):  # `self.__class__`
        return Value("class", sym=value.sym).via(value)
    if value.kind in ("class", "instance", "super") and value.sym is not None:
        found = members.class_member(ctx, value.sym, name, skip_self=value.kind == "super")
        if found is None and value.kind != "class":
            found = members.field_binding(ctx, value.sym, name)
        if found is not None:
            return found.via(value).weaker(
                1.0, "resolved-type" if value.kind != "class" else "parsed"
            )
        return missing_member(ctx, value.sym, name)
    if value.kind == "symbol" and value.sym is not None and value.sym.kind in CONTAINER_KINDS:
        inner = ctx.project.members.get(value.sym.id, {}).get(name)
        return members.symbol_value(inner[-1]).via(value) if inner else NONE_UNKNOWN
    return value if value.kind == "none" else NONE_UNKNOWN


def _is_prototype(ctx: Context, cls: Sym, name: str) -> bool:
    """Whether ``name`` is the attribute of ``cls`` that holds what its instances share."""
    spec = ctx.spec_of.get(cls.file_id)
    return spec is not None and spec.prototype != "" and name == spec.prototype


def _holds_class(ctx: Context, instance: Value, name: str) -> bool:
    """Whether ``name`` is the attribute of ``instance`` that holds its class."""
    spec = ctx.spec_of.get(instance.sym.file_id) if instance.sym is not None else None
    return spec is not None and spec.class_attribute != "" and name == spec.class_attribute


def missing_member(ctx: Context, cls: Sym, name: str) -> Value:
    """A class lacks member ``name``: it may come from a base outside the project, and a
    dunder (``__class__``, ``__new__``, ``super().__init__``) is the object model's own."""
    _, incomplete = members.mro(ctx, cls)
    if incomplete:
        return NONE_EXTERNAL
    return NONE_BUILTIN if name.startswith("__") and name.endswith("__") else NONE_UNKNOWN


def value_type(ctx: Context, value: Value) -> Value:
    """What a variable holds: a typed local/field/variable becomes an instance (or class);
    a property gives its return type. Other values are returned unchanged."""
    if value.kind == "union":
        return one_of([value_type(ctx, alt) for alt in value.alternatives])
    if value.kind == "local":  # a parameter without a stated type: not known
        return binding_value(ctx, value.binding).via(value) if value.binding else NONE_UNKNOWN
    if value.kind != "symbol" or value.sym is None:
        return value
    sym = value.sym
    if sym.kind == "type_alias":
        return stated.unaliased(ctx, value)
    if sym.kind == "property" or (sym.kind in FUNCTION_KINDS and _is_property(sym)):
        return call_value(ctx, value)
    if sym.kind in VARIABLE_KINDS and sym.parent_id is not None:
        binding = _variable_binding(ctx, value)
        return binding_value(ctx, binding).via(value) if binding else NONE_UNKNOWN
    return value


def _variable_binding(ctx: Context, value: Value) -> BindingRow | None:
    """The binding that states what a variable symbol (a field, a module variable)
    holds: the first of its name in the scope it is defined in."""
    sym = value.sym if value.kind == "symbol" else None
    if sym is None or sym.kind not in VARIABLE_KINDS or sym.parent_id is None:
        return None
    found = ctx.project.bindings.get(sym.parent_id, {}).get(sym.name)
    return found[0] if found else None


def _is_property(sym: Sym) -> bool:
    return any(d.split("(")[0].endswith("property") for d in sym.decorators.split("\n") if d)


def call_value(ctx: Context, value: Value) -> Value:
    """What calling ``value`` gives: an instance of a class, a function's return type,
    what the call method of a callable instance returns."""
    if value.kind == "union":
        return one_of([call_value(ctx, alt) for alt in value.alternatives])
    if value.kind == "class":
        return Value("instance", sym=value.sym).via(value)
    if value.kind == "symbol" and value.sym is not None and value.sym.kind in CALLABLE_KINDS:
        sym = value.sym
        return ctx.returns.get(sym.id, _returns, ctx, sym).via(value)
    if value.kind in ("symbol", "local"):
        held = value_type(ctx, value)
        if held.kind == "class":
            return Value("instance", sym=held.sym).via(held)
        if held.kind == "none":
            return held if held.reason != "unknown" else NONE_DYNAMIC
        value = held
    if value.kind == "none":
        return value
    method = called_method(ctx, value)
    return call_value(ctx, method) if method is not None else NONE_DYNAMIC


def aliased_value(ctx: Context, value: Value) -> Value | None:
    """The function or class a variable stands for when it holds another name's value
    (a ``VALUE_OF`` binding: ``const { isBrotliEncoding } = utils``), else None."""
    binding = _variable_binding(ctx, value)
    if binding is None or binding.from_call != VALUE_OF:
        return None
    held = binding_value(ctx, binding)
    runs = held.kind == "symbol" and held.sym is not None and held.sym.kind in CALLABLE_KINDS
    return held.via(value) if held.kind == "class" or runs else None


def called_method(ctx: Context, value: Value) -> Value | None:
    """The method a call of ``value`` runs when it holds an instance whose class defines
    the language's call method (``LanguageSpec.call_method``), else None."""
    if value.kind in ("symbol", "local"):
        value = value_type(ctx, value)
    if value.kind != "instance" or value.sym is None:
        return None
    spec = ctx.spec_of.get(value.sym.file_id)
    if spec is None or not spec.call_method:
        return None
    found = members.class_member(ctx, value.sym, spec.call_method)
    return found.via(value).weaker(1.0, "resolved-type") if found is not None else None


def _returns(ctx: Context, fn: Sym) -> Value:
    text = fn.return_type.strip()
    if not text:
        return _inferred_return(ctx, fn)
    if any(d.split("(")[0].endswith(YIELDERS) for d in fn.decorators.split("\n")):
        # `@contextmanager def stream() -> Iterator[Response]`: what `with stream() as r`
        # binds is what the generator yields, and so is a pytest fixture's value
        text = yielded_type(text) or text
    if text in SELF_TYPES:
        cls = owners.enclosing_class(ctx, fn.id)
        return Value("instance", sym=cls) if cls is not None else NONE_UNKNOWN
    return stated.type_value(ctx, *owners.written_in(ctx, fn), text, fn.start_line)


def _inferred_return(ctx: Context, fn: Sym) -> Value:
    """What an unannotated function returns when its body ends in ``return Flask()`` or
    ``return app`` (the parser binds ``return`` like a variable): a factory's product."""
    stated = ctx.project.bindings.get(fn.id, {}).get(RETURN)
    return binding_value(ctx, stated[-1]) if stated else NONE_UNKNOWN


def binding_value(ctx: Context, binding: BindingRow) -> Value:
    """The type a binding states, evaluated where it is written."""
    key = (binding.file_id, binding.scope_id, binding.name, binding.line)
    return ctx.bindings.get(key, _binding_value, ctx, binding)


def _binding_value(ctx: Context, binding: BindingRow) -> Value:
    file = ctx.file(binding.file_id)
    if binding.from_call in (VALUE_OF, ELEMENT_OF):
        held = eval_receiver(ctx, file, binding.scope_id, binding.type_name, binding.line)
        if binding.from_call == VALUE_OF:  # what the expression names, as sure as its path
            return value_type(ctx, held)
        item = _item_value(ctx, held)  # an item of the container the expression holds
        return item.weaker(TYPE_CONFIDENCE, "resolved-type") if item is not None else NONE_UNKNOWN
    if binding.from_call == CALL_RESULT:  # the call evaluated whole: a getter's item,
        called = f"{binding.type_name}()"  # `Self` as its receiver's class
        result = eval_receiver(ctx, file, binding.scope_id, called, binding.line)
    elif binding.from_call in (CALL_ELEMENT, SECOND_RESULT):
        callee = eval_receiver(ctx, file, binding.scope_id, binding.type_name, binding.line)
        if binding.from_call == SECOND_RESULT:
            result = _stated_type(ctx, callee, lambda fn: result_at(fn.return_type, 1))
        elif callee.kind == "class":  # `for n in Tree()`: what an instance yields
            result = _defined_item(ctx, call_value(ctx, callee)) or NONE_UNKNOWN
        else:
            result = _mapped_value(ctx, file, binding) or _stated_type(ctx, callee, _yields)
    else:
        result = stated.type_value(ctx, file, binding.scope_id, binding.type_name, binding.line)
    return result.weaker(TYPE_CONFIDENCE, "resolved-type")


MAPPED_VALUES = frozenset({"values", "items"})  # their loops give a mapping's values


def _mapped_value(ctx: Context, file: FileRow, binding: BindingRow) -> Value | None:
    """A value of the mapping a loop goes over (``for v in by_name.values()``, ``for k, v
    in by_name.items()`` with ``by_name: dict[str, Conn]``), or None."""
    mapping, _, method = binding.type_name.rpartition(".")
    if method not in MAPPED_VALUES or not mapping:
        return None
    held = eval_receiver(ctx, file, binding.scope_id, mapping, binding.line)
    return _item_value(ctx, held, mappings_only=True)


def _stated_type(ctx: Context, callee: Value, text_of: Callable[[Sym], str]) -> Value:
    """A type the signature of the function ``callee`` states, read by ``text_of`` where
    the function is written: what iterating its result gives (``for n in tree.nodes()``
    with ``def nodes(self) -> list[Node]`` in another file is a ``Node``), its second
    result (``func split() (*Route, *Router)`` gives a ``Router``)."""
    fn = callee.sym
    if callee.kind != "symbol" or fn is None or fn.kind not in CALLABLE_KINDS:
        return NONE_UNKNOWN
    text = text_of(fn)
    if not text:
        return NONE_UNKNOWN
    return stated.type_value(ctx, *owners.written_in(ctx, fn), text, fn.start_line).via(callee)


def _yields(fn: Sym) -> str:
    return fn.yields
