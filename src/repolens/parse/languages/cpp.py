"""C++: everything C has (see ``cfamily``) plus classes, namespaces, methods and ``new``.

Conventions decided here:
- ``class``/``struct`` bodies hold ``method``s: inline definitions, and declarations only
  when ``virtual`` (dispatch points without a body of their own). A plain declaration is
  not a symbol: its out-of-class definition is, so that calls land on code (the resolver
  also prefers a virtual's definition beside its class to the declaration). A member
  named like its class is a ``constructor``; ``~T`` is a method.
- ``int Store::put(int x) {...}`` is a ``method`` of ``Store``: attached to the class when
  it is defined in the same file, else qualified ``Store.put`` without a parent.
- ``namespace a { ... }`` is a one-line ``namespace`` symbol naming it, not a container:
  namespaces are open (one namespace spans many files), so definitions inside stay
  top-level names of their file (``Store``, ``Store.put``) and the resolver maps a
  ``a::`` qualifier to every file that declares namespace ``a``.
- Member visibility follows the last access specifier above it (``class`` starts
  ``private``, ``struct`` ``public``); exported means public.
- Base classes are ``extends`` references; ``new T(...)`` is ``instantiates``; ``T(...)``
  is a call the resolver turns into an instantiation when ``T`` is a class.
- ``using namespace`` and ``using a::b`` are not imports (see the report's known limits).
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages import cfamily
from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext, LanguageSpec

_MEMBER = "[(field_identifier) (identifier) (destructor_name) (operator_name)] @name"
_OWNED = f"(qualified_identifier scope: (_) @owner name: {_MEMBER})"
_NESTED_OWNED = f"(qualified_identifier name: {_OWNED})"
_TYPE = "[(type_identifier) @name (template_type name: (type_identifier) @name)"
_QTYPE = "(qualified_identifier) @qname]"

QUERY = (
    cfamily.COMMON_QUERY
    + f"""
(function_definition declarator: (function_declarator declarator: {_OWNED})) @def.method
(function_definition declarator: (function_declarator declarator: {_NESTED_OWNED})) @def.method
(function_definition declarator: (pointer_declarator declarator:
  (function_declarator declarator: {_OWNED}))) @def.method
(function_definition declarator: (reference_declarator
  (function_declarator declarator: {_OWNED}))) @def.method
(function_definition declarator: (function_declarator
  declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @def.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (field_identifier) @name))) @def.method
(field_declaration_list (field_declaration "virtual" declarator: (function_declarator
  declarator: [(field_identifier) (operator_name)] @name)) @def.method)
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name @def.namespace)

(call_expression function: (qualified_identifier) @qname arguments: (_) @args) @call
(call_expression function: (template_function name: (identifier) @name) arguments: (_) @args)
  @call
(call_expression function: (field_expression argument: (_) @recv
  field: (template_method name: (field_identifier) @name)) arguments: (_) @args) @call
(new_expression type: {_TYPE} {_QTYPE} arguments: (_)? @args) @new

(parameter_declaration type: (_) @bind.type declarator: (reference_declarator
  (identifier) @name)) @bind
(declaration type: (placeholder_type_specifier) declarator: (init_declarator
  declarator: (identifier) @name value: (new_expression type: (_) @bind.new))) @bind
(declaration type: (placeholder_type_specifier) declarator: (init_declarator
  declarator: (identifier) @name value: (call_expression function: (_) @bind.call))) @bind
"""
)

_DEFAULT_ACCESS = {"class_specifier": "private", "struct_specifier": "public"}


def _refine(sym: Symbol, ctx: DefContext) -> None:
    if sym.kind == "namespace":
        sym.signature = "namespace " + sym.name
        return
    parent = ctx.parent
    in_type = parent is not None and parent.kind in TYPE_KINDS
    if sym.kind == "function" and in_type:
        sym.kind = "method"
    if sym.kind == "method":
        owner = parent.name if in_type and parent is not None else ctx.owner
        if sym.name == owner:
            sym.kind = "constructor"
        sym.is_static = "static" in cfamily.storage(ctx.node)
    elif sym.kind in ("function", "variable"):
        cfamily.refine_static(sym, ctx.node)
    if in_type:
        sym.visibility = _access(ctx.anchor)
        sym.is_exported = sym.visibility == "public"


def _access(node: Node) -> str:
    """The access specifier in force at a member: the last one written above it."""
    body = node.parent
    if body is None or body.type != "field_declaration_list" or body.parent is None:
        return "public"
    sibling = node.prev_named_sibling
    while sibling is not None:
        if sibling.type == "access_specifier":
            return (sibling.text or b"public").decode().strip()
        sibling = sibling.prev_named_sibling
    return _DEFAULT_ACCESS.get(body.parent.type, "public")


def _heritage(node: Node) -> list[tuple[str, Node]]:
    if node.type not in ("class_specifier", "struct_specifier"):
        return []
    clause = next((c for c in node.named_children if c.type == "base_class_clause"), None)
    if clause is None:
        return []
    return [
        ("extends", c)
        for c in clause.named_children
        if c.type in ("type_identifier", "qualified_identifier", "template_type")
    ]


def _clean_type(text: str) -> str:
    """``const std::shared_ptr<Store>&`` -> ``Store``: smart pointers act as their element."""
    text = cfamily.clean_type(text)
    for wrapper in ("std::unique_ptr<", "std::shared_ptr<", "unique_ptr<", "shared_ptr<"):
        if text.startswith(wrapper) and text.endswith(">"):
            return cfamily.clean_type(text[len(wrapper) : -1])
    return text


# Locals and parameters of primitive type are bindings (their type resolves to a builtin),
# because members are visible unqualified: a local ``int size`` must hide a member ``size()``.
# These are ``primitive_type``/``sized_type_specifier`` nodes, never type names, so keeping
# them out of ``builtin_types`` adds no type reference.
PRIMITIVES = frozenset(
    {
        "bool", "char", "char16_t", "char32_t", "double", "float", "int", "int8_t", "int16_t",
        "int32_t", "int64_t", "intptr_t", "long", "ptrdiff_t", "short", "signed", "size_t",
        "ssize_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "uintptr_t", "unsigned",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="cpp",
    grammar_module="tree_sitter_cpp",
    query=QUERY,
    refine=_refine,
    imports=cfamily.includes,
    heritage=_heritage,
    clean_type=_clean_type,
    body_fields=("body", "value"),
    wrapper_types=frozenset({"template_declaration"}),
    name_types=frozenset({"type_identifier"}),
    qualified_types=frozenset({"qualified_identifier"}),
    builtin_types=(cfamily.BUILTIN_TYPES - PRIMITIVES)
    | {"std::string", "string", "std::vector", "vector"},
    self_names=frozenset({"this"}),
    self_prefix="this",
    skip_refs=frozenset({"this", "nullptr", "NULL"}),
    separator="::",
)
