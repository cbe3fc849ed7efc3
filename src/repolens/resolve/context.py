"""State of one resolution run: the loaded project, each language's layout, and memos.

Every answer is a pure function of the stored facts, so a full and an incremental run give
the same edges. Memos must keep that true: a value computed while a cycle was cut short
(``A`` re-exports from ``B`` which re-exports from ``A``) depends on where the walk
started, so it is returned but never remembered. Likewise a reference's answer is
remembered for its (file, source, kind, name, receiver), and a receiver's value for its
scope, only when no choice on the way depended on its line (``line_choices``: a name
bound twice in the scope that answered).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, ParamSpec, TypeVar

from repolens.resolve.answers import Guess, Outcome
from repolens.resolve.base import (
    NONE_UNKNOWN,
    ImportResult,
    LanguageSpec,
    Layout,
    Module,
    Value,
)
from repolens.resolve.project import FileRow, ImportRow, Project, RefRow, Sym

# file, source symbol, kind, name, receiver: all a line-independent answer depends on
RefKey = tuple[int, int, str, str, str | None]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = ParamSpec("P")
_MISSING: Any = object()  # a memo's values may be None

MAX_ACTIVE = 64  # nested lookups in flight before a chain counts as a cycle
FILE_MEMO_WEIGHT = 100
"""Entries a memo of a whole file's names (``module_tables``, ``imported_files``,
``function_imports``) counts for in ``memo_limit``: each holds a file's worth of rows."""


@dataclass(slots=True)
class Cycles:
    """Counts cut cycles, shared by every memo of a run."""

    cuts: int = 0
    active: int = 0


class Memo(Generic[K, V]):
    """Memoise a recursive lookup, cutting cycles and chains deeper than ``MAX_ACTIVE``."""

    def __init__(self, cycles: Cycles, on_cycle: V) -> None:
        self._cycles = cycles
        self._on_cycle = on_cycle
        self._done: dict[K, V] = {}
        self._active: set[K] = set()

    def get(self, key: K, compute: Callable[P, V], *args: P.args, **kwargs: P.kwargs) -> V:
        """The value for ``key``, from ``compute(*args, **kwargs)`` the first time. The
        arguments come apart rather than in a closure: most calls are answered from the
        memo, and then nothing is built."""
        found = self._done.get(key, _MISSING)
        if found is not _MISSING:
            return found
        cycles = self._cycles
        if key in self._active or cycles.active >= MAX_ACTIVE:
            cycles.cuts += 1
            return self._on_cycle
        before = cycles.cuts
        self._active.add(key)
        cycles.active += 1
        try:
            value = compute(*args, **kwargs)
        finally:
            self._active.discard(key)
            cycles.active -= 1
        if cycles.cuts == before:
            self._done[key] = value
        return value

    def __len__(self) -> int:
        return len(self._done)

    def clear(self) -> None:
        self._done.clear()


@dataclass(slots=True)
class Context:
    project: Project
    root: Path
    # what a class's ``extends``/``implements`` reference names: the ladder's answer,
    # handed in because member lookup (which needs a class's bases) sits below the ladder
    base_value: Callable[[Context, RefRow], Value]
    spec_of: dict[int, LanguageSpec] = field(default_factory=dict)  # file id -> spec
    layouts: dict[str, Layout] = field(default_factory=dict)  # spec name -> layout
    cycles: Cycles = field(default_factory=Cycles)
    # file -> name -> (line, symbol id, binder) of its module-level bindings (see scope)
    module_tables: dict[int, dict[str, list[tuple[int, int, Value | ImportRow]]]] = field(
        default_factory=dict
    )
    imported_files: dict[int, set[int]] = field(default_factory=dict)
    # file -> local name -> function -> the import inside the function that binds it
    function_imports: dict[int, dict[str, dict[int, ImportRow]]] = field(default_factory=dict)
    constructors: dict[int, Sym | None] = field(default_factory=dict)  # class -> its own
    inits: dict[int, Value | None] = field(default_factory=dict)  # class -> what `cls()` runs
    parameters: dict[int, frozenset[str]] = field(default_factory=dict)  # function -> names
    import_results: dict[int, ImportResult] = field(default_factory=dict)
    outcomes: dict[RefKey, Outcome] = field(default_factory=dict)  # see the module doc
    # (file, scope, receiver text, in a type position) -> its value, remembered alike
    receivers: dict[tuple[int, int, str, bool], Value] = field(default_factory=dict)
    guesses: dict[tuple[int, str, str, bool], Guess] = field(default_factory=dict)  # namematch
    line_choices: int = 0  # lookups whose answer depended on the line asked about
    memo_limit: int | None = None  # entries past which the memos start over (None: never)
    # names a module-level variable or constant has, or an import binds (see ladder)
    variable_names: frozenset[str] | None = None
    imports: Memo[int, Value] = field(init=False)  # import id -> what it binds
    targets: Memo[int, tuple[Value, str | None]] = field(init=False)  # import id -> module
    members: Memo[tuple[int, str], Value | None] = field(init=False)  # (module, name)
    bases: Memo[int, list[Value]] = field(init=False)  # class id -> resolved bases
    mros: Memo[int, tuple[list[Value], bool]] = field(init=False)  # class id -> ancestry
    bindings: Memo[tuple[int, int, str, int], Value] = field(init=False)
    returns: Memo[int, Value] = field(init=False)  # function id -> what calling it gives
    # (file, name, in a type position) at module level
    globals: Memo[tuple[int, str, bool], Value] = field(init=False)
    owners: Memo[int, Sym | None] = field(init=False)  # detached method -> its type
    aliases: Memo[int, Value] = field(init=False)  # type alias -> the class it names

    def __post_init__(self) -> None:
        self.imports = Memo(self.cycles, NONE_UNKNOWN)
        self.targets = Memo(self.cycles, (NONE_UNKNOWN, None))
        self.members = Memo(self.cycles, None)
        self.bases = Memo(self.cycles, [])
        self.mros = Memo(self.cycles, ([], True))
        self.bindings = Memo(self.cycles, NONE_UNKNOWN)
        self.returns = Memo(self.cycles, NONE_UNKNOWN)
        self.globals = Memo(self.cycles, NONE_UNKNOWN)
        self.owners = Memo(self.cycles, None)
        self.aliases = Memo(self.cycles, NONE_UNKNOWN)

    def forget_file_memos(self) -> None:
        """Drop the memos keyed by one file: answers, receiver values, name-match guesses.
        They are asked for again almost only while their file is resolved, so a run
        that kept them would grow with the project (about 70 MB per process on sympy)
        for next to no hits."""
        self.outcomes.clear()
        self.receivers.clear()
        self.guesses.clear()

    def trim_memos(self) -> None:
        """Start every memo over once they hold more than ``memo_limit`` entries (a
        per-file table counting ``FILE_MEMO_WEIGHT``). Each
        holds a pure function of the stored facts, so answers stay the same; what it
        keeps is bounded rather than growing with the project (the symbols a memo holds
        would outlive the files ``ondisk`` lets go)."""
        if self.memo_limit is None:
            return
        memos: tuple[Memo[Any, Any], ...] = (
            self.imports, self.targets, self.members, self.bases, self.mros, self.bindings,
            self.returns, self.globals, self.owners, self.aliases,
        )  # fmt: skip
        tables: tuple[dict[Any, Any], ...] = (
            self.module_tables, self.imported_files, self.function_imports,
            self.constructors, self.inits, self.parameters, self.import_results,
        )  # fmt: skip
        files = len(self.module_tables) + len(self.imported_files) + len(self.function_imports)
        entries = sum(map(len, memos)) + sum(map(len, tables))
        if entries <= self.memo_limit and files * FILE_MEMO_WEIGHT <= self.memo_limit:
            return
        for memo in memos:
            memo.clear()
        for table in tables:
            table.clear()

    def layout(self, file_id: int) -> Layout | None:
        spec = self.spec_of.get(file_id)
        return self.layouts.get(spec.name) if spec else None

    def module_of(self, file_id: int) -> Module | None:
        layout = self.layout(file_id)
        return layout.of_file.get(file_id) if layout else None

    def import_result(self, imp: ImportRow) -> ImportResult | None:
        """Where an import's specifier points (None for files of no known language)."""
        found = self.import_results.get(imp.id)
        if found is None:
            layout = self.layout(imp.file_id)
            if layout is None:
                return None
            found = self.import_results[imp.id] = layout.resolve_import(self.file(imp.file_id), imp)
        return found

    def local_name(self, imp: ImportRow) -> str | None:
        layout = self.layout(imp.file_id)
        return layout.local_name(imp) if layout is not None else None

    def file(self, file_id: int) -> FileRow:
        return self.project.files[file_id]

    def sym(self, sym_id: int) -> Sym:
        return self.project.syms[sym_id]
