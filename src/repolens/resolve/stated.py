"""What a type written in the code denotes: an instance of a project class, the class
itself (``type[Repo]``), one of several (a union, an intersection), or why none.

Type text comes from annotations, signatures and type aliases; it is evaluated where it
is written, with the same scope lookups as any receiver (``receivers``).
"""

from __future__ import annotations

from repolens.resolve import owners, receivers
from repolens.resolve.base import NONE_BUILTIN, NONE_UNKNOWN, Value, one_of
from repolens.resolve.context import Context
from repolens.resolve.project import FileRow, Sym
from repolens.resolve.syntax import ARRAY, aliased_type, normalize_type, union_members

PARTLY_KNOWN_CONFIDENCE = 0.7  # one of a union's types that are the project's, of several


def type_value(ctx: Context, file: FileRow, scope_id: int, text: str, line: int) -> Value:
    """An instance of the type ``text`` names (``Optional[Repo]``, ``*Server``, ``&mut T``,
    ``"Repo"``), the class itself for ``type[Repo]``, or why it is not a project type; of
    a union (``Repo | Cache``), one of those it names that are."""
    alternatives = union_members(text)
    if alternatives:
        return _union([type_value(ctx, file, scope_id, t, line) for t in alternatives])
    spec = ctx.spec_of.get(file.id)
    head, as_class = normalize_type(text)
    if not head or spec is None:
        return NONE_UNKNOWN
    if head == ARRAY:
        return NONE_BUILTIN
    value = receivers.eval_receiver(ctx, file, scope_id, head, line, types_only=True)
    if value.kind == "local" and value.binding is not None:  # a type variable: its bound
        return receivers.binding_value(ctx, value.binding)
    if value.kind == "symbol" and value.sym is not None and value.sym.kind == "enum_member":
        # its payload: `Value::String(s) =>` binds `s` to it
        return receivers.value_type(ctx, value)
    # A builtin's name (`std::string::String`) unless the project's own class holds it
    # here: TypeScript's DOM `Node` is not the `Node` an AST module defines and imports.
    builtin = head in spec.builtin_types or head.split(".")[-1] in spec.builtin_types
    if builtin and value.kind != "class":
        return NONE_BUILTIN
    value = unaliased(ctx, value)
    if value.kind == "union" and not as_class:
        return one_of([Value("instance", sym=alt.sym).via(alt) for alt in value.alternatives])
    if value.kind not in ("class", "union"):
        return value if value.kind == "none" else NONE_UNKNOWN
    return value if as_class else Value("instance", sym=value.sym).via(value)


def _union(values: list[Value]) -> Value:
    """The value of a union of types: one of those that are the project's, less sure
    when others are not (``ObservableSet | Set``: a call may be the builtin's)."""
    found = one_of(values)
    if found.kind != "none" and any(value.kind == "none" for value in values):
        return found.weaker(PARTLY_KNOWN_CONFIDENCE, "resolved-type")
    return found


def unaliased(ctx: Context, value: Value) -> Value:
    """The class a type alias names (``UnGraph::new()``, ``g: UnGraph<u8>`` with
    ``type UnGraph<N> = Graph<N, Undirected>``), through aliases of aliases; any other
    value as it is."""
    alias = value.sym
    if value.kind != "symbol" or alias is None or alias.kind != "type_alias":
        return value
    return ctx.aliases.get(alias.id, _alias_target, ctx, alias).via(value)


def _alias_target(ctx: Context, alias: Sym) -> Value:
    file, scope_id = owners.written_in(ctx, alias)
    text = aliased_type(alias.signature)
    named = [_named_class(ctx, file, scope_id, t, alias.start_line) for t in union_members(text)]
    return _union(named) if named else _named_class(ctx, file, scope_id, text, alias.start_line)


def _named_class(ctx: Context, file: FileRow, scope_id: int, text: str, line: int) -> Value:
    """The class (or union of classes, through an alias) a type written in a scope names."""
    head, _ = normalize_type(text)
    if not head or head == ARRAY:
        return NONE_UNKNOWN
    found = unaliased(
        ctx, receivers.eval_receiver(ctx, file, scope_id, head, line, types_only=True)
    )
    return found if found.kind in ("class", "union") else NONE_UNKNOWN
