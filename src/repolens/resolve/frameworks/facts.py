"""What framework rules read: the project's kept call sites and decorated definitions,
and a way to ask what a name written at a site means.

A rule never re-parses a file: it reads the call sites the parse stage kept
(``repolens.parse.callsites``), the decorators stored with each symbol, and asks the
resolution ladder what a handler's or router's name denotes from where it is written,
so ``include_router(orders.router)`` and ``path("", views.index)`` follow imports,
aliases and re-exports exactly as every other reference does.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field

from repolens.resolve import ladder
from repolens.resolve.context import Context
from repolens.resolve.frameworks.decorators import Value, parse_decorator
from repolens.resolve.namematch import is_test_path
from repolens.resolve.project import FileRow, RefRow, Sym


@dataclass(frozen=True, slots=True)
class Site:
    """One kept call: ``receiver`` and ``args`` as rendered values (``call_arguments.Value``)."""

    file_id: int
    source_id: int
    name: str
    line: int
    start: int
    end: int
    target: str
    receiver: Value | None
    args: list[Value]


@dataclass(frozen=True, slots=True)
class Route:
    """A route found by a rule: ``handler`` is None for an inline function, whose body
    spans ``line``..``end_line`` of the registering file, or for a handler outside the
    project (``external``: Django's ``TemplateView.as_view()``)."""

    method: str
    path: str
    handler: Sym | None
    file_id: int
    line: int
    end_line: int
    framework: str
    via: tuple[str, ...] = ()  # the prefix registrations it was composed through, path:line
    external: str = ""  # the handler as written when it is no project symbol (a library's view)


@dataclass(slots=True)
class Facts:
    ctx: Context
    conn: sqlite3.Connection  # for what the loaded project leaves out (variables' text)
    sites: dict[int, list[Site]] = field(default_factory=dict)  # file -> its sites in order
    # decorated symbols outside tests, each with its decorators' names
    _decorated: list[tuple[Sym, frozenset[str]]] | None = None
    _parsed: dict[int, list[Value]] = field(default_factory=dict)  # symbol -> decorators
    _imports: dict[tuple[int, tuple[str, ...]], bool] = field(default_factory=dict)

    @property
    def files(self) -> dict[int, FileRow]:
        return self.ctx.project.files

    def sites_named(self, *names: str, languages: frozenset[str] | None = None) -> Iterator[Site]:
        """Every site whose callee is one of ``names`` (compared lower-cased)."""
        wanted = {n.lower() for n in names}
        for fid, sites in self.sites.items():
            if languages is not None and self.files[fid].language not in languages:
                continue
            for site in sites:
                if site.name.lower() in wanted:
                    yield site

    def decorated(
        self, languages: frozenset[str], heads: frozenset[str] | None = None
    ) -> Iterator[tuple[Sym, list[Value]]]:
        """Symbols of ``languages`` with a decorator named one of ``heads`` (any when
        None), each of their decorators parsed (once, whichever rules ask)."""
        if self._decorated is None:
            files, tests = self.files, dict[int, bool]()
            self._decorated = []
            for sym in self.ctx.project.syms.values():
                if not sym.decorators:
                    continue
                test = tests.get(sym.file_id)
                if test is None:
                    test = tests[sym.file_id] = is_test_path(files[sym.file_id].path)
                if not test:
                    names = frozenset(decorator_head(d) for d in sym.decorators.split("\n"))
                    self._decorated.append((sym, names))
        for sym, names in self._decorated:
            if heads is not None and heads.isdisjoint(names):
                continue
            if self.files[sym.file_id].language not in languages:
                continue
            parsed = self._parsed.get(sym.id)
            if parsed is None:
                parsed = self._parsed[sym.id] = [
                    parse_decorator(d) for d in sym.decorators.split("\n") if d
                ]
            yield sym, parsed

    def imports_module(self, file_id: int, prefixes: tuple[str, ...]) -> bool:
        """Whether the file imports one of the modules (or their submodules) by name;
        remembered, as every rule asks it of the same files."""
        key = (file_id, prefixes)
        found = self._imports.get(key)
        if found is None:
            found = self._imports[key] = any(
                module.startswith(p) and module[len(p) : len(p) + 1] in ("", ".", "/", ":")
                for imp in self.ctx.project.imports.get(file_id, ())
                for module in (imp.module,)
                for p in prefixes
            )
        return found

    def where(self, file_id: int, line: int) -> str:
        return f"{self.files[file_id].path}:{line}"

    def resolve(self, file_id: int, scope_id: int, text: str, line: int) -> Sym | None:
        """The project symbol ``text`` (a name or dotted path) denotes at ``line``."""
        if not text or text in ("self", "this"):
            return None
        text = text.replace("::", ".").replace("\\", ".").strip(".")
        receiver, _, name = text.rpartition(".")
        ref = RefRow(-1, file_id, scope_id, "references", name, receiver or None, line, 0, 0, "")
        self.ctx.forget_file_memos()
        try:
            outcome = ladder.resolve_ref(self.ctx, ref)
        except (RecursionError, KeyError, ValueError):
            return None
        for hit in outcome.hits:
            if (
                hit.kind in ("references", "calls", "instantiates")
                and hit.provenance != "name-match"
            ):
                return hit.target
        return None

    def literal(self, site: Site, value: object) -> str | None:
        """A string argument, or the string a named constant holds (``prefix=
        settings.API_V1_STR`` with ``API_V1_STR: str = "/api/v1"``, Go's ``const
        base = "/v1"``): read from the definition as written."""
        text = string(value)
        if text is not None:
            return text
        dotted = name(value)
        if dotted is None:
            return None
        sym = self.resolve(site.file_id, site.source_id, dotted, site.line)
        if sym is None or sym.kind not in ("variable", "constant", "field"):
            return None
        row = self.conn.execute("SELECT signature FROM symbols WHERE id = ?", (sym.id,)).fetchone()
        found = _ASSIGNED_STRING.search(str(row[0])) if row else None
        return found.group(2) if found else None

    def top_level(self, file_id: int, name: str) -> Sym | None:
        found = self.ctx.project.top_level(file_id, name)
        return found[-1] if found else None


_ASSIGNED_STRING = re.compile(r"""[=:]\s*[rbuf]?(['"`])([^'"`]*)\1\s*;?\s*$""")


def decorator_head(text: str) -> str:
    """A decorator's last name before its arguments (``bp.route("/x")``: ``route``)."""
    return text.strip().lstrip("@#[").split("(", 1)[0].rstrip("]").rsplit(".", 1)[-1].strip()


def load_sites(conn: sqlite3.Connection) -> dict[int, list[Site]]:
    """Every call site of the project outside tests, by file, in source order."""
    by_file: dict[int, list[Site]] = {}
    rows = conn.execute(
        "SELECT c.file_id, c.source_id, c.name, c.line, c.start_byte, c.end_byte, c.target,"
        " c.args, f.path FROM call_sites c JOIN files f ON f.id = c.file_id"
        " ORDER BY c.file_id, c.start_byte"
    )
    for fid, source, name, line, start, end, target, args, path in rows:
        if is_test_path(path):  # a test's own routes are no service's
            continue
        try:
            receiver, items = json.loads(args)
        except (ValueError, TypeError):
            continue
        by_file.setdefault(fid, []).append(
            Site(fid, source, name, line, start, end, target, receiver, items)
        )
    return by_file


# Reading rendered values ---------------------------------------------------------------


def string(value: object) -> str | None:
    """A string literal's text; None for anything else."""
    if isinstance(value, list) and value and value[0] == "s":
        return str(value[1])
    return None


def name(value: object) -> str | None:
    """A name's dotted text; None for anything else."""
    if isinstance(value, list) and value and value[0] == "n":
        return str(value[1])
    return None


def call(value: object) -> tuple[str, Value | None, list[Value]] | None:
    """A call's (callee name, receiver, arguments); None for anything else."""
    if isinstance(value, list) and len(value) == 4 and value[0] == "c":
        return str(value[1]), value[2], list(value[3])
    return None


def items(value: object) -> list[Value]:
    """A list's items (a lone value as one item)."""
    if isinstance(value, list) and value and value[0] in ("l", "o"):
        return list(value[1])
    return [value] if isinstance(value, list) else []


def positional(args: list[Value]) -> list[Value]:
    return [a for a in args if not (a and a[0] == "k")]


def keyword(args: list[Value], *keys: str) -> Value | None:
    """The value of the first of ``keys`` among keyword arguments, also inside one
    object argument (``{ path: "orders" }``, ``{prefix: '/v1'}``)."""
    for arg in args:
        if arg and arg[0] == "k" and arg[1] in keys:
            return arg[2]
    for arg in args:
        if arg and arg[0] in ("o", "l"):
            for entry in arg[1]:
                if isinstance(entry, list) and entry and entry[0] == "k" and entry[1] in keys:
                    return entry[2]
    return None


def strings(value: object) -> list[str]:
    """A string, or the strings of a list (``methods=["GET", "POST"]``)."""
    one = string(value)
    if one is not None:
        return [one]
    return [s for s in (string(v) for v in items(value)) if s is not None]


def head_name(value: object) -> str | None:
    """The dotted name a value ends at: a name, or a call's callee path (``views.Order
    List.as_view()`` gives ``views.OrderList.as_view``)."""
    text = name(value)
    if text is not None:
        return text
    found = call(value)
    if found is None:
        return None
    callee, receiver, _ = found
    base = head_name(receiver) if receiver is not None else None
    return f"{base}.{callee}" if base else callee
