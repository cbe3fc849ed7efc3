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
  ``let x = X::new()`` binds ``x`` to ``X``). ``Ast::Empty(span)`` (a capitalised name on a
  capitalised path) builds an enum variant: a ``references`` to it, not a call.
- A one-field tuple variant ``Table(Table)`` binds its name to its payload type in the
  enum's scope, so that ``Item::Table(t) =>`` (a binding of ``t`` to ``Item::Table``)
  gives ``t`` that type.
- Types are read through ``Box``/``Rc``/``Arc``/``Cow``/``Option``/``Result``/cells (a
  binding's type and a function's ``return_type``; the signature keeps them): what
  ``?``, ``.unwrap()``, ``if let Some(x) = ...`` and deref reach. ``let x = y`` copies
  ``y``'s binding.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text, split_top, strip_generics

_RET = "return_type: (_)? @returns"
_PAT = "pattern: [(identifier) @name (mut_pattern (identifier) @name)]"
_SCOPED_CALL = "(scoped_identifier path: (_) @recv name: (identifier) @name)"
_FIELD_CALL = "(field_expression value: (_) @recv field: (field_identifier) @name)"
# `Ast::Empty(span)`: a capitalised name on a capitalised path is an enum variant (or a
# tuple struct's associated item); a path of functions and modules is snake_case
_TYPE_PATH = '[(identifier) @_p (scoped_identifier name: (identifier) @_p)] (#match? @_p "^[A-Z]")'
_VARIANT = f'(scoped_identifier path: {_TYPE_PATH} name: (identifier) @_v (#match? @_v "^[A-Z]"))'
_CALLEE = "[(identifier) (scoped_identifier) (field_expression)] @bind.call"
# what `x.unwrap()` or `x.clone()` holds is what `x` holds: Option and Result types are
# read unwrapped (`#not-any-of?` with several values matches anything in py-tree-sitter
# 0.26: a regex)
_UNWRAPS = '"^(unwrap|expect|unwrap_or_default|unwrap_unchecked|clone|to_owned|as_ref|as_mut)$"'
_UNWRAP = f"field: (field_identifier) @_unwrap (#match? @_unwrap {_UNWRAPS})"

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
(call_expression function: (scoped_identifier path: (_) @recv name: (identifier) @name)
  arguments: (_) @args (#not-match? @name "^[A-Z]")) @call
(call_expression function: (scoped_identifier path: (_) @recv name: (identifier) @name)
  arguments: (_) @args (#match? @name "^[A-Z]") (#not-match? @recv "(^|::)[A-Z][^:]*$")) @call
(call_expression function: {_VARIANT} @ref)
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
(type_parameter name: (type_identifier) @type_param)
[(type_parameter name: (type_identifier) @name
   bounds: (trait_bounds . (type_identifier) @bind.bound))
 (where_predicate left: (type_identifier) @name
   bounds: (trait_bounds . (type_identifier) @bind.bound))] @bind
(let_declaration !type {_PAT} value: (call_expression
  function: (scoped_identifier path: (_) @bind.new name: (identifier) @_new)
  (#eq? @_new "new"))) @bind
(let_declaration !type {_PAT} value: (call_expression
  function: (scoped_identifier name: (identifier) @_fn) @bind.call (#not-eq? @_fn "new"))) @bind
(let_declaration !type {_PAT} value: (call_expression function: [(identifier) @bind.call
  (generic_function function: (identifier) @bind.call)])) @bind
(let_declaration !type {_PAT} value: (call_expression
  function: (field_expression field: (field_identifier) @_m) @bind.call
  (#not-match? @_m {_UNWRAPS}))) @bind
(let_declaration !type {_PAT} value: (call_expression function: (field_expression
  value: (call_expression function: {_CALLEE}) {_UNWRAP}))) @bind
(let_declaration !type {_PAT} value: (call_expression function: (field_expression
  value: (identifier) @bind.alias {_UNWRAP}))) @bind
(let_declaration !type {_PAT} value: (identifier) @bind.alias) @bind
(let_condition pattern: (tuple_struct_pattern type: (identifier) @_some . (identifier) @name .)
  value: (call_expression function: {_CALLEE}) (#any-of? @_some "Some" "Ok")) @bind
(let_condition pattern: (tuple_struct_pattern type: (identifier) @_some . (identifier) @name .)
  value: (identifier) @bind.alias (#any-of? @_some "Some" "Ok")) @bind
(let_declaration !type {_PAT} value: (try_expression (call_expression
  function: [(identifier) (scoped_identifier) (field_expression)] @bind.call))) @bind
(let_declaration !type {_PAT} value: (struct_expression name: (_) @bind.new)) @bind
(enum_variant name: (identifier) @name
  body: (ordered_field_declaration_list . type: (_) @bind.type .)) @bind
(tuple_struct_pattern type: (scoped_identifier path: {_TYPE_PATH}) @bind.new
  . [(identifier) @name (mut_pattern (identifier) @name) (reference_pattern (identifier) @name)
     (ref_pattern [(identifier) @name (mut_pattern (identifier) @name)])] .) @bind
(parameter {_PAT} type: (_) @bind.type) @bind
(self_parameter (self) @name) @bind @bind.self
(field_declaration name: (field_identifier) @name type: (_) @bind.type) @bind
(for_expression pattern: [(identifier) @name (mut_pattern (identifier) @name)]
  value: [(identifier) @bind.iter (field_expression) @bind.iter
          (reference_expression value: [(identifier) (field_expression)] @bind.iter)]
  body: (block) @bind.within) @bind
(for_expression pattern: [(identifier) @name (mut_pattern (identifier) @name)]
  value: (call_expression function: (field_expression
    value: [(identifier) (field_expression)] @bind.iter field: (field_identifier) @_iter))
  body: (block) @bind.within (#any-of? @_iter "iter" "iter_mut" "into_iter" "drain")) @bind
(call_expression
  function: (field_expression
    value: (call_expression function: (field_expression
      value: [(identifier) (field_expression)] @bind.iter field: (field_identifier) @_iter))
    field: (field_identifier) @_each)
  arguments: (arguments . (closure_expression parameters: (closure_parameters
    . [(identifier) @name (reference_pattern (identifier) @name)])) @bind.within)
  (#any-of? @_iter "iter" "iter_mut" "into_iter")
  (#any-of? @_each "map" "for_each" "filter" "filter_map" "flat_map" "find" "find_map"
    "any" "all" "position" "inspect" "take_while" "skip_while" "max_by_key" "min_by_key"
    "partition")) @bind
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
    sym.return_type = _unwrap(sym.return_type) if "<" in sym.return_type else sym.return_type
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


_WRAPPERS = frozenset(
    {"Box", "Rc", "Arc", "Cow", "Pin", "Option", "Result", "RefCell", "Cell", "Mutex", "RwLock"}
)
"""Types read as what they hold: smart pointers deref to it, and the methods of an Option
or a Result's value are what ``?``, ``unwrap()`` and ``if let Some(x)`` reach."""


def _unwrap(text: str) -> str:
    """``&'a Option<Box<Hir>>`` -> ``Hir``; other types keep their generic arguments."""
    while True:
        text = text.lstrip("&").strip()
        if text.startswith("'"):
            text = text.split(None, 1)[-1]
        for prefix in ("mut ", "dyn ", "impl "):
            text = text.removeprefix(prefix)
        head, _, args = text.partition("<")
        if head.rsplit("::", 1)[-1].strip() not in _WRAPPERS or not args.endswith(">"):
            return text.strip()
        text = _first_argument(args[:-1])


def _first_argument(args: str) -> str:
    """The first type argument of ``'a, Foo<A, B>, E``, past lifetimes."""
    parts = (part.strip() for part in split_top(args))
    return next((part for part in parts if part and not part.startswith("'")), "")


_CONTAINERS = frozenset({"Vec", "VecDeque", "HashMap", "BTreeMap", "IndexMap"})
"""Types whose items a subscript or loop gives: their arguments are kept."""


def _clean_type(text: str) -> str:
    """``&'a mut Foo<T>`` -> ``Foo``, ``Option<Box<Foo>>`` -> ``Foo``: what a receiver's
    methods are looked up on. A container keeps its arguments (``Vec<Label<G>>``) and a
    slice or array its element (``[Label]``), so that ``labels[i]`` has ``Label``'s."""
    text = _unwrap(text)
    if text.startswith("[") and text.endswith("]"):
        return "[" + _clean_type(split_top(text[1:-1], ";")[0].strip()) + "]"
    head = text.partition("<")[0].rsplit("::", 1)[-1].strip()
    return text if head in _CONTAINERS and text.endswith(">") else strip_generics(text)


_SEQUENCES = frozenset({"Vec", "VecDeque", "HashSet", "BTreeSet", "BinaryHeap", "IndexSet"})


def _element_type(text: str) -> str:
    """What a ``for`` over a value of type ``text`` (or over its ``iter()``) binds:
    ``Vec<Order>``, ``&[Order]``, ``[Order; 4]`` -> ``Order``; a map's pairs, nothing."""
    text = _clean_type(text)
    if text.startswith("[") and text.endswith("]"):
        return text[1:-1]
    head, _, rest = text.partition("<")
    args = split_top(rest[:-1]) if rest.endswith(">") else []
    if head.rsplit("::", 1)[-1].strip() not in _SEQUENCES or len(args) != 1:
        return ""
    return _clean_type(args[0].strip())


_BUILTIN_TYPES = frozenset(
    {
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
        "usize", "f32", "f64", "bool", "char", "str", "String", "Vec", "Option", "Result",
        "Box", "Rc", "Arc", "RefCell", "Cell", "HashMap", "HashSet", "BTreeMap", "BTreeSet",
        "Ok", "Err", "Some", "None",
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
    element_type=_element_type,
    name_types=frozenset({"type_identifier"}),
    qualified_types=frozenset({"scoped_type_identifier"}),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"self"}),
    self_prefix="self",
    skip_refs=frozenset({"self"}),
    separator="::",
    closure_types=frozenset({"closure_expression"}),
)
