"""Records produced by parsing one file.

These are the contract between the parse stage and everything after it (resolve, chunking,
store). They describe one file in isolation: names are recorded as written, never resolved
here, because resolution needs the whole project (see ``repolens.resolve``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

SYMBOL_KINDS = frozenset(
    {
        "file", "module", "namespace", "object", "class", "struct", "interface", "trait",
        "protocol", "enum", "enum_member", "function", "method", "constructor", "property",
        "field", "variable", "constant", "type_alias", "macro", "route", "component", "test",
    }
)  # fmt: skip

REFERENCE_KINDS = frozenset(
    {
        "calls", "instantiates", "extends", "implements", "decorates", "type_of",
        "returns", "references",
    }
)  # fmt: skip


@dataclass(slots=True)
class Symbol:
    """A definition in a file.

    ``parent`` is the index of the enclosing symbol in ``ParsedFile.symbols`` (``None`` for
    top-level definitions); parents always come before their children in that list.
    ``qualified_name`` is local to the file's module (``Class.method``); the resolver prefixes
    the module name, which depends on project layout that a single file cannot know.
    """

    kind: str
    name: str
    qualified_name: str
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive
    start_col: int = 0  # 0-based
    end_col: int = 0
    parent: int | None = None
    signature: str = ""
    docstring: str = ""
    visibility: str = "public"  # public | protected | private | internal
    is_exported: bool = True
    is_async: bool = False
    is_static: bool = False
    decorators: tuple[str, ...] = ()
    return_type: str = ""  # as written, e.g. "Repo" or "list[Repo]"; "" when unknown
    yields: str = ""  # what iterating the return type gives ("list[Repo]" -> "Repo")
    bases: tuple[str, ...] = ()  # superclasses / implemented interfaces, as written


@dataclass(slots=True)
class Reference:
    """A use of a name that the resolver must connect to a definition.

    ``name`` is the last segment as written (``connect`` in ``self.db.connect()``);
    ``receiver`` is the dotted text before it (``self.db``), or ``None`` for a bare name.
    ``source`` is the index of the innermost enclosing symbol, ``None`` for module level.
    """

    kind: str
    name: str
    line: int
    col: int = 0
    receiver: str | None = None
    source: int | None = None
    arg_count: int = -1  # number of call arguments when known; -1 otherwise


@dataclass(slots=True)
class Import:
    """One imported binding.

    ``module`` is the module specifier as written (``os.path``, ``./util``, ``crate::a::b``,
    ``github.com/x/y``, ``java.util.List``). ``name`` is the imported member (``None`` when
    the whole module is bound); ``alias`` is the local name it is bound to when it differs.
    ``level`` counts leading dots of a Python relative import.
    """

    module: str
    line: int
    name: str | None = None
    alias: str | None = None
    level: int = 0
    is_wildcard: bool = False
    is_reexport: bool = False  # `export ... from`, `pub use`, names listed in `__all__`
    source: int | None = None  # enclosing symbol for imports inside functions

    @property
    def local_name(self) -> str:
        """The name this import binds in the importing scope."""
        if self.alias:
            return self.alias
        if self.name:
            return self.name
        return self.module.split(".")[0]


# Binding.from_call: how the type a binding states relates to the name's value
STATED, CALL_RESULT, CALL_ELEMENT, TYPE_BOUND, VALUE_OF, ELEMENT_OF, SECOND_RESULT = range(7)


@dataclass(slots=True)
class Binding:
    """A name whose type is known from the code: ``x: Repo``, ``self.repo = Repo()``,
    ``repo := NewRepo()``, a typed parameter. Feeds receiver-type resolution.

    ``scope`` is the symbol index the binding lives in (a function for locals and
    parameters, a class for ``self.attr`` fields; ``None`` for module level). ``type_name`` is
    as written; ``from_call`` says how it relates to the value: ``STATED`` (the type
    itself), ``CALL_RESULT`` (the *return type of calling* ``type_name``: ``x =
    make_repo()``) or ``CALL_ELEMENT`` (an element of that result: ``for n in
    tree.nodes()``), which the resolver looks up after resolving the call; or
    ``TYPE_BOUND``: ``name`` is a type variable and ``type_name`` its bound (``<Ix:
    IndexType>``, ``<T extends Node>``), so a value of type ``name`` has its methods; or
    ``VALUE_OF``: ``name`` holds what the expression ``type_name`` names (``const {
    isBrotliEncoding } = utils`` holds ``utils.isBrotliEncoding``, so calling it calls
    that; ``first = conns[0]`` holds an item of ``conns``); or ``ELEMENT_OF``: an
    element of what the expression ``type_name`` holds (``for line in book.lines`` with
    ``lines: list[Line]`` stated in ``Book``); or ``SECOND_RESULT``: the second of the
    results calling ``type_name`` gives (Go's ``route, router := split()``).
    A binding with an ``end_line`` holds from ``line`` through it only (a narrowing:
    ``if isinstance(x, Repo):``), and not above ``line`` either.
    """

    scope: int | None
    name: str
    type_name: str
    line: int
    from_call: int = 0  # STATED, CALL_RESULT, ... (above)
    end_line: int | None = None  # the last line it holds on (None: the rest of its scope)


@dataclass(slots=True)
class CallSite:
    """A call whose arguments resolution reads (a route registration, a router mount: see
    ``repolens.parse.callsites``). ``args`` is JSON: ``[receiver, [arguments]]`` as
    rendered values; ``start``/``end`` are the call's bytes, so a call inside another's
    function argument (chi's ``r.Route("/x", func(r chi.Router) {...})``) is known to be
    there; ``target`` is the name the call's result is assigned to, if any, or
    ``arg:N:callee`` when the result is passed as the Nth argument of a call."""

    name: str
    line: int
    col: int
    source: int | None
    start: int
    end: int
    target: str
    args: str


@dataclass(slots=True)
class ParsedFile:
    """Everything extracted from one file, in source order."""

    path: str
    language: str
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    bindings: list[Binding] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)  # explicit export lists (`__all__`)
    call_sites: list[CallSite] = field(default_factory=list)
    line_count: int = 0
    has_errors: bool = False  # the grammar reported syntax errors (extraction is partial)
    error: str = ""  # why extraction failed or degraded, for status
