"""Shapes shared by the language specs and the resolution ladder.

A language is described by data (which names are builtins, what ``self`` is called, how
class members are seen) plus two small functions: one that maps the project's files to
modules (its *layout*), one that turns an import specifier into a module and a member path.
Everything else (scopes, re-exports, receiver types, name matching) is shared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from repolens.resolve.project import BindingRow, FileRow, ImportRow, Project, Sym

if TYPE_CHECKING:  # a spec's hooks take the run's state, which is built from specs
    from repolens.resolve.context import Context


@dataclass(eq=False, slots=True)
class Module:
    """A unit that imports name: a Python module or package, a TS file, a Go package
    (a directory: all its files), a Java package, a Rust module. ``files`` hold its
    top-level definitions (none for a namespace package); ``children`` its submodules."""

    key: str
    files: list[int] = field(default_factory=list)
    children: dict[str, Module] = field(default_factory=dict)
    parent: Module | None = None


def dotted_module(modules: dict[str, Module], name: str) -> Module:
    """The module ``a.b.c`` from ``modules``, created when missing together with its
    parents ``a`` and ``a.b`` (namespace packages), each linked as its parent's child."""
    module = modules.get(name)
    if module is None:
        module = modules[name] = Module(name)
        if "." in name:
            parent_name, _, last = name.rpartition(".")
            parent = dotted_module(modules, parent_name)
            module.parent = parent
            parent.children[last] = module
    return module


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import specifier names: a project module and the member path inside it
    (``()`` binds the module itself), or a module outside the project."""

    module: Module | None = None
    path: tuple[str, ...] = ()
    external: bool = False
    loads: Module | None = None  # the module the statement loads, when not ``module``
    # (`import a.b.c` binds `a` but depends on `a.b.c`)


@dataclass(slots=True)
class Layout:
    """The project's modules for one language family, and how its imports resolve."""

    modules: dict[str, Module]
    of_file: dict[int, Module]
    resolve_import: Callable[[FileRow, ImportRow], ImportResult]
    local_name: Callable[[ImportRow], str | None]  # the name an import binds (None: none)
    # A path head that names a module rather than a variable (Rust `crate`, `super`,
    # a crate name): its value, or None to look the name up in scope.
    path_root: Callable[[FileRow, str], Value | None] = lambda file, name: None
    # ``files.module`` when it is not the module's key (a Java file is its class, not
    # its package)
    names: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """Everything language-specific the ladder needs."""

    name: str
    languages: frozenset[str]  # files.language values this spec covers
    build_layout: Callable[[Path, Project, list[FileRow]], Layout]
    builtins: frozenset[str]  # global names the language provides
    builtin_types: frozenset[str]  # types whose members are all builtin (str, list, Vec...)
    builtin_methods: frozenset[str]  # method names never name-matched on unknown receivers
    self_names: frozenset[str] = frozenset()  # receivers meaning "this instance"
    class_self_names: frozenset[str] = frozenset()  # receivers meaning "this class"
    # outside a class a self name is an ordinary name (C's `PyObject *self` beside
    # Objective-C's `self`), looked up as any other
    self_outside_classes: bool = False
    constructor_names: frozenset[str] = frozenset()  # __init__, constructor
    implicit_members: bool = False  # class members are visible unqualified (Java)
    package_scope: bool = False  # top-level names of the module's other files are visible
    crate_macros: bool = False  # Rust: a crate's `macro_rules!` reach its every module
    exported_only: bool = False  # importers see only symbols marked exported
    imports_are_members: bool = False  # every module-level import is importable (Python)
    # a module and a function may share a name, a call meaning the function (Rust's
    # `mod dijkstra; pub use dijkstra::dijkstra;`, and `use algo::dijkstra` brings both)
    namespaces_apart: bool = False
    methods_apart: bool = False  # a bare call names a method, never a variable (Java)
    wildcard_needs_public: bool = False  # `import *` skips `_private` names (Python)
    class_scope_visible: bool = False  # class-body names visible inside methods
    # Guess bare names by name match: only where names can come from nowhere visible
    # (script globals in JS); where scoping is exact, a name not found is a local.
    bare_name_match: bool = False
    super_calls_constructor: bool = False  # a bare `super(...)` runs the base constructor
    impls_anywhere: bool = False  # methods may be declared in any file (Rust `impl`)
    paths_first: bool = False  # path heads (`crate`, `super`) win over names in scope
    param_name_last: bool = False  # `String name` (Java) rather than `name string` (Go)
    # a local is not in scope above its declaration (Go, Rust): `token.X()` above
    # `token := scan()` is the package `token`
    declare_before_use: bool = False
    # a stated type on the use's own line is in force there (Rust `Item::Table(t) =>
    # t.len()`), a callee's (`let x = x.get()`) is not; not in Go, where a closure's
    # parameter follows its call on the line (`r.Get("/", func(r *http.Request) {`)
    line_patterns: bool = False
    # methods every function has that call it (JavaScript's `f.call(self, x)`,
    # `Base.prototype.m.apply(this, arguments)`): such a call of a function is its call
    invokers: frozenset[str] = frozenset()
    # the attribute of a class holding what its instances share (`Foo.prototype.save`)
    prototype: str = ""
    # the method calling an instance runs (Python's `__call__`): `factory(app)` with
    # `factory: Factory` calls `Factory.__call__` and gives what that returns
    call_method: str = ""
    # methods of the builtin containers that give one of their items: `by_key.get(k)` with
    # `by_key: dict[str, Conn]` is a Conn (read only where the container's type is stated)
    item_getters: frozenset[str] = frozenset()
    # the attribute of an instance holding its class (`self.__class__`, `this.constructor`)
    class_attribute: str = ""
    # what an untyped parameter of a function holds when the language's conventions say
    # (a pytest fixture of its name); None where nothing does
    parameter_value: Callable[[Context, Sym, str], Value | None] | None = None


@dataclass(slots=True)
class Value:
    """What an expression denotes while the ladder evaluates a receiver.

    ``kind``: ``module``, ``class`` (the class itself), ``instance`` (an object of
    ``sym``), ``super`` (an instance whose lookups start at the bases of ``sym``),
    ``symbol`` (a function or variable), ``local`` (a variable without a symbol),
    ``union`` (one of ``alternatives``: a value typed ``A | B``) or ``none`` (not known,
    ``reason`` says why).

    Never changed once made (memos share values; ``weaker`` makes a new one), but not a
    frozen dataclass: its ``__init__`` costs several times a plain one, and the ladder
    makes a value at nearly every step (frozen, 8% of resolving pip).
    """

    kind: str
    sym: Sym | None = None
    module: Module | None = None
    reason: str = ""
    confidence: float = 1.0
    provenance: str = "parsed"
    binding: BindingRow | None = None  # for ``local``: where its type is stated
    alternatives: tuple[Value, ...] = ()  # for ``union``: each a value of another kind

    def weaker(self, confidence: float, provenance: str = "parsed") -> Value:
        """The same value reached through a step as sure as ``confidence``/``provenance``:
        a chain is as good as its weakest link."""
        if (
            confidence >= self.confidence
            and PROVENANCE_RANK[provenance] <= PROVENANCE_RANK[self.provenance]
        ):
            return self
        if PROVENANCE_RANK[provenance] < PROVENANCE_RANK[self.provenance]:
            provenance = self.provenance
        return Value(
            self.kind,
            self.sym,
            self.module,
            self.reason,
            min(self.confidence, confidence),
            provenance,
            self.binding,
            tuple(alt.weaker(confidence, provenance) for alt in self.alternatives),
        )

    def via(self, other: Value) -> Value:
        """This value, found by way of ``other``."""
        return self.weaker(other.confidence, other.provenance)


PROVENANCE_RANK = {"parsed": 0, "resolved-import": 1, "resolved-type": 2, "name-match": 3}


NONE_UNKNOWN = Value("none", reason="unknown")
NONE_DYNAMIC = Value("none", reason="dynamic")
NONE_EXTERNAL = Value("none", reason="external")
NONE_BUILTIN = Value("none", reason="builtin")


def one_of(values: list[Value]) -> Value:
    """The value of something that is one of ``values`` (a receiver typed ``A | B``):
    those that are known, as a ``union`` when more than one is; when none is known, why
    the first is not."""
    known: list[Value] = []
    for value in values:
        for alt in value.alternatives if value.kind == "union" else (value,):
            if alt.kind != "none" and not any(_same(alt, k) for k in known):
                known.append(alt)
    if not known:
        return values[0] if values else NONE_UNKNOWN
    if len(known) == 1:
        return known[0]
    # as sure as its surest alternative, so that ``weaker`` leaves it alone only when it
    # would leave every alternative alone
    surest = max(known, key=lambda alt: (alt.confidence, -PROVENANCE_RANK[alt.provenance]))
    provenance = min((alt.provenance for alt in known), key=PROVENANCE_RANK.__getitem__)
    return Value(
        "union", confidence=surest.confidence, provenance=provenance, alternatives=tuple(known)
    )


def _same(a: Value, b: Value) -> bool:
    return a.kind == b.kind and a.sym is b.sym and a.module is b.module
