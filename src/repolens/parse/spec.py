"""The declarative description of one language: what ``extract.py`` needs to know.

A language is data, not a subclass: one tree-sitter query whose patterns are tagged with
*role* captures, plus a few small hooks for what a query cannot say (docstrings, modifiers,
import shapes). The generic engine runs the query once per file in C and turns each match
into records according to its role.

Role captures (exactly one per pattern; the engine dispatches on it). Patterns of one role
must not match the same node twice (there is no de-duplication), except definitions: a
node matched as a function and as a variable (``const f = () => ...``) is the function.
Binding names with a dot (``self.x``) are kept only when the head is in ``self_names``; a
plain name bound in a class scope is also bound as ``<self_prefix>.<name>``.

``@def.<kind>``  a definition node; sub-captures ``@name`` (required), ``@owner`` (a type
                 the definition belongs to although it is not nested in it, e.g. a Go
                 receiver), ``@returns`` (return type node; else
                 ``LanguageSpec.return_type`` reads it).
``@owner``       a block whose members belong to a named type (Rust ``impl``); sub-captures
                 ``@owner.type`` and optional ``@owner.trait``. Not a symbol itself.
``@call``        a call; ``@name`` (callee's last segment) or ``@qname`` (a qualified callee
                 to split), optional ``@recv`` (callee object) and ``@args``.
``@new``         an instantiation; same sub-captures as ``@call``.
``@ref``         a bare identifier or attribute chain used as a value (callbacks).
``@bind``        a typed name; ``@name`` plus one of ``@bind.type`` (annotation, also emits
                 ``type_of`` references), ``@bind.call`` (callee whose return type is meant)
                 or ``@bind.new`` (instantiated type), or ``@bind.self`` (a ``self``
                 parameter: bound to the method's type), or ``@bind.alias`` (a name whose
                 binding above in the same scope is copied). A narrowing holds on some lines
                 only: ``@bind.block`` holds it from the ``@bind`` node through that block,
                 ``@bind.after`` from after that node to the function's end (Python's ``if
                 isinstance(x, T):``, ``if not isinstance(x, T): raise``); outside a
                 function there is none. An extra ``@field`` capture marks a
                 member of the enclosing type declared elsewhere (a TypeScript constructor
                 parameter property): it is bound as ``<self_prefix>.<name>`` in the type's
                 scope, and emits no ``type_of`` (another pattern covers the annotation).
``@type_of``     a type annotation that is not a binding (emits ``type_of`` references).
``@import``      an import statement, handed to ``LanguageSpec.imports``.
``@comment``     a comment (doc comments are found by position, see ``trivia``).
``@decoration``  a decorator, annotation or attribute (attached by position, ``trivia``).
``@exports``     an explicit export list (``__all__``, ``export {a}``), handed to
                 ``LanguageSpec.exports``; listed top-level symbols become exported.
``@local``       a name a function assigns or declares (Python, Go, ECMAScript): a value
                 reference to it anywhere in that function (or a closure in it) is the
                 local, and is not recorded, as for parameters (see ``params``). Block
                 scopes are not told apart: a name declared in one block and meant as a
                 global in another is rare enough; a closure's are told apart (a
                 callback's ``item`` holds in the callback: ``closure_types``). An extra
                 ``@global`` capture marks a name declared ``global``/``nonlocal`` there,
                 which stays a reference.
``@type_param``  the name of a type parameter (``<TData>``, ``infer E``): type references
                 to it in its declaration name no symbol and are dropped (``generics``).
``@expand``      a node whose meaning a hook reads better than patterns would say it:
                 ``LanguageSpec.expand`` gives its matches of the other roles, as the
                 patterns would have (an ECMAScript assignment: ``exports.f = function``,
                 ``Foo.prototype.bar = ...``, ``this.x = new X()``). Deeply nested patterns
                 are what make a query slow to compile; one shallow pattern and a hook
                 are not.
``@embed``       a node holding code of another language (a Vue ``<script>`` block), handed
                 to ``LanguageSpec.embedded``, which names that language. The engine parses
                 the node's byte range of the same source with the other grammar
                 (``included_ranges``, so lines stay the host file's), extracts it with
                 the other spec, and merges the records into the host file's.

Patterns rooted at the file's root node (``(module (expression_statement ...))``) go in
``top_query`` instead: the engine runs them at the root only, since a cursor carries an
unfinished root match through every node of the file, which made each such pattern cost
as much as a call pattern. Only definitions, or every pattern of a role that adds no
references (``@exports``), may move there: their records do not depend on the order in
which matches arrive (definitions are ordered by position).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from repolens.parse.model import Symbol

SCOPE_KINDS = frozenset(
    {
        "module", "namespace", "object", "class", "struct", "interface", "trait", "protocol",
        "enum", "function", "method", "constructor", "property", "test", "component",
        "type_alias",
    }
)  # fmt: skip
"""Kinds that can be the ``source`` of a reference or the ``scope`` of a binding."""

TYPE_KINDS = frozenset(
    {"class", "struct", "interface", "trait", "protocol", "enum", "type_alias", "object"}
)
"""Kinds a method can be attached to by an ``@owner`` capture. An ``object`` is a variable
holding methods (JavaScript's ``const api = { get() {} }``, ``app.init = function``): a
singleton whose methods reach each other through ``this`` as a class's do."""

FUNCTION_KINDS = frozenset({"function", "method", "constructor", "property", "test"})
"""Kinds whose locals are never exported."""


@dataclass(slots=True)
class ImportSpec:
    """What an import hook reports; the engine adds the line and the enclosing scope."""

    module: str
    name: str | None = None
    alias: str | None = None
    level: int = 0
    is_wildcard: bool = False
    is_reexport: bool = False
    line: int = 0  # 1-based; 0 means the import statement's first line


@dataclass(slots=True)
class DefContext:
    """What a ``refine`` hook may look at besides the node itself."""

    node: Node
    anchor: Node  # the outermost wrapper (`export`, decorated definition) or the node
    src: bytes
    parent: Symbol | None
    owner: str | None  # type name from an ``@owner`` capture, if any
    owner_trait: str | None  # trait of an enclosing ``impl Trait for Type`` block


@dataclass(frozen=True, slots=True)
class Embedded:
    """What an ``@embed`` capture holds, as an ``embedded`` hook tells the engine."""

    language: str  # id of the spec that extracts it (``typescript``)
    # Its top-level definitions and code belong to the file's own symbol (``file_symbol``:
    # a component's per-instance script) rather than to module level.
    in_file_symbol: bool = False


Captures = dict[str, list[Node]]
"""One query match: capture name -> the nodes it captured."""
RoleMatch = tuple[str, Captures]
"""A match tagged with its role (``def.function``, ``call``, ``bind``...)."""

RefineHook = Callable[[Symbol, DefContext], None]
DocHook = Callable[[Node, bytes], str | None]  # None: use the comment block above
HeritageHook = Callable[[Node], list[tuple[str, Node]]]
ImportHook = Callable[[Node, bytes, str], list[ImportSpec]]  # (node, source, file path)
ExportHook = Callable[[Node, bytes], list[str]]
TextHook = Callable[[str], str]
EmbedHook = Callable[[Node, bytes], Embedded | None]  # None: not code worth extracting
ExpandHook = Callable[[Node, bytes], list[RoleMatch]]
ObjectHook = Callable[[Node, bytes], list[tuple[Node, Node]] | None]
# a doc comment's stated types: ({parameter: type}, return type), for untyped languages
DocTypesHook = Callable[[str], tuple[dict[str, str], str]]
NodeHook = Callable[[Node], Node | None]


def _no_heritage(node: Node) -> list[tuple[str, Node]]:
    return []


def _no_exports(node: Node, src: bytes) -> list[str]:
    return []


def _same(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """Everything language-specific the generic engine needs."""

    language: str
    grammar_module: str  # importable module of the official grammar wheel
    query: str
    refine: RefineHook
    imports: ImportHook
    grammar_function: str = "language"  # function of that module returning the grammar
    docstring: DocHook | None = None  # None: the comment block right above the definition
    heritage: HeritageHook = _no_heritage  # ("extends" | "implements", type node)
    exports: ExportHook = _no_exports
    clean_type: TextHook = _same  # normalise a binding's type text (strip *, &, Optional…)
    call_name: TextHook | None = None  # normalise a call's name (Vue `<order-row>`: OrderRow)
    element_type: TextHook | None = None  # what iterating a type gives (list[Node] -> Node)
    # the method whose result iterating an instance gives (Python's ``__iter__``): what it
    # yields, its class yields
    iterator_method: str = ""
    # methods whose result holds the elements of their receiver (an array's `filter`)
    same_elements: frozenset[str] = frozenset()
    # the callee whose result a compound value (``@bind.value``) holds: ``a or f()``,
    # ``(f() if c else None)``; None when it holds no call's result
    value_call: NodeHook | None = None
    # a definition's return type node, where patterns do not capture it as ``@returns``:
    # an optional child in a pattern is analysed against the grammar when the query is
    # compiled, in every index run (TypeScript's methods: 60 M instructions of 850 M)
    return_type: NodeHook | None = None
    body_fields: tuple[str, ...] = ("body",)  # where a definition's header ends
    wrapper_types: frozenset[str] = frozenset()  # parents whose range a symbol takes over
    name_types: frozenset[str] = frozenset({"identifier", "type_identifier"})
    qualified_types: frozenset[str] = frozenset()  # dotted/scoped names in types
    string_types: frozenset[str] = frozenset()  # strings holding type names (Python)
    opaque_generics: frozenset[str] = frozenset()  # generics whose arguments are not types
    builtin_types: frozenset[str] = frozenset()  # type names never worth a reference
    self_names: frozenset[str] = frozenset()  # `self`, `this`: their attributes are fields
    self_prefix: str = ""  # a field `x` is also bound as `<self_prefix>.x` when set
    skip_refs: frozenset[str] = frozenset()  # values never worth a `references` entry
    separator: str = "."  # between a receiver and a name in qualified text
    embedded: EmbedHook | None = None  # the language of each ``@embed`` capture
    doc_types: DocTypesHook | None = None  # JSDoc ``@param {T} x``: bindings, return types
    expand: ExpandHook | None = None  # the role matches of each ``@expand`` capture
    # a top-level variable holding an object (``var app = {}``): the (name, definition)
    # nodes of its function-valued properties; None when the value is no object
    object_members: ObjectHook | None = None
    # anonymous functions (arrow functions, Go's func literals): a ``@local`` inside one
    # holds there only, not in the whole function around it
    closure_types: frozenset[str] = frozenset()
    # When set, the file is itself a symbol of this kind (a Vue or Svelte ``component``)
    # named after its stem and spanning it; see ``Embedded.in_file_symbol``.
    file_symbol: str = ""
    top_query: str = ""  # patterns rooted at the root node, matched there only (see above)
    # the one name a ``@ref``'s text stands for, dots and all, or "" for none (Terraform's
    # ``module.vpc.subnet_id`` is a use of ``module.vpc``); None: split at the last dot
    ref_text: TextHook | None = None
