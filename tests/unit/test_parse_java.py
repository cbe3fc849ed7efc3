"""Java extraction against a realistic file (tests/fixtures/parse/UserService.java)."""

from __future__ import annotations

from pathlib import Path

import pytest

from repolens.parse import Binding, Import, ParsedFile, parse_source

FIXTURE = Path(__file__).parents[1] / "fixtures" / "parse" / "UserService.java"


@pytest.fixture(scope="module")
def java() -> ParsedFile:
    return parse_source("src/main/java/com/acme/svc/UserService.java", "java", FIXTURE.read_bytes())


def index(parsed: ParsedFile) -> dict[str, int]:
    return {s.qualified_name: i for i, s in enumerate(parsed.symbols)}


def of_kind(parsed: ParsedFile, kind: str) -> set[tuple[str, str | None, int | None]]:
    return {(r.name, r.receiver, r.source) for r in parsed.references if r.kind == kind}


def test_symbols(java: ParsedFile) -> None:
    got = [(s.kind, s.qualified_name, s.start_line, s.visibility) for s in java.symbols]
    assert got == [
        ("namespace", "com.acme.svc", 1, "public"),
        ("class", "UserService", 11, "public"),
        ("field", "UserService.repo", 14, "private"),
        ("constant", "UserService.MAX", 15, "public"),
        ("field", "UserService.users", 16, "protected"),
        ("constructor", "UserService.UserService", 18, "public"),
        ("method", "UserService.find", 25, "public"),
        ("method", "UserService.helper", 35, "internal"),
        ("class", "UserService.Inner", 37, "private"),
        ("method", "UserService.Inner.compareTo", 38, "internal"),
        ("enum", "UserService.Status", 41, "internal"),
        ("enum_member", "UserService.Status.ACTIVE", 41, "public"),
        ("enum_member", "UserService.Status.INACTIVE", 41, "public"),
        ("constructor", "UserService.Status.Status", 41, "internal"),
        ("interface", "Repo", 44, "internal"),
        ("method", "Repo.get", 45, "public"),  # interface members are public
        ("method", "Repo.x", 46, "public"),
        ("class", "Point", 49, "internal"),
        ("interface", "Marker", 50, "internal"),
        ("class", "UserServiceTest", 52, "internal"),
        ("test", "UserServiceTest.findsUsers", 53, "internal"),
    ]


def test_symbol_details(java: ParsedFile) -> None:
    sym = {s.qualified_name: s for s in java.symbols}
    service = sym["UserService"]
    assert service.docstring == "A service."
    assert service.decorators == ("Service", 'Scope("x")')
    assert service.signature == (
        "public class UserService extends BaseService<User> implements Runnable, Closeable"
    )
    assert service.bases == ("BaseService<User>", "Runnable", "Closeable")
    find = sym["UserService.find"]
    assert find.decorators == ("Override",)
    assert find.docstring == "Finds."
    assert find.signature == (
        "public <T> Optional<User> find(String id, T extra) throws IOException"
    )
    assert find.return_type == "Optional<User>"
    assert sym["UserService.helper"].is_static and not find.is_static
    assert sym["UserService.MAX"].is_exported and not sym["UserService.repo"].is_exported
    assert sym["UserService.repo"].signature == "private final UserRepo repo"


def test_references(java: ParsedFile) -> None:
    idx = index(java)
    find = idx["UserService.find"]
    calls = of_kind(java, "calls")
    assert {("findById", "repo", find), ("orElse", "repo.findById()", find)} <= calls
    assert {("log", "Helper", find), ("of", "Optional", find), ("run", None, find)} <= calls
    assert ("super", None, idx["UserService.UserService"]) in calls
    assert ("validate", "each", idx["UserServiceTest.findsUsers"]) in calls
    assert of_kind(java, "instantiates") == {
        ("ArrayList", None, idx["UserService"]),
        ("Cache", None, find),
    }
    assert ("handle", "this", find) in of_kind(java, "references")  # this::handle
    assert of_kind(java, "extends") == {
        ("BaseService", None, idx["UserService"]),
        ("Base", None, idx["Repo"]),
        ("Other", None, idx["Repo"]),
    }
    assert of_kind(java, "implements") == {
        ("Runnable", None, idx["UserService"]),
        ("Closeable", None, idx["UserService"]),
        ("Comparable", None, idx["UserService.Inner"]),
    }
    assert ("Override", None, find) in of_kind(java, "decorates")
    assert ("User", None, find) in of_kind(java, "returns")


def test_imports(java: ParsedFile) -> None:
    assert java.imports == [
        Import("java.util", 3, name="List"),
        Import("java.util", 4, is_wildcard=True),
        Import("java.lang.Math", 5, name="max"),
        Import("org.junit.Assert", 6, is_wildcard=True),
    ]


def test_bindings(java: ParsedFile) -> None:
    idx = index(java)
    service, find = idx["UserService"], idx["UserService.find"]
    expected = [
        Binding(service, "repo", "UserRepo", 14),
        Binding(service, "this.repo", "UserRepo", 14),
        Binding(service, "users", "List<User>", 16),
        Binding(idx["UserService.UserService"], "repo", "UserRepo", 19),
        Binding(find, "id", "String", 26),  # a builtin type: `id.trim()` is no name guess
        Binding(find, "u", "User", 27),
        Binding(find, "cache", "Cache", 28),  # var cache = new Cache<...>()
        Binding(idx["Point"], "this.owner", "Repo<User>", 49),  # record component
        Binding(idx["UserServiceTest.findsUsers"], "each", "User", 55),
    ]
    assert [b for b in expected if b not in java.bindings] == []
    # `var` is what its value gives; `T extra` names a type variable, bound to nothing
    assert not any(b.type_name in ("var", "T") for b in java.bindings)


def test_syntax_error_keeps_the_rest() -> None:
    src = b"class A {\n  void ok() {}\n  void broken( {\n}\nclass B { int f; }\n"
    parsed = parse_source("A.java", "java", src)
    assert parsed.has_errors
    assert {"A", "A.ok"} <= {s.qualified_name for s in parsed.symbols}


def test_a_lambdas_locals_hold_in_its_body_only() -> None:
    """``r.route(x -> { Foo f = new Foo(); })``: ``f`` is a ``Foo`` inside the lambda
    only, not in the rest of the method."""
    source = (
        b"class A {\n  void run(Mux r) {\n    r.route(x -> {\n      Foo f = new Foo();\n"
        b"      f.go();\n    });\n  }\n}\n"
    )
    bindings = parse_source("src/A.java", "java", source).bindings
    assert [(b.name, b.type_name, b.line, b.end_line) for b in bindings] == [
        ("r", "Mux", 2, None),
        ("f", "Foo", 4, 6),
    ]
