"""Java: types, members, annotations, imports.

Conventions decided here:
- ``package a.b;`` becomes a ``namespace`` symbol named ``a.b`` (no children: qualified
  names stay local to the file), so that the resolver knows the file's package.
- Classes and records are ``class``es, ``@interface`` an ``interface``; fields are
  ``field`` (``constant`` when ``static final``); methods annotated ``@Test`` (or
  ``@ParameterizedTest``...) are ``test``s.
- Visibility from modifiers; no modifier is ``internal`` (package-private), except in
  interfaces where members are public. Exported means public.
- Annotations are decorators, written without ``@``.
- Imports: ``import a.b.C;`` -> module ``a.b``, name ``C``; ``import a.b.*;`` -> module
  ``a.b``, wildcard; ``import static a.b.C.m;`` -> module ``a.b.C``, name ``m``.
- Fields bind both ``x`` and ``this.x`` in the class scope; ``var x = new Foo()`` binds
  ``Foo``; ``for (Foo f : xs)`` and ``catch (FooError e)`` bind ``f`` and ``e``
  (``catch (A | B e)``: one of them).
- A call on a cast, ``((Node) child).eval()``, has the cast's type as its receiver.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_TYPE = "[(type_identifier) @name (generic_type (type_identifier) @name)"
_QTYPE = "(scoped_type_identifier) @qname (generic_type (scoped_type_identifier) @qname)]"
_NOT_VAR = '(#not-eq? @bind.type "var")'
# `((Node) child).eval()`, `((Node) get(0)).eval()`: the object is a cast (of a name, or of
# a call with plain arguments), whose type is what the call is made on
_CAST = r'"^\\(\\s*\\([\\w.<>\\[\\], ?]+\\)\\s*[\\w.$\\[\\]]+(\\([^()]*\\))?\\s*\\)$"'

QUERY = f"""
(package_declaration [(identifier) (scoped_identifier)] @name) @def.namespace
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(enum_constant name: (identifier) @name) @def.enum_member
(method_declaration type: (_) @returns name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @def.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @def.constant

(method_invocation object: (_) @recv name: (identifier) @name arguments: (_) @args
  (#not-match? @recv {_CAST})) @call
(method_invocation object: (parenthesized_expression (cast_expression type: [
  (type_identifier) @recv (scoped_type_identifier) @recv (generic_type . (_) @recv)])) @_cast
  name: (identifier) @name arguments: (_) @args (#match? @_cast {_CAST})) @call
(method_invocation !object name: (identifier) @name arguments: (_) @args) @call
(explicit_constructor_invocation constructor: (_) @name arguments: (_) @args) @call
(object_creation_expression type: {_TYPE} {_QTYPE} arguments: (_) @args) @new

(argument_list [(identifier) (field_access) (method_reference)] @ref)

(field_declaration type: (_) @bind.type declarator: (variable_declarator
  name: (identifier) @name)) @bind
(type_parameter (type_identifier) @name (type_bound . (type_identifier) @bind.bound)) @bind
(type_parameter (type_identifier) @type_param)
(local_variable_declaration type: (_) @bind.type declarator: (variable_declarator
  name: (identifier) @name) {_NOT_VAR}) @bind
(local_variable_declaration type: (type_identifier) @_var declarator: (variable_declarator
  name: (identifier) @name value: (object_creation_expression type: (_) @bind.new))
  (#eq? @_var "var")) @bind
(local_variable_declaration type: (type_identifier) @_var declarator: (variable_declarator
  name: (identifier) @name value: (method_invocation) @bind.call) (#eq? @_var "var")) @bind
(formal_parameter type: (_) @bind.type name: (identifier) @name) @bind
(enhanced_for_statement type: (_) @bind.type name: (identifier) @name {_NOT_VAR}) @bind
(catch_formal_parameter (catch_type) @bind.type name: (identifier) @name) @bind

[(line_comment) (block_comment)] @comment
[(marker_annotation) (annotation)] @decoration
(import_declaration) @import
"""

_TEST_ANNOTATIONS = frozenset({"Test", "ParameterizedTest", "RepeatedTest", "TestFactory"})
_VISIBILITY = ("public", "protected", "private")
_OPEN_MEMBERS = frozenset({"interface"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    if sym.kind == "namespace":
        return
    first = node.named_child(0)
    tokens = (
        {c.type for c in first.children}
        if first is not None and first.type == "modifiers"
        else set()
    )
    parent = ctx.parent
    visibility = next((v for v in _VISIBILITY if v in tokens), "")
    if not visibility:
        open_member = parent is not None and parent.kind in _OPEN_MEMBERS
        visibility = "public" if open_member or sym.kind == "enum_member" else "internal"
    sym.visibility = visibility
    sym.is_exported = visibility == "public"
    sym.is_static = "static" in tokens
    if sym.kind == "field" and {"static", "final"} <= tokens:
        sym.kind = "constant"
    elif sym.kind == "method" and _TEST_ANNOTATIONS.intersection(
        d.split("(", 1)[0].rsplit(".", 1)[-1] for d in sym.decorators
    ):
        sym.kind = "test"


def _heritage(node: Node) -> list[tuple[str, Node]]:
    found: list[tuple[str, Node]] = []
    superclass = node.child_by_field_name("superclass")
    base = superclass.named_child(0) if superclass is not None else None
    if base is not None:
        found.append(("extends", base))
    for child in node.named_children:
        if child.type in ("super_interfaces", "extends_interfaces"):
            kind = "implements" if child.type == "super_interfaces" else "extends"
            for type_list in child.named_children:
                found += [(kind, t) for t in type_list.named_children]
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    target = next(
        (c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None
    )
    if target is None:
        return []
    text = node_text(target, src)
    if any(c.type == "asterisk" for c in node.named_children):
        return [ImportSpec(text, is_wildcard=True)]
    module, _, name = text.rpartition(".")
    return [ImportSpec(module, name)]


_BUILTIN_TYPES = frozenset(
    {
        "String", "Object", "Integer", "Long", "Boolean", "Double", "Float", "Short", "Byte",
        "Character", "Void", "Number", "List", "Map", "Set", "Optional", "Collection",
        "Iterable", "Iterator", "Stream", "ArrayList", "HashMap", "HashSet", "LinkedList",
        "Class", "Exception", "RuntimeException", "Throwable", "CharSequence", "Comparable",
        "Runnable", "Function", "Supplier", "Consumer", "Predicate", "BiFunction", "int",
        "long", "boolean", "double", "float", "short", "byte", "char", "void",
        *"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="java",
    grammar_module="tree_sitter_java",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    name_types=frozenset({"type_identifier"}),
    qualified_types=frozenset({"scoped_type_identifier"}),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"this"}),
    self_prefix="this",
    skip_refs=frozenset({"this"}),
    closure_types=frozenset({"lambda_expression"}),
)
