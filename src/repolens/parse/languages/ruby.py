"""Ruby: modules, classes, methods, singleton methods, mixins, ``require``.

Conventions decided here:
- ``class`` is a ``class``; a ``module`` that defines methods is a ``trait`` (a mixin or a
  bag of module functions: its methods are found like inherited ones), any other
  ``module`` a ``module`` (a namespace). ``Shop::Util`` is qualified ``Shop.Util``.
- ``def`` is a ``method`` inside a class or module (``constructor`` for ``initialize``), a
  ``function`` at top level; ``def self.x`` is a static ``method``. Methods after a bare
  ``private``/``protected`` line take that visibility.
- ``attr_reader``/``attr_writer``/``attr_accessor :x`` define a ``method`` ``x`` each (an
  accessor is a method in Ruby, called as one).
- ``include``/``extend``/``prepend M`` in a class body are ``extends`` references (a
  mixin's methods are found like inherited ones); ``< Base`` is ``extends``.
- ``Foo.new(...)`` is ``instantiates`` Foo; other ``x.m`` are calls on receiver ``x``; a bare
  identifier statement (``helper``) is a call, since Ruby calls without parentheses.
  ``super`` (with or without arguments) is a call named ``super``.
- ``require "a/b"`` -> Import(module="a/b", wildcard); ``require_relative "x"`` ->
  Import(module="./x", wildcard): a loaded file's constants become visible.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_LOADS = '(#match? @_load "^(require|require_relative|load)$")'
_NOT_KERNEL = (
    '(#not-match? @name "^(require|require_relative|load|include|extend|prepend|attr_reader'
    '|attr_writer|attr_accessor|private|protected|public|module_function|raise|puts|p)$")'
)
_NEW = '(#eq? @_new "new")'

QUERY = f"""
(class name: [(constant) (scope_resolution)] @name) @def.class
(module name: [(constant) (scope_resolution)] @name) @def.module
(method name: _ @name) @def.method
(singleton_method name: _ @name) @def.method
(call !receiver method: (identifier) @_attr arguments: (argument_list
  (simple_symbol) @name @def.method) (#match? @_attr "^attr_(reader|writer|accessor)$"))
(body_statement (assignment left: (constant) @name) @def.constant)
(program (assignment left: (constant) @name) @def.constant)

(call receiver: (_) @recv method: (identifier) @name arguments: (_)? @args
  (#not-eq? @name "new")) @call
(call !receiver method: (identifier) @name arguments: (_)? @args {_NOT_KERNEL}) @call
(body_statement (identifier) @name @call {_NOT_KERNEL})
(super) @name @call
(call receiver: (constant) @name method: (identifier) @_new arguments: (_)? @args {_NEW}) @new
(call receiver: (scope_resolution) @qname method: (identifier) @_new arguments: (_)? @args
  {_NEW}) @new

(assignment left: (identifier) @name right: (call receiver: [(constant) (scope_resolution)]
  @bind.new method: (identifier) @_new {_NEW})) @bind

(comment) @comment
(call !receiver method: (identifier) @_load arguments: (argument_list . (string)) {_LOADS})
  @import
"""

_MIXINS = frozenset({"include", "extend", "prepend"})
_ACCESS = frozenset({"private", "protected", "public"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    if node.type == "singleton_method":
        sym.is_static = True
    elif node.type == "simple_symbol":  # `attr_reader :cents`: a method named `cents`
        sym.name = sym.name.lstrip(":")
        sym.qualified_name = sym.qualified_name.rsplit(".", 1)[0] + "." + sym.name
        call = node.parent.parent if node.parent is not None else None
        keyword = call.child_by_field_name("method") if call is not None else None
        sym.signature = f"{node_text(keyword, ctx.src)} :{sym.name}" if keyword else sym.name
    if sym.kind == "method":
        parent = ctx.parent
        if parent is None:
            sym.kind = "function"
        elif sym.name == "initialize":
            sym.kind = "constructor"
        sym.visibility = _access(node)
        sym.is_exported = sym.visibility == "public"
        if sym.name.startswith("test_") and parent is not None and parent.name.endswith("Test"):
            sym.kind = "test"
    elif sym.kind in ("class", "module"):
        if sym.kind == "module" and _defines_methods(node):
            sym.kind = "trait"
        sym.signature = sym.signature.split(" #", 1)[0]  # a comment before the body
        sym.name = sym.name.rsplit("::", 1)[-1]
        sym.qualified_name = sym.qualified_name.replace("::", ".")


def _defines_methods(node: Node) -> bool:
    body = node.child_by_field_name("body")
    return body is not None and any(
        c.type in ("method", "singleton_method") for c in body.named_children
    )


def _access(node: Node) -> str:
    """The visibility a bare ``private``/``protected`` line above the method set."""
    sibling = node.prev_named_sibling
    while sibling is not None:
        if sibling.type == "identifier":
            word = (sibling.text or b"").decode()
            if word in _ACCESS:
                return word
        sibling = sibling.prev_named_sibling
    return "public"


def _heritage(node: Node) -> list[tuple[str, Node]]:
    found: list[tuple[str, Node]] = []
    superclass = node.child_by_field_name("superclass")
    if superclass is not None and superclass.named_child(0) is not None:
        found.append(("extends", superclass.named_child(0) or superclass))
    body = node.child_by_field_name("body")
    for stmt in body.named_children if body is not None else []:
        method = stmt.child_by_field_name("method") if stmt.type == "call" else None
        if method is None or stmt.child_by_field_name("receiver") is not None:
            continue
        if (method.text or b"").decode() in _MIXINS:
            args = stmt.child_by_field_name("arguments")
            for arg in args.named_children if args is not None else []:
                if arg.type in ("constant", "scope_resolution"):
                    found.append(("extends", arg))
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    method = node.child_by_field_name("method")
    args = node.child_by_field_name("arguments")
    first = args.named_child(0) if args is not None else None
    if method is None or first is None:
        return []
    parts = [c for c in first.named_children if c.type != "string_content"]
    if parts:
        return []  # interpolated: not a literal path
    text = node_text(first, src)[1:-1]
    if node_text(method, src) == "require_relative":
        text = text if text.startswith(("./", "../")) else "./" + text
    return [ImportSpec(text, is_wildcard=True)]


SPEC = LanguageSpec(
    language="ruby",
    grammar_module="tree_sitter_ruby",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    name_types=frozenset({"constant"}),
    qualified_types=frozenset({"scope_resolution"}),
    self_names=frozenset({"self"}),
    skip_refs=frozenset({"self"}),
    separator="::",
)
