"""Kotlin: packages, classes, interfaces, objects, companions, functions, properties.

Conventions decided here:
- ``package a.b`` becomes a one-line ``namespace`` symbol named ``a.b`` (as Java).
- ``class``/``data class`` are ``class``es, ``interface`` an ``interface``, ``enum class``
  an ``enum`` (entries ``enum_member``); ``object X`` is a ``class`` whose members are
  static. A ``companion object`` is not a symbol: its members belong to the enclosing
  class as static members, which is how callers write them (``OrderService.create()``).
- ``fun`` is a ``method`` inside a type, else a ``function`` (``test`` when annotated
  ``@Test``); ``val``/``var`` in a class (and in its primary constructor) are
  ``field``s, at top level ``variable``s. A top-level extension function ``fun
  Order.total()`` stays a ``function`` named ``total`` (imported by that name) qualified
  ``Order.total``: the resolver reads the type it extends from there.
- Supertypes written with a constructor call (``Base()``) are ``extends``, others
  ``implements``.
- ``X(...)`` is a call; the resolver turns it into an instantiation when X is a class.
- Imports: ``import a.b.C`` -> (module ``a.b``, name ``C``); ``import a.b.*`` -> wildcard;
  ``import a.b.C as D`` -> alias ``D``.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text, strip_generics

_ID = "(identifier) @name"
_ARGS = "[(value_arguments) (annotated_lambda)] @args"

QUERY = f"""
(package_header (qualified_identifier) @name) @def.namespace
(class_declaration name: {_ID}) @def.class
(object_declaration name: {_ID}) @def.class
(enum_entry . {_ID}) @def.enum_member
(function_declaration name: {_ID} (function_value_parameters)
  . [(user_type) (nullable_type)]? @returns) @def.function
(class_body (property_declaration (variable_declaration {_ID})) @def.field)
(class_parameter ["val" "var"] {_ID}) @def.field
(source_file (property_declaration (variable_declaration {_ID})) @def.variable)

(call_expression . {_ID} {_ARGS}) @call
(call_expression . (navigation_expression . (_) @recv {_ID} .) {_ARGS}) @call

(value_argument . (identifier) @ref)
(callable_reference) @ref

(parameter {_ID} (_) @bind.type) @bind
(class_parameter {_ID} (_) @bind.type) @bind
(property_declaration (variable_declaration {_ID} (_) @bind.type)) @bind
(property_declaration (variable_declaration {_ID} .)
  (call_expression . [(identifier) (navigation_expression)] @bind.call)) @bind

[(line_comment) (block_comment)] @comment
(annotation) @decoration
(import) @import
"""

_VISIBILITY = ("public", "protected", "private", "internal")
_TEST_ANNOTATIONS = frozenset({"Test", "ParameterizedTest"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    if sym.kind == "namespace":
        sym.signature = "package " + sym.name
        return
    header = node_text(node, ctx.src).split("{", 1)[0]
    words = set(header.replace("(", " ").split())
    if sym.kind == "class":
        if "interface" in words:
            sym.kind = "interface"
        elif any(c.type == "enum_class_body" for c in node.named_children):
            sym.kind = "enum"
    parent = ctx.parent
    if sym.kind == "function":
        sym.signature = _header(sym.signature)
        if parent is not None and parent.kind in TYPE_KINDS:
            sym.kind = "method"
        receiver = _extended_type(node, ctx.src)
        if receiver and parent is None:
            sym.qualified_name = f"{receiver}.{sym.name}"
    visibility = next((v for v in _VISIBILITY if v in _modifiers(node, ctx.src)), "public")
    sym.visibility = visibility
    sym.is_exported = visibility in ("public", "internal")
    sym.is_static = _in_object(node)
    if sym.kind in ("function", "method") and _TEST_ANNOTATIONS.intersection(
        d.split("(", 1)[0].rsplit(".", 1)[-1] for d in sym.decorators
    ):
        sym.kind = "test"


def _extended_type(node: Node, src: bytes) -> str:
    """``fun Order.total()`` -> ``Order``: the type an extension function is declared on."""
    name = node.child_by_field_name("name")
    receiver = name.prev_named_sibling if name is not None else None
    if receiver is None or receiver.type not in ("user_type", "nullable_type"):
        return ""
    return strip_generics(node_text(receiver, src)).rstrip("?").rsplit(".", 1)[-1]


def _header(signature: str) -> str:
    """``fun f(x: Int): T = body`` -> ``fun f(x: Int): T``: the grammar marks no body field,
    and a body left in the signature would read as more parameters."""
    depth = 0
    for i, ch in enumerate(signature):
        if ch in "(<":
            depth += 1
        elif ch in ")>" and depth:
            depth -= 1
        elif depth == 0 and (ch == "{" or signature.startswith(" = ", i)) and "(" in signature[:i]:
            return signature[:i].rstrip()
    return signature


def _modifiers(node: Node, src: bytes) -> set[str]:
    mods = next((c for c in node.named_children if c.type == "modifiers"), None)
    return set(node_text(mods, src).split()) if mods is not None else set()


def _in_object(node: Node) -> bool:
    """Members of ``object`` and ``companion object`` bodies are static."""
    body = node.parent
    holder = body.parent if body is not None else None
    return holder is not None and holder.type in ("object_declaration", "companion_object")


def _heritage(node: Node) -> list[tuple[str, Node]]:
    specs = next((c for c in node.named_children if c.type == "delegation_specifiers"), None)
    found: list[tuple[str, Node]] = []
    for spec in specs.named_children if specs is not None else []:
        first = spec.named_child(0)
        if first is None:
            continue
        if first.type == "constructor_invocation":
            base = first.named_child(0)
            if base is not None:
                found.append(("extends", base))
        else:
            found.append(("implements", first))
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    target = next((c for c in node.named_children if c.type == "qualified_identifier"), None)
    if target is None:
        return []
    text = node_text(target, src)
    if node_text(node, src).rstrip().endswith("*"):
        return [ImportSpec(text, is_wildcard=True)]
    alias = next((c for c in node.named_children if c.type == "identifier"), None)
    module, _, name = text.rpartition(".")
    return [ImportSpec(module, name, node_text(alias, src) if alias is not None else None)]


def _clean_type(text: str) -> str:
    return text.strip().rstrip("?")


_BUILTIN_TYPES = frozenset(
    {
        "Int", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Char", "String", "Unit",
        "Any", "Nothing", "List", "MutableList", "Map", "MutableMap", "Set", "MutableSet",
        "Array", "IntArray", "Sequence", "Pair", "Triple", "Result", "Throwable", "Exception",
        *"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="kotlin",
    grammar_module="tree_sitter_kotlin",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    clean_type=_clean_type,
    body_fields=(),
    name_types=frozenset({"identifier"}),
    qualified_types=frozenset(),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"this"}),
    self_prefix="this",
    skip_refs=frozenset({"this", "it"}),
)
