"""C#: namespaces, types (partial ones too), members, attributes, ``using`` directives.

Conventions decided here:
- ``namespace A.B { ... }`` and ``namespace A.B;`` become a one-line ``namespace`` symbol
  named ``A.B`` that holds nothing, as Java's ``package``: a namespace spans many files,
  so types stay top-level names of their file and the resolver groups files by namespace.
- Classes and records are ``class``es; ``struct``, ``interface`` and ``enum`` as named.
  A ``partial`` class is one symbol per file; the resolver finds members across them.
- Members: ``method``, ``constructor``, ``property``, ``field`` (``constant`` when
  ``const``), ``enum_member``. Methods with ``[Fact]``/``[Test]``/``[TestMethod]``/
  ``[Theory]`` are ``test``s (attributes are not recorded as decorators yet).
- Visibility from modifiers; members default to ``private``, top-level types to
  ``internal``, interface members to ``public``. Exported means public.
- Base list: by .NET naming, ``IName`` is ``implements``, anything else ``extends``.
- A constructor's ``: base(...)``/``: this(...)`` is a call named ``base``/``this``.
- ``using A.B;`` -> Import(module="A.B", wildcard); ``using X = A.B.C;`` -> Import(
  module="A.B", name="C", alias="X"); ``using static A.B.C;`` -> Import(module="A.B.C",
  wildcard).
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text, short_text

_NAME = "name: (identifier) @name"
_TYPE = "[(identifier) @name (generic_name (identifier) @name) (qualified_name) @qname]"
_VAR = "(variable_declaration type: (_) @bind.type (variable_declarator name: (identifier) @name))"

QUERY = f"""
(namespace_declaration name: (_) @name @def.namespace)
(file_scoped_namespace_declaration name: (_) @name @def.namespace)
(class_declaration {_NAME}) @def.class
(record_declaration {_NAME}) @def.class
(struct_declaration {_NAME}) @def.struct
(interface_declaration {_NAME}) @def.interface
(enum_declaration {_NAME}) @def.enum
(enum_member_declaration {_NAME}) @def.enum_member
(method_declaration returns: (_) @returns {_NAME}) @def.method
(constructor_declaration {_NAME}) @def.constructor
(property_declaration {_NAME}) @def.property
(field_declaration (variable_declaration (variable_declarator {_NAME}))) @def.field
(delegate_declaration {_NAME}) @def.type_alias

(invocation_expression function: (identifier) @name arguments: (_) @args) @call
(invocation_expression function: (generic_name (identifier) @name) arguments: (_) @args) @call
(invocation_expression function: (member_access_expression expression: _ @recv
  name: [(identifier) @name (generic_name (identifier) @name)]) arguments: (_) @args) @call
(object_creation_expression type: {_TYPE} arguments: (_)? @args) @new
(constructor_initializer ["base" "this"] @name (argument_list) @args) @call

(argument (identifier) @ref)

(field_declaration {_VAR}) @bind
(local_declaration_statement (variable_declaration type: (_) @bind.type
  (variable_declarator name: (identifier) @name)) (#not-eq? @bind.type "var")) @bind
(local_declaration_statement (variable_declaration type: (implicit_type)
  (variable_declarator name: (identifier) @name
  (object_creation_expression type: (_) @bind.new)))) @bind
(local_declaration_statement (variable_declaration type: (implicit_type)
  (variable_declarator name: (identifier) @name
  (invocation_expression function: (_) @bind.call)))) @bind
(parameter type: (_) @bind.type name: (identifier) @name) @bind
(property_declaration type: (_) @bind.type name: (identifier) @name) @bind

(comment) @comment
(using_directive) @import
"""

_VISIBILITY = ("public", "protected", "private", "internal")
_TEST_ATTRIBUTES = frozenset({"Fact", "Theory", "Test", "TestMethod", "TestCase"})
_TYPES = frozenset({"class", "struct", "interface", "enum"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    if sym.kind == "namespace":
        sym.signature = "namespace " + sym.name
        return
    tokens = {node_text(c, ctx.src) for c in ctx.node.children if c.type == "modifier"}
    parent = ctx.parent
    visibility = next((v for v in _VISIBILITY if v in tokens), "")
    if not visibility:
        if parent is not None and parent.kind in ("interface", "enum"):
            visibility = "public"
        else:
            visibility = "internal" if parent is None and sym.kind in _TYPES else "private"
    sym.visibility = visibility
    sym.is_exported = visibility == "public"
    sym.is_static = "static" in tokens or "const" in tokens
    if sym.kind == "field" and "const" in tokens:
        sym.kind = "constant"
    elif sym.kind == "method" and _TEST_ATTRIBUTES.intersection(_attributes(ctx.node, ctx.src)):
        sym.kind = "test"
    sym.decorators = _attribute_texts(ctx.node, ctx.src)


def _attributes(node: Node, src: bytes) -> list[str]:
    """Attribute names on a declaration (``[Fact]``, ``[Xunit.Theory(...)]`` -> ``Theory``).

    Read here rather than through ``@decoration``: the engine's decoration text does not
    know C#'s bracket syntax, and a bracketed list would become a bogus reference."""
    names: list[str] = []
    for group in node.named_children:
        if group.type == "attribute_list":
            for attr in group.named_children:
                name = attr.child_by_field_name("name")
                if name is not None:
                    names.append(node_text(name, src).rsplit(".", 1)[-1])
    return names


def _attribute_texts(node: Node, src: bytes) -> tuple[str, ...]:
    """Each attribute as written, brackets off (``HttpGet("{id}")``): what framework rules
    read, as they read other languages' decorators (ASP.NET's routes)."""
    return tuple(
        short_text(attr, src)
        for group in node.named_children
        if group.type == "attribute_list"
        for attr in group.named_children
        if attr.type == "attribute"
    )


def _heritage(node: Node) -> list[tuple[str, Node]]:
    bases = next((c for c in node.named_children if c.type == "base_list"), None)
    if bases is None:
        return []
    found: list[tuple[str, Node]] = []
    for base in bases.named_children:
        if base.type in ("argument_list", "comment"):
            continue
        head = (base.text or b"").decode().rsplit(".", 1)[-1]
        is_interface = len(head) > 1 and head[0] == "I" and head[1].isupper()
        own = node.type == "interface_declaration"
        found.append(("implements" if is_interface and not own else "extends", base))
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    target = next(
        (c for c in node.named_children if c.type in ("qualified_name", "identifier")
         and node.field_name_for_named_child(node.named_children.index(c)) != "name"),
        None,
    )  # fmt: skip
    if target is None:
        return []
    alias = node.child_by_field_name("name")
    return namespace_import(node_text(target, src), node_text(alias, src) if alias else None)


def namespace_import(text: str, alias: str | None) -> list[ImportSpec]:
    """``using A.B`` brings a namespace's types; ``using X = A.B.C`` binds ``X`` to ``C``
    (VB.NET's ``Imports`` say the same)."""
    text = text.replace(" ", "")
    if alias is not None:
        module, _, name = text.rpartition(".")
        return [ImportSpec(module, name, alias=alias)]
    return [ImportSpec(text, is_wildcard=True)]


def _clean_type(text: str) -> str:
    """``Repo?`` and ``Task<Repo>`` keep their element's members for a receiver."""
    text = text.strip().rstrip("?")
    if text.startswith("Task<") and text.endswith(">"):
        text = text[5:-1]
    return text


_BUILTIN_TYPES = frozenset(
    {
        "int", "long", "short", "byte", "sbyte", "uint", "ulong", "ushort", "float", "double",
        "decimal", "bool", "char", "string", "object", "void", "dynamic", "var", "String",
        "Object", "Int32", "Int64", "Boolean", "Double", "List", "Dictionary", "HashSet",
        "IEnumerable", "IList", "IDictionary", "ICollection", "IReadOnlyList", "Task",
        "ValueTask", "Action", "Func", "Exception", "DateTime", "TimeSpan", "Guid", "Type",
        *"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="csharp",
    grammar_module="tree_sitter_c_sharp",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    clean_type=_clean_type,
    body_fields=("body", "accessors", "value"),
    name_types=frozenset({"identifier"}),
    qualified_types=frozenset({"qualified_name"}),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"this"}),
    self_prefix="this",
    skip_refs=frozenset({"this", "null"}),
)
