"""Python: definitions, calls, imports, ``__all__`` and typed names.

Conventions decided here:
- A function is a ``method`` inside a class, ``constructor`` when named ``__init__``,
  ``property`` when decorated ``@property``/``@x.setter``/``@cached_property``, and a
  ``test`` when named ``test*`` at module level or inside a ``Test*`` class.
- A class is an ``enum`` when a base is ``Enum``-like (its fields become ``enum_member``)
  and a ``protocol`` when a base is ``Protocol``.
- Module-level assignments are ``variable`` (``constant`` when UPPER_CASE, ``type_alias``
  when annotated ``TypeAlias`` or assigned a ``Union[...]``); class-level ones are
  ``field``. Assignments inside ``if``/``try`` blocks at module level are not symbols
  (a fallback such as ``except ImportError: json = None`` would shadow the import), save
  under ``if TYPE_CHECKING:``, where type aliases are written for annotations to name.
- A leading underscore (not a dunder) makes a name ``private`` and not exported.
- ``X()`` is a ``calls`` reference; the resolver turns it into ``instantiates`` when X is a
  class. ``self.x = X()`` binds ``self.x`` in the class scope with ``from_call=True``;
  ``with X() as x`` binds ``x`` the same way (``__enter__`` nearly always returns self);
  ``self.x = x`` copies the binding of ``x`` (a typed parameter) to ``self.x``; in a
  function, ``x = a.b`` makes later calls ``x()``/``x.c()`` calls of ``a.b()``/``a.b.c()``.
  ``x = await f()`` binds ``x`` as ``x = f()`` does: an ``async def``'s annotation states
  what awaiting it gives.
- Class-level annotated fields bind both ``x`` and ``self.x`` (see ``extract``).
- ``for i, x in enumerate(xs)`` binds ``x`` as ``for x in xs`` does; ``for k, v in
  m.items()`` binds ``v`` as ``for v in m.values()`` does (a value of the mapping). A
  comprehension's ``for x in`` binds ``x`` the same way, on the comprehension's lines
  only (not its ``items()``/``enumerate`` forms: each alternative costs every index run
  its compile time).
- ``x = y or X()``, ``x = X() if c else y`` and ``x = None if c else X()`` bind ``x`` as
  ``x = X()`` does (the fallback, or the one value that is not ``None``).
- ``if``/``elif isinstance(x, T):`` binds the name ``x`` to ``T`` in that block only;
  ``if not isinstance(x, T):`` with a block that raises or returns, and ``assert
  isinstance(x, T)``, bind it from there to the function's end. A name only: narrowing
  ``self.x`` would type the field in every method.
- A name assigned anywhere in a function (``=``, ``for``, ``with``/``except ... as``,
  ``+=``, ``:=``, a comprehension's ``for``) is that function's local throughout it,
  unless declared ``global`` or ``nonlocal``: its uses as a value are not references
  (``@local``).
"""

from __future__ import annotations

import inspect

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import DOC_MAX, cap, node_text, split_top, unparenthesized

# Alternatives inside a pattern rather than more patterns: each one adds to the query's
# compile time, which every index run pays (see ``registry``).
QUERY = r"""
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name return_type: (type)? @returns) @def.function
(class_definition body: (block (expression_statement
  (assignment left: (identifier) @name) @def.field)))

(call function: (identifier) @name arguments: (_) @args) @call
(call function: (subscript value: (identifier) @name) arguments: (_) @args) @call  ; a table's
(call function: (attribute object: (_) @recv attribute: (identifier) @name)
  arguments: (_) @args) @call

(call arguments: (argument_list [(identifier) (attribute)] @ref))
(keyword_argument value: [(identifier) (attribute)] @ref)
(pair value: [(identifier) (attribute)] @ref)
; a module-level name read: indexed, returned, assigned (an attribute chain by its head)
([(subscript value: [(identifier) @ref (attribute object: (identifier) @ref)])
  (return_statement [(identifier) @ref (attribute object: (identifier) @ref)])
  (assignment right: [(identifier) @ref (attribute object: (identifier) @ref)])])

(assignment left: [(identifier) (attribute)] @name type: (type) @bind.type) @bind
(assignment !type left: (identifier) @name
  right: [(call function: [(identifier) (attribute)] @bind.call) (await) @bind.await
          (identifier) @bind.alias (attribute) @bind.alias (subscript) @bind.item]) @bind
(assignment !type left: (attribute) @name
  right: [(call function: [(identifier) (attribute)] @bind.call) (await) @bind.await
          (identifier) @bind.alias]) @bind
(assignment !type left: [(identifier) (attribute)] @name
  right: [(boolean_operator) (conditional_expression) (parenthesized_expression)] @bind.value) @bind
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @bind.call)
  alias: (as_pattern_target (identifier) @name))) @bind
(except_clause (as_pattern (_) @bind.type
  alias: (as_pattern_target (identifier) @name))) @bind
(except_clause [(identifier) (attribute)] @ref)
(except_clause (tuple [(identifier) (attribute)] @ref))
[(for_statement left: (identifier) @name
   right: [(identifier) @bind.iter (attribute) @bind.iter
           (call function: [(identifier) (attribute)] @bind.iter_call)]) @bind
 (for_in_clause left: (identifier) @name
   right: [(identifier) @bind.iter (attribute) @bind.iter
           (call function: [(identifier) (attribute)] @bind.iter_call)]) @bind @bind.within]
(for_statement left: (pattern_list . (identifier) . (identifier) @name .)
  right: (call function: (attribute attribute: (identifier) @_items) @bind.iter_call)
  (#eq? @_items "items")) @bind
(for_statement left: (pattern_list . (identifier) . (identifier) @name .)
  right: (call function: (identifier) @_enumerate
    arguments: (argument_list . [(identifier) (attribute)] @bind.iter))
  (#eq? @_enumerate "enumerate")) @bind
(if_statement condition: (call function: (identifier) @_isinstance
  arguments: (argument_list . (identifier) @name . [(identifier) (attribute)] @bind.new .)) @bind
  consequence: (block) @bind.block (#eq? @_isinstance "isinstance"))
(elif_clause condition: (call function: (identifier) @_isinstance
  arguments: (argument_list . (identifier) @name . [(identifier) (attribute)] @bind.new .)) @bind
  consequence: (block) @bind.block (#eq? @_isinstance "isinstance"))
(if_statement condition: (not_operator argument: (call function: (identifier) @_isinstance
  arguments: (argument_list . (identifier) @name . [(identifier) (attribute)] @bind.new .)) @bind)
  consequence: (block [(raise_statement) (return_statement) (continue_statement)
                       (break_statement)] .) @bind.after
  (#eq? @_isinstance "isinstance"))
(assert_statement . (call function: (identifier) @_isinstance
  arguments: (argument_list . (identifier) @name . [(identifier) (attribute)] @bind.new .)) @bind
  (#eq? @_isinstance "isinstance")) @bind.after
[(typed_parameter . (identifier) @name type: (type) @bind.type)
 (typed_default_parameter name: (identifier) @name type: (type) @bind.type)] @bind
(function_definition !return_type body: (block
  [(return_statement "return" @name
     [(call function: [(identifier) (attribute)] @bind.call) (await) @bind.await
      (identifier) @bind.alias])
   (expression_statement (yield "yield" @name
     [(call function: [(identifier) (attribute)] @bind.call) (identifier) @bind.alias]))] @bind))

[(assignment left: (identifier) @local) (augmented_assignment left: (identifier) @local)
 (for_statement left: (identifier) @local) (for_in_clause left: (identifier) @local)
 (named_expression name: (identifier) @local)
 (as_pattern alias: (as_pattern_target (identifier) @local))
 (pattern_list (identifier) @local) (tuple_pattern (identifier) @local)
 (list_pattern (identifier) @local)]
[(global_statement (identifier) @local @global) (nonlocal_statement (identifier) @local @global)]

(comment) @comment
(decorator) @decoration

(import_statement) @import
(import_from_statement) @import
"""

TOP_QUERY = r"""
(module (expression_statement (assignment left: (identifier) @name) @def.variable))
(module (if_statement condition: [(identifier) (attribute)] @_guard
  consequence: (block (expression_statement (assignment left: (identifier) @name) @def.variable)))
  (#match? @_guard "TYPE_CHECKING$"))
(module (type_alias_statement left: (type (identifier) @name)) @def.type_alias)
(module (expression_statement (assignment left: (identifier) right: [(list) (tuple)]) @exports))
(module (expression_statement
  (augmented_assignment left: (identifier) right: [(list) (tuple)]) @exports))
"""

_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})
_PROPERTY = frozenset({"property", "cached_property", "functools.cached_property"})
_STATIC = frozenset({"staticmethod", "classmethod"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    parent = ctx.parent
    name = sym.name
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        sym.visibility = "private"
        sym.is_exported = False
    if sym.kind == "function":
        _refine_function(sym, ctx)
    elif sym.kind == "class":
        heads = {b.split("[", 1)[0].rsplit(".", 1)[-1] for b in sym.bases}
        if heads & _ENUM_BASES:
            sym.kind = "enum"
        elif "Protocol" in heads:
            sym.kind = "protocol"
    elif sym.kind == "variable":
        annotation = ctx.node.child_by_field_name("type")
        if annotation is not None and node_text(annotation, ctx.src).endswith("TypeAlias"):
            sym.kind = "type_alias"
        elif _is_union(ctx.node.child_by_field_name("right"), ctx.src):
            sym.kind = "type_alias"  # `StrOrRepo = Union[str, Repo]`: an alias by assignment
        elif name.isupper():
            sym.kind = "constant"
    elif sym.kind == "field" and parent is not None and parent.kind == "enum":
        sym.kind = "enum_member"


def _is_union(value: Node | None, src: bytes) -> bool:
    if value is None or value.type != "subscript":
        return False
    head = value.child_by_field_name("value")
    return head is not None and node_text(head, src) in ("Union", "typing.Union")


def _refine_function(sym: Symbol, ctx: DefContext) -> None:
    parent = ctx.parent
    sym.is_async = sym.signature.startswith("async ")
    decorators = set(sym.decorators)
    sym.is_static = bool(decorators & _STATIC)
    in_class = parent is not None and parent.kind in TYPE_KINDS
    if sym.name.startswith("test") and (
        parent is None or (in_class and parent.name.startswith("Test"))
    ):
        sym.kind = "test"
    elif not in_class:
        return
    elif sym.name == "__init__":
        sym.kind = "constructor"
    elif decorators & _PROPERTY or any(
        d.endswith((".setter", ".getter", ".deleter")) for d in decorators
    ):
        sym.kind = "property"
    else:
        sym.kind = "method"


def _heritage(node: Node) -> list[tuple[str, Node]]:
    bases = node.child_by_field_name("superclasses")
    if bases is None:
        return []
    return [
        ("extends", child)
        for child in bases.named_children
        if child.type not in ("keyword_argument", "comment", "list_splat", "dictionary_splat")
    ]


def _docstring(node: Node, src: bytes) -> str | None:
    """The body's leading string for functions and classes; comments above assignments."""
    body = node.child_by_field_name("body")
    if body is None:
        return None
    first = body.named_child(0)
    if first is None or first.type != "expression_statement":
        return ""
    string = first.named_child(0)
    if string is None or string.type != "string":
        return ""
    parts = [node_text(c, src) for c in string.named_children if c.type == "string_content"]
    text = "".join(parts)
    return cap(inspect.cleandoc(text) if "\n" in text else text.strip(), DOC_MAX)


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    if node.type == "import_statement":
        return [
            _aliased(name, src, ImportSpec(module=""))
            for name in node.children_by_field_name("name")
        ]
    module_node = node.child_by_field_name("module_name")
    if module_node is None:
        return []
    level = 0
    module = node_text(module_node, src)
    if module_node.type == "relative_import":
        prefix = module_node.named_child(0)
        level = node_text(prefix, src).count(".") if prefix is not None else 0
        module = module.lstrip(".")
    if any(child.type == "wildcard_import" for child in node.children):
        return [ImportSpec(module=module, level=level, is_wildcard=True)]
    return [
        _aliased(name, src, ImportSpec(module=module, level=level), member=True)
        for name in node.children_by_field_name("name")
    ]


def _aliased(node: Node, src: bytes, spec: ImportSpec, member: bool = False) -> ImportSpec:
    """Fill name/alias from ``a.b`` or ``a.b as c`` (the module itself for plain imports)."""
    target = node.child_by_field_name("name") if node.type == "aliased_import" else node
    alias = node.child_by_field_name("alias") if node.type == "aliased_import" else None
    text = node_text(target, src) if target is not None else ""
    if member:
        spec.name = text
    else:
        spec.module = text
    spec.alias = node_text(alias, src) if alias is not None else None
    return spec


def _exports(node: Node, src: bytes) -> list[str]:
    left = node.child_by_field_name("left")
    right = node.child_by_field_name("right")
    if left is None or right is None or node_text(left, src) != "__all__":
        return []
    names: list[str] = []
    for item in right.named_children:
        if item.type == "string":
            names.extend(
                node_text(c, src) for c in item.named_children if c.type == "string_content"
            )
    return names


def _clean_type(text: str) -> str:
    """``Optional[Repo]``, ``Repo | None`` and ``"Repo"`` all mean ``Repo`` for a receiver;
    the classes ``except (Timeout, HubError) as e`` catches are ``Timeout | HubError``."""
    text = text.strip().strip("'\"")
    if text.startswith("(") and text.endswith(")"):  # no annotation is a tuple
        return " | ".join(part.strip() for part in split_top(text[1:-1]) if part.strip())
    if text.startswith("Optional[") and text.endswith("]"):
        text = text[len("Optional[") : -1]
    if "|" in text:  # at the top level only: `dict[str, A | B] | None` is the dict
        parts = [p.strip() for p in split_top(text, "|") if p.strip() != "None"]
        if len(parts) == 1:
            text = parts[0]
    return text


# Generic types whose iteration gives their first type argument (a mapping: its keys).
_ITERABLES = frozenset(
    {
        "list", "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence",
        "Iterable", "Iterator", "Collection", "AbstractSet", "MutableSet", "deque", "Deque",
        "Generator", "dict", "Dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict",
        "OrderedDict", "tuple", "Tuple",
    }
)  # fmt: skip


def _element_type(text: str) -> str:
    """What a ``for`` loop over a value of type ``text`` binds: ``list[Node]`` -> ``Node``,
    ``dict[str, Node]`` -> ``str``, ``tuple[Node, ...]`` -> ``Node``; else nothing."""
    head, bracket, rest = _clean_type(text).partition("[")
    if not bracket or not rest.endswith("]") or head.rsplit(".", 1)[-1] not in _ITERABLES:
        return ""
    args = [arg.strip() for arg in split_top(rest[:-1]) if arg.strip()]
    if head.rsplit(".", 1)[-1] in ("tuple", "Tuple") and args[1:] != ["..."]:
        return ""  # a fixed-length tuple's items differ
    return _clean_type(args[0]) if args else ""


_CALLEES = frozenset({"identifier", "attribute"})


def _value_call(node: Node) -> Node | None:
    """The callee whose result a compound value holds, as its first choice: ``a or f()``,
    ``f() if c else None``, ``None if c else f()``, ``x if c else f()`` (both branches
    hold one type, and only the call's is known here), each also in the parentheses
    black wraps a long value in, one part per line."""
    node = unparenthesized(node)
    if node.type == "boolean_operator":
        right = node.child_by_field_name("right")
        return _callee(right) if right is not None else None
    if node.type == "conditional_expression":
        branches = node.named_children
        called = _callee(branches[0]) if branches else None
        return called or (_callee(branches[2]) if len(branches) == 3 else None)
    return _callee(node)


def _callee(node: Node) -> Node | None:
    """The function a call of a plain or dotted name calls."""
    if node.type != "call":
        return None
    function = node.child_by_field_name("function")
    return function if function is not None and function.type in _CALLEES else None


_BUILTIN_TYPES = frozenset(
    {
        "int", "str", "float", "bool", "bytes", "None", "object", "list", "dict", "set",
        "tuple", "frozenset", "type", "complex", "bytearray", "memoryview", "range",
        "Any", "Optional", "Union", "List", "Dict", "Set", "Tuple", "FrozenSet", "Type",
        "Callable", "Iterable", "Iterator", "Sequence", "Mapping", "Generator", "Awaitable",
        "Coroutine", "Literal", "TypeVar", "Self", "ClassVar", "Final", "Annotated",
        "TypeAlias", "AsyncIterator", "AsyncGenerator", "MutableMapping", "MutableSequence",
        "Collection", "Container", "Hashable", "NoReturn", "Never", "Generic", "Protocol",
        "AbstractSet", "MutableSet", "DefaultDict", "OrderedDict", "Counter", "Deque",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="python",
    grammar_module="tree_sitter_python",
    query=QUERY,
    top_query=TOP_QUERY,
    refine=_refine,
    imports=_imports,
    docstring=_docstring,
    heritage=_heritage,
    exports=_exports,
    clean_type=_clean_type,
    element_type=_element_type,
    iterator_method="__iter__",
    value_call=_value_call,
    name_types=frozenset({"identifier"}),
    qualified_types=frozenset({"attribute"}),
    string_types=frozenset({"string"}),
    opaque_generics=frozenset({"Literal"}),
    builtin_types=_BUILTIN_TYPES,
    self_names=frozenset({"self", "cls"}),
    self_prefix="self",
    skip_refs=frozenset({"self", "cls"}),
)
