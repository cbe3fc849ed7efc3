"""Dart: classes, mixins, enums, extensions, methods, constructors, functions, fields.

The grammar (``tree-sitter-dart``) puts a function's signature and its body side by side
instead of under one node, and writes a call as a flat run of siblings (``a``, ``.b``,
``(args)``). Patterns here therefore match sibling sequences: a function's symbol node
is its *body* (so that calls inside it are its own; its signature, start line and
doc come from the signature beside it, see ``_refine``), and a call is captured on its
name identifier.

Conventions decided here:
- ``class`` is a ``class``, ``mixin`` a ``trait``, ``enum`` an ``enum`` (values
  ``enum_member``). ``extension E on T`` is not a symbol: its members belong to ``T``.
- Methods, getters and setters are ``method``s; constructors (named ones too, and
  ``factory``) are ``constructor``s named like the class; abstract methods are methods.
- Names starting with ``_`` are library-private (``private``, not exported).
- ``extends`` is ``extends``; ``with`` mixins are ``extends`` (their members are found as
  inherited); ``implements`` is ``implements``.
- Parameters are bound in the enclosing type's scope (the signature lies outside the body
  node); a use picks the nearest parameter declared above it, its own method's.
- Calls on a one-segment receiver (``repo.store()``, ``util.format()``) keep it; longer
  chains (``this.repo.store()``) are calls on an unknown receiver.
- ``import 'uri'`` -> Import(module=uri, wildcard); ``as p`` -> alias ``p`` (module bound);
  ``show A, B`` -> one import per name; ``export``/``part`` -> wildcard re-export.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import SIGNATURE_MAX, cap, node_text, one_line

_NAMED = "name: (identifier) @name"
_SIGS = f"[(function_signature {_NAMED}) (getter_signature {_NAMED}) (setter_signature {_NAMED})]"
_ARGS = "(selector (argument_part (arguments) @args))"
_MEMBER = (
    "(selector [(unconditional_assignable_selector (identifier) @name @call)"
    " (conditional_assignable_selector (identifier) @name @call)])"
)

QUERY = f"""
(class_definition {_NAMED}) @def.class
(mixin_declaration (identifier) @name) @def.trait
(enum_declaration {_NAMED}) @def.enum
(enum_constant {_NAMED}) @def.enum_member
(extension_declaration class: (type_identifier) @owner.type) @owner
((method_signature {_SIGS}) . (function_body) @def.method)
((method_signature (constructor_signature . (identifier) @name)) . (function_body)
  @def.constructor)
((method_signature (factory_constructor_signature . (identifier) @name)) . (function_body)
  @def.constructor)
(declaration (function_signature {_NAMED})) @def.method
(declaration (constructor_signature . (identifier) @name)) @def.constructor
(class_body (declaration (initialized_identifier_list
  . (initialized_identifier (identifier) @name))) @def.field)
((function_signature {_NAMED}) . (function_body) @def.function)

((identifier) @name @call . {_ARGS})
([(identifier) (this)] @recv . {_MEMBER} . {_ARGS})
(new_expression (type_identifier) @name (arguments) @args) @new
(const_object_expression (type_identifier) @name (arguments) @args) @new

(argument (identifier) @ref .)

(formal_parameter (type_identifier) @bind.type name: (identifier) @name) @bind
(declaration (type_identifier) @bind.type
  (initialized_identifier_list (initialized_identifier (identifier) @name))) @bind
(initialized_variable_definition name: (identifier) @name
  . value: (identifier) @bind.call . value: {_ARGS}) @bind
(initialized_variable_definition name: (identifier) @name
  value: (new_expression (type_identifier) @bind.new)) @bind

[(comment) (documentation_comment)] @comment
(annotation) @decoration
(import_or_export) @import
(part_directive) @import
"""


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    if node.type == "function_body":
        _from_signature(sym, node, ctx.src)
    parent = ctx.parent
    if sym.kind == "function" and parent is not None and parent.kind in TYPE_KINDS:
        sym.kind = "method"
    if sym.kind == "method" and ctx.owner is None and (parent is None or parent.kind not in
                                                       TYPE_KINDS):  # fmt: skip
        sym.kind = "function"
    if sym.name.startswith("_"):
        sym.visibility, sym.is_exported = "private", False
    if sym.kind == "trait":
        sym.signature = sym.signature.split("{", 1)[0].strip()
    header = node.prev_named_sibling if node.type == "function_body" else node
    sym.is_static = header is not None and node_text(header, ctx.src).startswith("static ")


def _from_signature(sym: Symbol, body: Node, src: bytes) -> None:
    """A body's symbol takes its header, start and doc from the signature beside it."""
    signature = body.prev_named_sibling
    if signature is None:
        return
    sym.signature = cap(one_line(node_text(signature, src)), SIGNATURE_MAX)
    row, col = signature.start_point
    sym.start_line, sym.start_col = row + 1, col
    above = signature.prev_named_sibling
    if not sym.docstring and above is not None and above.type == "documentation_comment":
        sym.docstring = node_text(above, src).removeprefix("///").strip()


def _heritage(node: Node) -> list[tuple[str, Node]]:
    found: list[tuple[str, Node]] = []
    superclass = node.child_by_field_name("superclass")
    if superclass is not None:
        for child in superclass.named_children:
            if child.type == "type_identifier":
                found.append(("extends", child))
            elif child.type == "mixins":
                found += [("extends", c) for c in child.named_children if c.is_named]
    interfaces = node.child_by_field_name("interfaces")
    if interfaces is not None:
        found += [("implements", c) for c in interfaces.named_children]
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    uri = _first(node, "string_literal")
    if uri is None:
        return []
    module = node_text(uri, src).strip("'\"")
    spec = _first(node, "import_specification")
    if spec is None:  # export or part: the names become this library's
        return [ImportSpec(module, is_wildcard=True, is_reexport=True)]
    alias = next((c for c in spec.named_children if c.type == "identifier"), None)
    if alias is not None:
        return [ImportSpec(module, alias=node_text(alias, src))]
    shown = [
        node_text(name, src)
        for combinator in spec.named_children
        if combinator.type == "combinator" and node_text(combinator, src).startswith("show")
        for name in combinator.named_children
    ]
    if shown:
        return [ImportSpec(module, name) for name in shown]
    return [ImportSpec(module, is_wildcard=True)]


def _first(node: Node, kind: str) -> Node | None:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            return current
        stack.extend(reversed(current.named_children))
    return None


_BUILTIN_TYPES = frozenset(
    {
        "int", "double", "num", "bool", "String", "void", "dynamic", "Object", "List", "Map",
        "Set", "Iterable", "Future", "Stream", "Function", "Null", "Never", "Duration",
        "DateTime", "var", "final",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="dart",
    grammar_module="tree_sitter_dart",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    body_fields=("body",),
    name_types=frozenset({"type_identifier"}),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"this"}),
    self_prefix="this",
    skip_refs=frozenset({"this"}),
)
