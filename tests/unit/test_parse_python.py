"""Python extraction against a realistic module (tests/fixtures/parse/python_sample.txt)."""

from __future__ import annotations

from pathlib import Path

import pytest

from repolens.parse import Binding, Import, ParsedFile, parse_source

FIXTURE = Path(__file__).parents[1] / "fixtures" / "parse" / "python_sample.txt"


@pytest.fixture(scope="module")
def parsed() -> ParsedFile:
    return parse_source("pkg/service.py", "python", FIXTURE.read_bytes())


def by_qname(parsed: ParsedFile) -> dict[str, int]:
    return {s.qualified_name: i for i, s in enumerate(parsed.symbols)}


def refs(parsed: ParsedFile, kind: str) -> set[tuple[str, str | None, int]]:
    return {(r.name, r.receiver, r.line) for r in parsed.references if r.kind == kind}


def test_symbols_kinds_names_and_lines(parsed: ParsedFile) -> None:
    got = [(s.kind, s.qualified_name, s.start_line, s.end_line) for s in parsed.symbols]
    assert got == [
        ("variable", "__all__", 10, 10),
        ("constant", "MAX_RETRIES", 12, 12),
        ("variable", "default_name", 13, 13),
        ("function", "connect", 16, 23),
        ("class", "Service", 26, 57),
        ("field", "Service.name", 29, 29),
        ("field", "Service.store", 30, 30),
        ("constructor", "Service.__init__", 32, 35),
        ("property", "Service.size", 37, 39),
        ("method", "Service.build", 41, 43),
        ("method", "Service.run", 45, 54),
        ("function", "Service.run.helper", 48, 49),
        ("method", "Service._private", 56, 57),
        ("function", "handler", 60, 62),
        ("enum", "Color", 65, 67),
        ("enum_member", "Color.RED", 66, 66),
        ("enum_member", "Color.GREEN", 67, 67),
        ("class", "TestService", 70, 72),
        ("test", "TestService.test_run", 71, 72),
    ]
    for sym in parsed.symbols:
        if sym.parent is not None:
            parent = parsed.symbols[sym.parent]
            assert sym.qualified_name.startswith(parent.qualified_name + ".")


def test_symbol_details(parsed: ParsedFile) -> None:
    sym = {s.qualified_name: s for s in parsed.symbols}
    connect = sym["connect"]
    assert connect.signature == (
        'def connect(path: "Path", retries: int = MAX_RETRIES) -> Optional[Conn]'
    )
    assert connect.docstring == "Open a connection.\n\nRetries on failure."
    assert connect.return_type == "Optional[Conn]"
    service = sym["Service"]
    assert service.docstring == "A service."
    assert service.bases == ("BaseRepo",)
    assert service.signature == "class Service(BaseRepo, metaclass=Meta)"
    assert sym["Service.build"].is_static and sym["Service.build"].decorators == ("staticmethod",)
    assert sym["Service.size"].decorators == ("property",)
    assert sym["Service.run"].is_async and not sym["Service.size"].is_async
    assert sym["handler"].decorators == ('app.route("/x")',)
    assert sym["handler"].start_line == 60  # decorators are part of the definition
    private = sym["Service._private"]
    assert (private.visibility, private.is_exported) == ("private", False)
    assert not sym["Service.run.helper"].is_exported  # locals are never exported
    assert sym["Service.run"].is_exported and sym["connect"].visibility == "public"
    assert sym["Service.name"].signature == 'name: str = "svc"'


def test_calls_with_receivers(parsed: ParsedFile) -> None:
    index = by_qname(parsed)
    calls = {(r.name, r.receiver, r.source) for r in parsed.references if r.kind == "calls"}
    run = index["Service.run"]
    assert ("make_conn", None, index["connect"]) in calls
    assert ("join", "os.path", index["connect"]) in calls
    assert ("Repo", "models", index["Service.__init__"]) in calls
    assert ("save", "self.repo", run) in calls
    assert ("run", "super()", run) in calls
    assert ("c", "a.b()", run) in calls
    assert ("b", "a", run) in calls
    assert ("Service", None, index["Service.build"]) in calls  # the resolver decides it's a class
    save = next(r for r in parsed.references if r.name == "save")
    assert (save.line, save.arg_count) == (51, 2)


def test_heritage_decorators_and_types(parsed: ParsedFile) -> None:
    index = by_qname(parsed)
    extends = {(r.name, r.source) for r in parsed.references if r.kind == "extends"}
    assert extends == {("BaseRepo", index["Service"]), ("Enum", index["Color"])}
    assert ("route", "app", 60) in refs(parsed, "decorates")
    assert ("staticmethod", None, 41) in refs(parsed, "decorates")
    type_of = {r.name for r in parsed.references if r.kind == "type_of"}
    assert {"Path", "Store", "Repo", "Cache", "Item"} <= type_of
    assert not type_of & {"int", "str", "list", "Optional"}  # builtins are skipped
    assert {r.name for r in parsed.references if r.kind == "returns"} == {"Conn", "Service"}


def test_callback_references(parsed: ParsedFile) -> None:
    run = by_qname(parsed)["Service.run"]
    values = {(r.name, r.receiver) for r in parsed.references if r.kind == "references"}
    assert ("helper", None) in values  # register(helper, ...)
    assert ("on_done", "self") in values  # callback=self.on_done
    assert ("on_done", None) in values  # {"done": on_done}
    assert all(r.source == run for r in parsed.references if r.name == "helper")


def test_imports(parsed: ParsedFile) -> None:
    run = by_qname(parsed)["Service.run"]
    assert parsed.imports == [
        Import("os.path", 3),
        Import("json", 4, alias="j"),
        Import("sys", 4),
        Import("", 5, name="models", level=1),
        Import("repo", 6, name="Repo", alias="BaseRepo", level=1, is_reexport=True),
        Import("repo", 6, name="load", level=1),
        Import("util.io", 7, level=2, is_wildcard=True),
        Import("typing", 8, name="Optional"),
        Import("jobs", 46, name="Job", level=1, source=run),
    ]
    assert parsed.exports == ["Service", "connect", "BaseRepo"]


def test_bindings(parsed: ParsedFile) -> None:
    index = by_qname(parsed)
    service, init = index["Service"], index["Service.__init__"]
    expected = [
        Binding(index["connect"], "path", "Path", 16),
        Binding(index["connect"], "retries", "int", 16),  # builtin: calls on it never guess
        Binding(index["connect"], "conn", "make_conn", 21, from_call=True),
        Binding(service, "store", "Store", 30),
        Binding(service, "self.store", "Store", 30),
        Binding(init, "repo", "Repo", 32),
        Binding(service, "self.repo", "models.Repo", 33, from_call=True),
        Binding(service, "self.cache", "Cache", 34),
        Binding(index["Service.run"], "items", "list[Item]", 45),
    ]
    assert [b for b in expected if b not in parsed.bindings] == []


def test_module_level_binding_and_optional_types() -> None:
    src = b"repo = Repo()\ndef f(r: Optional[Repo], s: 'Store | None'):\n    pass\n"
    parsed = parse_source("m.py", "python", src)
    assert Binding(None, "repo", "Repo", 1, from_call=True) in parsed.bindings
    assert Binding(1, "r", "Repo", 2) in parsed.bindings
    assert Binding(1, "s", "Store", 2) in parsed.bindings


def test_a_fallback_or_the_one_value_not_none_binds_like_a_call() -> None:
    src = (
        b"class S:\n    def __init__(self, session=None, x=None):\n"
        b"        self.session = session or Session()\n"
        b"        self.x = Foo() if x else None\n"
        b"        y = None if x else m.Bar()\n"
        b"        z = a or b\n"
        b"        w = None if x else 3\n"
    )
    parsed = parse_source("m.py", "python", src)
    assert [(b.name, b.type_name, b.line, b.from_call) for b in parsed.bindings] == [
        ("self.session", "Session", 3, True),
        ("self.x", "Foo", 4, True),
        ("y", "m.Bar", 5, True),
    ]


def test_enumerate_binds_its_second_target_as_the_loop_would() -> None:
    src = (
        b"def f(nodes: list[Node], pairs: list[Pair]):\n"
        b"    for i, node in enumerate(nodes):\n        pass\n"
        b"    for a, b in pairs:\n        pass\n"
    )
    parsed = parse_source("m.py", "python", src)
    assert [(b.name, b.type_name, b.line) for b in parsed.bindings if b.line > 1] == [
        ("node", "Node", 2)  # a tuple target of anything else is not guessed
    ]


def test_isinstance_narrowing_binds_on_its_lines_only() -> None:
    src = (
        b"if isinstance(top, Repo):\n    pass\n"
        b"def f(v, w, n):\n"
        b"    if isinstance(v, Repo):\n        v.save()\n"
        b"    elif isinstance(v, m.Store):\n        pass\n"
        b"    if not isinstance(w, Repo):\n        raise TypeError(w)\n"
        b"    if not isinstance(n, Repo):\n        log(n)\n"
        b"    assert isinstance(n, Store)\n"
        b"    assert isinstance(w, str)\n"
        b"    return w\n"
        b"def g(v):\n    if isinstance(v, Repo):\n        pass\n    return v\n"
    )
    parsed = parse_source("m.py", "python", src)
    assert sorted((b.name, b.type_name, b.line, b.end_line) for b in parsed.bindings) == [
        ("n", "Store", 13, 14),  # from after the assert to the function's end
        ("return", "str", 14, None),  # `return w` where `w` is narrowed; not `g`'s `v`
        ("v", "Repo", 4, 5),  # the block
        ("v", "Repo", 16, 17),
        ("v", "m.Store", 6, 7),
        ("w", "Repo", 10, 14),  # after a guard that raises; not after one that goes on
        ("w", "str", 14, 14),  # a builtin type too: after the assert, `w.upper()` is str's
    ]


def test_signature_leaves_out_comments() -> None:
    src = b"def f(a,  # the first\n      b: int = 2):  # trailing\n    return a\n"
    (sym,) = parse_source("m.py", "python", src).symbols
    assert sym.signature == "def f(a, b: int = 2)"


def test_syntax_error_keeps_what_parsed() -> None:
    src = (
        b"def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    def m(self): ...\n"
    )
    parsed = parse_source("bad.py", "python", src)
    assert parsed.has_errors
    names = {s.qualified_name for s in parsed.symbols}
    assert {"ok", "Fine", "Fine.m"} <= names


def test_non_utf8_and_empty() -> None:
    src = "# coding: latin-1\ndef caf\xe9():\n    return 'd\xe9j\xe0'\n".encode("latin-1")
    parsed = parse_source("latin.py", "python", src)
    assert parsed.line_count == 3
    assert not parsed.error
    empty = parse_source("empty.py", "python", b"")
    assert (empty.symbols, empty.references, empty.line_count, empty.has_errors) == (
        [],
        [],
        0,
        False,
    )


def test_large_generated_file() -> None:
    lines = []
    for i in range(1000):
        lines += [f"def f{i}(x: Repo) -> Repo:", f"    return g{i}(x)", "", "", ""]
    parsed = parse_source("big.py", "python", ("\n".join(lines) + "\n").encode())
    assert parsed.line_count == 5000
    assert len(parsed.symbols) == 1000
    assert parsed.symbols[-1].start_line == 4996
    assert sum(r.kind == "calls" for r in parsed.references) == 1000


def test_each_call_comes_from_the_innermost_scope_around_it() -> None:
    src = (
        b"a()\n"
        b"class C:\n"
        b"    def m(self):\n"
        b"        def inner(): b()\n"
        b"        c()\n"
        b"    d()\n"
        b"    def n(self): e()\n"
        b"f()\n"
    )
    parsed = parse_source("m.py", "python", src)
    names = {i: s.qualified_name for i, s in enumerate(parsed.symbols)}
    calls = [(r.name, names.get(r.source)) for r in parsed.references if r.kind == "calls"]
    assert calls == [
        ("a", None),
        ("b", "C.m.inner"),
        ("c", "C.m"),
        ("d", "C"),
        ("e", "C.n"),
        ("f", None),
    ]


def test_type_checking_block_defines_module_variables_other_blocks_do_not() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import typing\n"
        "if TYPE_CHECKING:\n"
        "    Interval = tuple[int, int]\n"
        "if typing.TYPE_CHECKING:\n"
        "    UriType: TypeAlias = str | bytes\n"
        "try:\n"
        "    import json\n"
        "except ImportError:\n"
        "    json = None\n"
        "if DEBUG:\n"
        "    LEVEL = 1\n"
        "def span(x: Interval) -> Interval:\n"
        "    return x\n"
    )
    parsed = parse_source("ranges.py", "python", source.encode())
    defined = {(s.name, s.kind, s.parent) for s in parsed.symbols}
    assert {("Interval", "variable", None), ("UriType", "type_alias", None)} <= defined
    assert not {name for name, _, _ in defined} & {"json", "LEVEL"}
