"""Rust: items, ``impl`` blocks, attributes, ``use`` trees, macros.

Conventions decided here:
- Methods of ``impl Type`` / ``impl Trait for Type`` blocks are ``method``s whose parent is
  ``Type``'s symbol when ``Type`` is declared in the same module of the same file, with
  qualified name ``Type.method`` either way. ``impl Trait for Type`` also records
  ``implements`` (name ``Trait``, source ``Type``'s symbol or None). Methods without a
  ``self`` parameter are ``is_static``; those with one bind ``self`` to ``Type``.
- ``mod foo { ... }`` and ``mod foo;`` are ``module`` symbols. A bodyless ``mod foo;``
  also yields ``Import(module="self", name="foo")`` -- exactly what ``use self::foo;``
  would record -- so the resolver can bind the file module ``foo.rs``/``foo/mod.rs``.
- ``use a::b::{C, d as e};`` -> one Import per leaf: module ``a::b``, name ``C`` / name
  ``d`` alias ``e``; ``use a::b::*`` -> module ``a::b``, wildcard; ``{self}`` names the
  module itself (module ``a``, name ``b``); ``pub use`` -> ``is_reexport``.
- Visibility: ``pub`` is public and exported, ``pub(crate)``/``pub(super)``/``pub(in..)``
  ``internal``; no modifier ``private``, except trait members, enum variants and members
  of ``impl Trait for`` blocks, which are as visible as their owner.
- Attributes are decorators (``derive(Debug)``, ``test``); ``#[test]`` functions are
  ``test``s. Macro calls (``name!(...)``) are ``calls`` to ``name``.
- ``X { .. }`` is ``instantiates X``; ``X::new()`` stays a call with receiver ``X`` (and
  ``let x = X::new()`` binds ``x`` to ``X``).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text, strip_generics

_RET = "return_type: (_)? @returns"
_PAT = "pattern: [(identifier) @name (mut_pattern (identifier) @name)]"
_SCOPED_CALL = "(scoped_identifier path: (_) @recv name: (identifier) @name)"
_FIELD_CALL = "(field_expression value: (_) @recv field: (field_identifier) @name)"

QUERY = f"""
(function_item name: (identifier) @name {_RET}) @def.function
(function_signature_item name: (identifier) @name {_RET}) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(enum_variant name: (identifier) @name) @def.enum_member
(trait_item name: (type_identifier) @name) @def.trait
(type_item name: (type_identifier) @name) @def.type_alias
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.variable
(mod_item name: (identifier) @name) @def.module
(macro_definition name: (identifier) @name) @def.macro
(field_declaration_list (field_declaration name: (field_identifier) @name) @def.field)
(impl_item trait: (_)? @owner.trait type: (_) @owner.type) @owner

(call_expression function: (identifier) @name arguments: (_) @args) @call
(call_expression function: {_FIELD_CALL} arguments: (_) @args) @call
(call_expression function: {_SCOPED_CALL} arguments: (_) @args) @call
(call_expression function: (generic_function function: (identifier) @name)
  arguments: (_) @args) @call
(call_expression function: (generic_function function: {_SCOPED_CALL}) arguments: (_) @args) @call
(call_expression function: (generic_function function: {_FIELD_CALL}) arguments: (_) @args) @call
(macro_invocation macro: (identifier) @name) @call
(macro_invocation macro: {_SCOPED_CALL}) @call
(struct_expression name: (type_identifier) @name) @new
(struct_expression name: (scoped_type_identifier) @qname) @new

(arguments [(identifier) (scoped_identifier) (field_expression)] @ref)
(field_initializer value: [(identifier) (scoped_identifier)] @ref)

(let_declaration {_PAT} type: (_) @bind.type) @bind
(let_declaration !type {_PAT} value: (call_expression
  function: (scoped_identifier path: (_) @bind.new name: (identifier) @_new)
  (#eq? @_new "new"))) @bind
(let_declaration !type {_PAT} value: (call_expression
  function: (scoped_identifier name: (identifier) @_fn) @bind.call (#not-eq? @_fn "new"))) @bind
(let_declaration !type {_PAT} value: (call_expression
  function: [(identifier) (field_expression)] @bind.call)) @bind
(let_declaration !type {_PAT} value: (try_expression (call_expression
  function: [(identifier) (scoped_identifier) (field_expression)] @bind.call))) @bind
(let_declaration !type {_PAT} value: (struct_expression name: (_) @bind.new)) @bind
(parameter {_PAT} type: (_) @bind.type) @bind
(self_parameter (self) @name) @bind @bind.self
(field_declaration name: (field_identifier) @name type: (_) @bind.type) @bind
(type_item type: (_) @type_of)
(const_item type: (_) @type_of)
(static_item type: (_) @type_of)

[(line_comment) (block_comment)] @comment
(attribute_item) @decoration
(use_declaration) @import
(mod_item !body) @import
(extern_crate_declaration) @import
"""

_HAS_SELF = re.compile(r"\(\s*(&\s*('\w+\s+)?)?(mut\s+)?self\b")
_OPEN_OWNERS = frozenset({"trait", "enum"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    """Visibility from ``pub``; methods, statics and tests from the header and owner."""
    sig = sym.signature
    parent = ctx.parent
    if sig.startswith("pub(") or sig.startswith("pub ("):
        inner = sig[sig.find("(") + 1 : sig.find(")")].strip()
        sym.visibility = "private" if inner == "self" else "internal"
        sym.is_exported = False
    elif (
        sig.startswith("pub ")
        or ctx.owner_trait
        or (parent is not None and parent.kind in _OPEN_OWNERS)
    ):
        sym.visibility = "public"
    else:
        sym.visibility = "private"
        sym.is_exported = False
    if sym.kind != "function":
        return
    sym.is_async = " async " in f" {sig[: sig.find('fn ')]}"
    if any(d == "test" or d.endswith("::test") for d in sym.decorators):
        sym.kind = "test"
    elif ctx.owner is not None or (parent is not None and parent.kind in TYPE_KINDS):
        sym.kind = "method"
        sym.is_static = not _HAS_SELF.search(sig)


def _open_parent(parent: Symbol | None) -> bool:
    """Trait members and enum variants are as visible as their owner."""
    return parent is not None and parent.kind in _OPEN_OWNERS


def _heritage(node: Node) -> list[tuple[str, Node]]:
    """Supertraits: ``trait Saver: Debug + Send`` extends both."""
    if node.type != "trait_item":
        return []
    bounds = node.child_by_field_name("bounds")
    if bounds is None:
        return []
    return [("extends", b) for b in bounds.named_children if b.type != "lifetime"]


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    if node.type == "mod_item":
        name = node.child_by_field_name("name")
        reexport = _is_pub(node)
        return [ImportSpec("self", node_text(name, src), is_reexport=reexport)] if name else []
    if node.type == "extern_crate_declaration":
        name = node.child_by_field_name("name")
        alias = node.child_by_field_name("alias")
        if name is None:
            return []
        return [ImportSpec(node_text(name, src), alias=node_text(alias, src) if alias else None)]
    argument = node.child_by_field_name("argument")
    if argument is None:
        return []
    found: list[ImportSpec] = []
    _use_tree(argument, "", src, found)
    if _is_pub(node):
        for item in found:
            item.is_reexport = True
    return found


def _is_pub(node: Node) -> bool:
    first = node.named_child(0)
    return first is not None and first.type == "visibility_modifier"


def _join(prefix: str, path: str) -> str:
    return f"{prefix}::{path}" if prefix and path else prefix or path


def _use_tree(node: Node, prefix: str, src: bytes, out: list[ImportSpec]) -> None:
    """Flatten a ``use`` tree into one import per leaf."""
    kind = node.type
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = _join(prefix, node_text(path, src) if path is not None else "")
        use_list = node.child_by_field_name("list")
        for child in use_list.named_children if use_list is not None else []:
            _use_tree(child, inner, src, out)
    elif kind == "use_list":
        for child in node.named_children:
            _use_tree(child, prefix, src, out)
    elif kind == "use_wildcard":
        path = node.named_child(0)
        out.append(
            ImportSpec(_join(prefix, node_text(path, src) if path else ""), is_wildcard=True)
        )
    elif kind == "use_as_clause":
        path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
        if path is not None:
            out.append(_leaf(_join(prefix, node_text(path, src)), alias, src))
    elif kind == "self":  # `{self}`: the module the list hangs off
        out.append(_leaf(prefix, None, src))
    elif kind != "comment":
        out.append(_leaf(_join(prefix, node_text(node, src)), None, src))


def _leaf(full: str, alias: Node | None, src: bytes) -> ImportSpec:
    module, _, name = full.rpartition("::")
    return ImportSpec(module, name, node_text(alias, src) if alias is not None else None)


def _clean_type(text: str) -> str:
    """``&'a mut Foo<T>`` -> ``Foo``: what a receiver's methods are looked up on."""
    text = text.lstrip("&").strip()
    if text.startswith("'"):
        text = text.split(None, 1)[-1]
    for prefix in ("mut ", "dyn ", "impl "):
        text = text.removeprefix(prefix)
    return strip_generics(text.strip())


_BUILTIN_TYPES = frozenset(
    {
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
        "usize", "f32", "f64", "bool", "char", "str", "String", "Vec", "Option", "Result",
        "Box", "Rc", "Arc", "RefCell", "Cell", "HashMap", "HashSet", "BTreeMap", "BTreeSet",
        "Self", "Ok", "Err", "Some", "None",
        *"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="rust",
    grammar_module="tree_sitter_rust",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    clean_type=_clean_type,
    name_types=frozenset({"type_identifier"}),
    qualified_types=frozenset({"scoped_type_identifier"}),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"self"}),
    self_prefix="self",
    skip_refs=frozenset({"self"}),
    separator="::",
)
