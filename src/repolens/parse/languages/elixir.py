"""Elixir: modules, functions, macros, ``alias``/``import``/``require``/``use``, remote calls.

Everything in Elixir is a call (``defmodule``, ``def``, ``alias``...), so patterns here
match calls by their target name.

Conventions decided here:
- ``defmodule A.B do ... end`` is a one-line ``module`` symbol named ``A.B`` (its name
  line) and an owner block: the functions inside are qualified ``B.f`` and stay top-level
  names of the file, which is what the resolver maps the module name to (one module per
  file is the convention). ``defprotocol`` is the same with a ``protocol`` symbol.
- ``def``/``defmacro``/``defguard``/``defdelegate`` are ``function``s, the ``p`` variants
  ``private``. ``@doc``/``@moduledoc`` strings are docstrings.
- ``f(x)`` is a local call, ``Mod.f(x)`` a remote call on receiver ``Mod``; a function's
  own head (``def f(x)``) is not a call.
- ``alias A.B`` -> Import(module="A.B", alias="B"); ``alias A.{B, C}`` -> one each;
  ``alias A.B, as: X`` -> alias ``X``; ``import A.B`` -> wildcard; ``require``/``use`` ->
  an import binding nothing (a dependency, and ``use`` injects code we cannot see).
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import DOC_MAX, cap, node_text

_DEFS = "def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp"
_IS_DEF = f'(#match? @_def "^({_DEFS})$")'
_NOT_KEYWORD = (
    f'(#not-match? @name "^({_DEFS}|defmodule|defprotocol|defimpl|defstruct|alias|import'
    "|require|use|quote|unquote|if|unless|case|cond|with|for|fn|raise|doc|moduledoc|spec"
    '|type|typep|callback|impl)$")'
)
_LOCAL = f"(call target: (identifier) @name (arguments) @args {_NOT_KEYWORD}) @call"
_HEAD = (
    "[(call target: (identifier) @name)"
    " (binary_operator left: (call target: (identifier) @name)) (identifier) @name]"
)

QUERY = f"""
(call target: (identifier) @_mod (arguments . (alias) @name @def.module)
  (#eq? @_mod "defmodule"))
(call target: (identifier) @_mod (arguments . (alias) @name @def.protocol)
  (#eq? @_mod "defprotocol"))
(call target: (identifier) @_mod (arguments . (alias) @owner.type) (do_block)
  (#match? @_mod "^(defmodule|defprotocol)$")) @owner
(call target: (identifier) @_def (arguments . {_HEAD}) {_IS_DEF}) @def.function

(do_block {_LOCAL})
(body {_LOCAL})
(binary_operator right: {_LOCAL})
(binary_operator left: {_LOCAL} operator: _ @_op (#not-eq? @_op "when"))
(pair value: {_LOCAL})
(list {_LOCAL})
(tuple {_LOCAL})
(call target: (identifier) @_outer (arguments {_LOCAL})
  (#not-match? @_outer "^({_DEFS})$"))
(call target: (dot left: (_) @recv right: (identifier) @name) (arguments)? @args) @call

(comment) @comment
(call target: (identifier) @_imp (#match? @_imp "^(alias|import|require|use)$")) @import
"""

_PRIVATE = frozenset({"defp", "defmacrop", "defguardp", "defnp"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    if sym.kind in ("module", "protocol"):
        keyword = "defprotocol" if sym.kind == "protocol" else "defmodule"
        sym.signature = f"{keyword} {sym.name}"
        sym.qualified_name = sym.name  # not prefixed by its own owner block
        sym.docstring = sym.docstring or _moduledoc(node, ctx.src)
        return
    target = node.child_by_field_name("target")
    keyword = node_text(target, ctx.src) if target is not None else "def"
    if keyword in _PRIVATE:
        sym.visibility, sym.is_exported = "private", False
    sym.signature = sym.signature.split(" do", 1)[0].split(", do:", 1)[0].rstrip(",")


def _docstring(node: Node, src: bytes) -> str | None:
    """``@doc "..."`` right above a ``def`` (``None``: use the comment block above)."""
    if node.type != "call":
        return None
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type == "unary_operator":
        text = _attribute_string(sibling, src, "doc")
        if text is not None:
            return text
        sibling = sibling.prev_named_sibling
    return None


def _moduledoc(name: Node, src: bytes) -> str:
    """The ``@moduledoc`` string of the module whose name node is ``name``."""
    call = name.parent.parent if name.parent is not None else None
    block = next((c for c in call.named_children if c.type == "do_block"), None) if call else None
    for child in block.named_children if block is not None else []:
        text = _attribute_string(child, src, "moduledoc")
        if text is not None:
            return text
    return ""


def _attribute_string(node: Node, src: bytes, attribute: str) -> str | None:
    operand = node.child_by_field_name("operand") if node.type == "unary_operator" else None
    target = operand.child_by_field_name("target") if operand is not None else None
    if target is None or node_text(target, src) != attribute or operand is None:
        return None
    args = next((c for c in operand.named_children if c.type == "arguments"), None)
    string = args.named_child(0) if args is not None else None
    if string is None or string.type != "string":
        return None
    return cap(node_text(string, src).strip('"').strip(), DOC_MAX)


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    target = node.child_by_field_name("target")
    args = next((c for c in node.named_children if c.type == "arguments"), None)
    first = args.named_child(0) if args is not None else None
    if target is None or args is None or first is None:
        return []
    keyword = node_text(target, src)
    if first.type == "dot" and keyword == "alias":  # alias A.{B, C}
        left, right = first.child_by_field_name("left"), first.child_by_field_name("right")
        if left is None or right is None:
            return []
        base = node_text(left, src)
        return [
            ImportSpec(f"{base}.{node_text(a, src)}", alias=node_text(a, src).rsplit(".", 1)[-1])
            for a in right.named_children
            if a.type == "alias"
        ]
    if first.type != "alias":
        return []
    module = node_text(first, src)
    if keyword == "import":
        return [ImportSpec(module, is_wildcard=True)]
    if keyword != "alias":
        return [ImportSpec(module)]
    return [ImportSpec(module, alias=_as(args, src) or module.rsplit(".", 1)[-1])]


def _as(args: Node, src: bytes) -> str | None:
    """``as: X`` in an alias's keyword list."""
    for keywords in args.named_children:
        if keywords.type != "keywords":
            continue
        for pair in keywords.named_children:
            key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if key is not None and value is not None and node_text(key, src).startswith("as:"):
                return node_text(value, src)
    return None


SPEC = LanguageSpec(
    language="elixir",
    grammar_module="tree_sitter_elixir",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    docstring=_docstring,
    body_fields=("do_block",),
    name_types=frozenset({"alias"}),
)
