"""PHP: namespaces, classes, interfaces, traits, enums, functions; ``use`` and ``require``.

Conventions decided here:
- ``namespace A\\B;`` (or a braced namespace) is a one-line ``namespace`` symbol named
  ``A\\B`` holding nothing, as Java's ``package``; classes stay top-level names of their file.
- Methods are ``method``s (``constructor`` for ``__construct``); properties are ``field``s
  named without ``$``; ``const`` is a ``constant``. ``test*`` methods of ``*Test`` classes
  are ``test``s. Visibility from modifiers (default ``public``).
- ``extends`` and trait ``use`` are ``extends`` references (a trait's methods are found
  like inherited ones); ``implements`` are ``implements``.
- ``$this->m()``, ``$x->m()``, ``A::m()``, ``self::m()`` and ``new A`` are calls on a
  receiver; variables keep their ``$`` so that they match their bindings.
- ``use A\\B\\C as D;`` -> Import(module="A\\B", name="C", alias="D") (grouped uses and
  ``use function`` alike); ``require``/``include`` of a literal path (optionally
  ``__DIR__ . '/x.php'``) -> Import(module=path, wildcard), ``./``-prefixed when relative
  to the file.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_NAME = "name: (name) @name"
_RELATIVE = '(#not-match? @name "^(static|self|parent)$")'
_REQUIRES = (
    "[(require_expression) (require_once_expression) (include_expression)"
    " (include_once_expression)] @import"
)

QUERY = f"""
(namespace_definition name: (namespace_name) @name @def.namespace)
(class_declaration {_NAME}) @def.class
(interface_declaration {_NAME}) @def.interface
(trait_declaration {_NAME}) @def.trait
(enum_declaration {_NAME}) @def.enum
(enum_case {_NAME}) @def.enum_member
(method_declaration {_NAME} return_type: (_)? @returns) @def.method
(function_definition {_NAME} return_type: (_)? @returns) @def.function
(property_declaration (property_element name: (variable_name (name) @name))) @def.field
(const_declaration (const_element (name) @name)) @def.constant

(function_call_expression function: (name) @name arguments: (_) @args) @call
(function_call_expression function: (qualified_name) @qname arguments: (_) @args) @call
(member_call_expression object: (_) @recv name: (name) @name arguments: (_) @args) @call
(nullsafe_member_call_expression object: (_) @recv name: (name) @name arguments: (_) @args)
  @call
(scoped_call_expression scope: (_) @recv name: (name) @name arguments: (_) @args) @call
(object_creation_expression (name) @name (arguments)? @args {_RELATIVE}) @new
(object_creation_expression (qualified_name) @qname (arguments)? @args) @new

(property_declaration type: (_) @bind.type
  (property_element name: (variable_name (name) @name))) @bind
(simple_parameter type: (_) @bind.type name: (variable_name) @name) @bind
(property_promotion_parameter type: (_) @bind.type
  name: (variable_name (name) @name @field)) @bind
(assignment_expression left: (variable_name) @name
  right: (object_creation_expression [(name) (qualified_name)] @bind.new)) @bind

(comment) @comment
(attribute_list) @decoration
(namespace_use_declaration) @import
{_REQUIRES}
"""

_VISIBILITY = ("public", "protected", "private")


def _refine(sym: Symbol, ctx: DefContext) -> None:
    if sym.kind == "namespace":
        sym.signature = "namespace " + sym.name
        return
    node = ctx.node
    tokens = {
        node_text(c, ctx.src)
        for c in node.children
        if c.type in ("visibility_modifier", "static_modifier", "abstract_modifier")
    }
    visibility = next((v for v in _VISIBILITY if v in tokens), "public")
    sym.visibility = visibility
    sym.is_exported = visibility == "public"
    sym.is_static = "static" in tokens
    if sym.kind == "method":
        parent = ctx.parent
        if sym.name == "__construct":
            sym.kind = "constructor"
        elif sym.name.startswith("test") and parent is not None and parent.name.endswith("Test"):
            sym.kind = "test"


def _heritage(node: Node) -> list[tuple[str, Node]]:
    found: list[tuple[str, Node]] = []
    for child in node.named_children:
        if child.type == "base_clause":
            found += [("extends", c) for c in child.named_children if c.type != "comment"]
        elif child.type == "class_interface_clause":
            found += [("implements", c) for c in child.named_children if c.type != "comment"]
        elif child.type == "declaration_list":
            for member in child.named_children:
                if member.type == "use_declaration":  # traits
                    found += [("extends", c) for c in member.named_children if c.type == "name"
                              or c.type == "qualified_name"]  # fmt: skip
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    if node.type != "namespace_use_declaration":
        return _require(node, src)
    prefix = ""
    group = node.child_by_field_name("body")
    if group is not None:
        head = next((c for c in node.named_children if c.type == "namespace_name"), None)
        prefix = node_text(head, src).strip("\\") + "\\" if head is not None else ""
    clauses = group.named_children if group is not None else node.named_children
    found: list[ImportSpec] = []
    for clause in clauses:
        if clause.type != "namespace_use_clause":
            continue
        names = [c for c in clause.named_children if c.type in ("qualified_name", "name")]
        if not names:
            continue
        target = names[0]
        alias = clause.child_by_field_name("alias")
        full = (prefix + node_text(target, src)).strip("\\")
        module, _, name = full.rpartition("\\")
        spec = ImportSpec(module, name, node_text(alias, src) if alias is not None else None)
        spec.line = clause.start_point[0] + 1
        found.append(spec)
    return found


def _require(node: Node, src: bytes) -> list[ImportSpec]:
    """``require 'x.php'`` or ``require __DIR__ . '/x.php'``: a literal path only."""
    arg = node.named_child(0)
    if arg is not None and arg.type == "parenthesized_expression":
        arg = arg.named_child(0)
    if arg is None:
        return []
    relative = False
    if arg.type == "binary_expression":
        left, right = arg.child_by_field_name("left"), arg.child_by_field_name("right")
        if left is None or right is None or node_text(left, src) != "__DIR__":
            return []
        arg, relative = right, True
    if arg.type not in ("string", "encapsed_string"):
        return []
    text = node_text(arg, src)[1:-1]
    if not text or "$" in text:
        return []
    module = "./" + text.lstrip("/") if relative else text
    return [ImportSpec(module, is_wildcard=True)]


def _clean_type(text: str) -> str:
    """``?Repo`` and ``\\App\\Repo`` are ``Repo``-like names a receiver can use."""
    return text.strip().lstrip("?").lstrip("\\")


_BUILTIN_TYPES = frozenset(
    {
        "int", "float", "string", "bool", "array", "object", "mixed", "void", "null",
        "callable", "iterable", "never", "false", "true", "self", "static", "parent",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="php",
    grammar_module="tree_sitter_php",
    grammar_function="language_php",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    clean_type=_clean_type,
    name_types=frozenset({"name"}),
    qualified_types=frozenset({"qualified_name"}),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"$this"}),
    self_prefix="$this",
    skip_refs=frozenset({"$this"}),
    separator="\\",
)
