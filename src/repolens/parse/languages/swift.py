"""Swift: classes, structs, enums, actors, protocols, extensions, functions, properties.

Conventions decided here:
- One grammar node covers ``class``/``struct``/``enum``/``actor``/``extension``; the
  keyword decides the kind (``actor`` is a ``class``). ``protocol`` is a ``protocol``.
- An ``extension T`` is not a symbol: its members belong to ``T`` (attached when ``T`` is
  defined in the same file, else qualified ``T.member``), and its conformances
  (``extension T: P``) are ``implements`` references of ``T``.
- ``func`` is a ``method`` inside a type, else a ``function``; ``init`` is a
  ``constructor`` named ``init``; stored and computed properties are ``field``s (top-level
  ``variable``s); ``static``/``class`` members are static. ``test*`` methods of
  ``XCTestCase`` subclasses are ``test``s.
- Visibility from modifiers, ``internal`` by default (module-wide); exported means
  ``public``/``open``/``internal`` (visible to the module's other files).
- Inheritance clauses are ``extends`` for the first entry of a class, ``implements``
  otherwise (protocols).
- ``import Mod`` -> Import(module="Mod", wildcard).
- The grammar reads ``a + f()`` as a call of ``a + f``: the call is ``f``'s (the operand
  right of the operator).
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_SID = "(simple_identifier) @name"
_PATTERN = "name: (pattern bound_identifier: _ @name)"
# A function's return type shares the `name` field with its name; a typed child pattern
# would tell them apart but costs half a second of query compilation, a predicate nothing.
_FUNC_NAME = '(#match? @name "^[a-z_][A-Za-z0-9_]*$")'
_TYPES = "[(user_type) (optional_type) (array_type) (dictionary_type)]"

QUERY = f"""
(class_declaration name: (type_identifier) @name) @def.class
(class_declaration "extension" name: (user_type (type_identifier) @owner.type)
  (inheritance_specifier inherits_from: (_) @owner.trait)?) @owner
(protocol_declaration name: (type_identifier) @name) @def.protocol
(function_declaration name: _ @name {_FUNC_NAME}) @def.function
(protocol_function_declaration name: _ @name {_FUNC_NAME}) @def.method
(init_declaration "init" @name) @def.constructor
(class_body (property_declaration {_PATTERN}) @def.field)
(source_file (property_declaration {_PATTERN}) @def.variable)
(enum_entry name: _ @name @def.enum_member)
(typealias_declaration name: (type_identifier) @name) @def.type_alias

(call_expression . {_SID} (call_suffix (value_arguments)? @args)) @call
(call_expression . (navigation_expression target: (_) @recv
  suffix: (navigation_suffix suffix: _ @name)) (call_suffix (value_arguments)? @args)) @call
(call_expression . (_ rhs: (simple_identifier) @name) (call_suffix (value_arguments)? @args))
  @call
(call_expression . (_ rhs: (navigation_expression target: (_) @recv
  suffix: (navigation_suffix suffix: _ @name))) (call_suffix (value_arguments)? @args)) @call

(value_argument value: (simple_identifier) @ref)

(property_declaration {_PATTERN} (type_annotation {_TYPES} @bind.type)) @bind
(property_declaration {_PATTERN}
  value: (call_expression . [(simple_identifier) (navigation_expression)] @bind.call)) @bind
(parameter (simple_identifier) @name {_TYPES} @bind.type) @bind

[(comment) (multiline_comment)] @comment
(attribute) @decoration
(import_declaration) @import
"""

_KINDS = {"struct": "struct", "enum": "enum", "actor": "class", "class": "class"}
_VISIBILITY = ("public", "open", "internal", "fileprivate", "private")


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    if node.type == "class_declaration":
        keyword = next((c.type for c in node.children if c.type in _KINDS), "class")
        sym.kind = _KINDS[keyword]
    parent = ctx.parent
    in_type = (parent is not None and parent.kind in TYPE_KINDS) or ctx.owner is not None
    if sym.kind == "function" and in_type:
        sym.kind = "method"
    modifiers = _modifiers(node, ctx.src)
    visibility = next((v for v in _VISIBILITY if v in modifiers), "internal")
    sym.visibility = {"open": "public", "fileprivate": "private"}.get(visibility, visibility)
    sym.is_exported = sym.visibility != "private"
    sym.is_static = "static" in modifiers or "class" in modifiers
    testing = parent is not None and "XCTestCase" in parent.bases
    if sym.kind == "method" and sym.name.startswith("test") and testing:
        sym.kind = "test"


def _modifiers(node: Node, src: bytes) -> set[str]:
    mods = next((c for c in node.named_children if c.type == "modifiers"), None)
    return set(node_text(mods, src).split()) if mods is not None else set()


def _heritage(node: Node) -> list[tuple[str, Node]]:
    if node.type not in ("class_declaration", "protocol_declaration"):
        return []
    found: list[tuple[str, Node]] = []
    is_class = any(c.type == "class" for c in node.children)
    for spec in node.named_children:
        if spec.type != "inheritance_specifier":
            continue
        base = spec.child_by_field_name("inherits_from")
        if base is not None:
            first = is_class and not found
            found.append(("extends" if first or node.type != "class_declaration" else
                          "implements", base))  # fmt: skip
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    target = next((c for c in node.named_children if c.type == "identifier"), None)
    if target is None:
        return []
    return [ImportSpec(node_text(target, src), is_wildcard=True)]


def _clean_type(text: str) -> str:
    return text.strip().rstrip("?!")


_BUILTIN_TYPES = frozenset(
    {
        "Int", "Int32", "Int64", "UInt", "Double", "Float", "Bool", "String", "Character",
        "Void", "Any", "AnyObject", "Array", "Dictionary", "Set", "Optional", "Data", "Date",
        "URL", "Error", "Result", "Self",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="swift",
    grammar_module="tree_sitter_swift",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    clean_type=_clean_type,
    name_types=frozenset({"type_identifier"}),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"self"}),
    self_prefix="self",
    skip_refs=frozenset({"self"}),
)
