"""Scala: packages, classes, case classes, objects, traits, enums, defs, vals.

Conventions decided here:
- ``package a.b`` becomes a one-line ``namespace`` symbol named ``a.b`` (as Java).
- ``class``/``case class`` and ``object`` are ``class``es (an object and its members are
  static), ``trait`` a ``trait``, ``enum`` an ``enum``. A companion ``object X`` is a second
  symbol named like its class ``X`` (the resolver lets the name denote the class, whose
  members include the companion's).
- ``def`` is a ``method`` inside a type, else a ``function`` (Scala 3 top-level defs);
  ``val``/``var`` are ``field``s in a type, ``variable``s elsewhere at top level.
- ``extends A with B`` are ``extends`` references (the resolver tells traits apart).
- ``new X(...)`` is ``instantiates``; ``X(...)`` is a call (``apply``), which the resolver
  turns into an instantiation when X is a class.
- Imports: ``import a.b.C`` -> (``a.b``, ``C``); ``import a.b._``/``a.b.*`` -> wildcard;
  ``import a.b.{C => D, E}`` -> one import per selector, ``D`` an alias.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_NAME = "name: _ @name"
_NEW = (
    "[(type_identifier) @name (generic_type type: (type_identifier) @name)"
    " (stable_type_identifier) @qname]"
)

_VALUE_BINDINGS = "\n".join(
    f"""({kind} pattern: (identifier) @name type: (_) @bind.type) @bind
({kind} pattern: (identifier) @name !type
  value: (instance_expression . [(type_identifier) (generic_type)] @bind.new)) @bind
({kind} pattern: (identifier) @name !type
  value: (call_expression function: [(identifier) (field_expression)] @bind.call)) @bind"""
    for kind in ("val_definition", "var_definition")
)

QUERY = f"""
(package_clause name: (package_identifier) @name) @def.namespace
(class_definition {_NAME}) @def.class
(object_definition {_NAME}) @def.class
(trait_definition {_NAME}) @def.trait
(enum_definition {_NAME}) @def.enum
(function_definition {_NAME} return_type: (_)? @returns) @def.function
(function_declaration {_NAME} return_type: (_)? @returns) @def.function
(template_body [(val_definition pattern: (identifier) @name)
  (var_definition pattern: (identifier) @name)] @def.field)
(compilation_unit [(val_definition pattern: (identifier) @name)
  (var_definition pattern: (identifier) @name)] @def.variable)

(call_expression function: (identifier) @name arguments: (_) @args) @call
(call_expression function: (field_expression value: (_) @recv field: (identifier) @name)
  arguments: (_) @args) @call
(call_expression function: (generic_function function: (identifier) @name)
  arguments: (_) @args) @call
(instance_expression {_NEW} arguments: (_)? @args) @new

(arguments (identifier) @ref)

(parameter name: (identifier) @name type: (_) @bind.type) @bind
(class_parameter name: (identifier) @name type: (_) @bind.type) @bind
{_VALUE_BINDINGS}
[(comment) (block_comment)] @comment
(annotation) @decoration
(import_declaration) @import
"""

_TEST_ANNOTATIONS = frozenset({"Test"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    if sym.kind == "namespace":
        sym.signature = "package " + sym.name
        return
    parent = ctx.parent
    if sym.kind == "function" and parent is not None and parent.kind in TYPE_KINDS:
        sym.kind = "method"
    modifiers = _modifiers(node, ctx.src)
    if "private" in modifiers:
        sym.visibility, sym.is_exported = "private", False
    elif "protected" in modifiers:
        sym.visibility, sym.is_exported = "protected", False
    holder = node.parent.parent if node.parent is not None else None
    in_object = holder is not None and holder.type == "object_definition"
    sym.is_static = in_object or node.type == "object_definition"
    if sym.kind == "method" and _TEST_ANNOTATIONS.intersection(sym.decorators):
        sym.kind = "test"


def _modifiers(node: Node, src: bytes) -> set[str]:
    mods = next((c for c in node.named_children if c.type == "modifiers"), None)
    return set(node_text(mods, src).split()) if mods is not None else set()


def _heritage(node: Node) -> list[tuple[str, Node]]:
    clause = node.child_by_field_name("extend")
    if clause is None:
        return []
    found: list[tuple[str, Node]] = []
    for base in clause.children_by_field_name("type"):
        if not base.is_named:  # the `with` keyword shares the field
            continue
        target = base.child_by_field_name("type") if base.type == "generic_type" else base
        found.append(("extends", target or base))
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    parts = [node_text(p, src) for p in node.children_by_field_name("path") if p.is_named]
    base = ".".join(parts)
    last = node.named_children[-1] if node.named_children else None
    if last is None:
        return []
    if last.type == "namespace_wildcard":
        return [ImportSpec(base, is_wildcard=True)]
    if last.type != "namespace_selectors":
        module, _, member = base.rpartition(".")
        return [ImportSpec(module, member)]
    found: list[ImportSpec] = []
    for selector in last.named_children:
        if selector.type == "identifier":
            found.append(ImportSpec(base, node_text(selector, src)))
        elif selector.type == "arrow_renamed_identifier":
            original = selector.child_by_field_name("name")
            alias = selector.child_by_field_name("alias")
            if original is not None and alias is not None:
                alias_text = node_text(alias, src)
                if alias_text != "_":  # `{X => _}` hides X
                    found.append(ImportSpec(base, node_text(original, src), alias_text))
        elif selector.type == "namespace_wildcard":
            found.append(ImportSpec(base, is_wildcard=True))
    return found


_BUILTIN_TYPES = frozenset(
    {
        "Int", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Char", "String", "Unit",
        "Any", "AnyRef", "Nothing", "Option", "Some", "List", "Seq", "Vector", "Map", "Set",
        "Array", "Future", "Either", "Try", "Iterator", "Iterable",
        *"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="scala",
    grammar_module="tree_sitter_scala",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    body_fields=("body",),
    name_types=frozenset({"type_identifier"}),
    qualified_types=frozenset({"stable_type_identifier"}),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"this"}),
    self_prefix="this",
    skip_refs=frozenset({"this"}),
)
