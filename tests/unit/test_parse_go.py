"""Go extraction against a realistic file (tests/fixtures/parse/server.go)."""

from __future__ import annotations

from pathlib import Path

import pytest

from repolens.parse import Binding, Import, ParsedFile, parse_source

FIXTURE = Path(__file__).parents[1] / "fixtures" / "parse" / "server.go"


@pytest.fixture(scope="module")
def go() -> ParsedFile:
    return parse_source("server/server.go", "go", FIXTURE.read_bytes())


def index(parsed: ParsedFile) -> dict[str, int]:
    return {s.qualified_name: i for i, s in enumerate(parsed.symbols)}


def of_kind(parsed: ParsedFile, kind: str) -> set[tuple[str, str | None, int | None]]:
    return {(r.name, r.receiver, r.source) for r in parsed.references if r.kind == kind}


def test_symbols(go: ParsedFile) -> None:
    got = [(s.kind, s.qualified_name, s.start_line, s.visibility) for s in go.symbols]
    assert got == [
        ("constant", "MaxConns", 13, "public"),
        ("variable", "client", 15, "internal"),
        ("struct", "Server", 19, "public"),
        ("field", "Server.repo", 22, "internal"),
        ("field", "Server.Name", 23, "public"),
        ("field", "Server.cache", 24, "internal"),
        ("interface", "Handler", 27, "public"),
        ("method", "Handler.Serve", 28, "public"),
        ("type_alias", "ID", 32, "public"),
        ("function", "NewServer", 35, "public"),
        ("method", "Server.Run", 45, "public"),
        ("struct", "Later", 53, "public"),
        ("method", "Later.Close", 51, "public"),  # follows its type, declared later
        ("method", "Server.handle", 55, "internal"),
        ("test", "TestRun", 57, "public"),
    ]
    idx = index(go)
    for method in ("Server.Run", "Server.handle"):
        assert go.symbols[idx[method]].parent == idx["Server"]
    assert go.symbols[idx["Later.Close"]].parent == idx["Later"]


def test_symbol_details(go: ParsedFile) -> None:
    sym = {s.qualified_name: s for s in go.symbols}
    server = sym["Server"]
    assert server.signature == "type Server struct"
    assert server.docstring == "Server serves requests.\nIt owns a repository."
    assert server.bases == ("Base", "repo.Store")
    assert (server.end_line, server.is_exported) == (25, True)
    new = sym["NewServer"]
    assert new.signature == "func NewServer(r *repo.Repo, opts ...Option) (*Server, error)"
    assert new.return_type == "(*Server, error)"
    assert new.docstring == "NewServer builds a server."
    assert sym["MaxConns"].docstring == "MaxConns is the connection limit."
    assert sym["ID"].signature == "type ID = string"
    assert not sym["Server.handle"].is_exported


def test_references(go: ParsedFile) -> None:
    idx = index(go)
    new, run = idx["NewServer"], idx["Server.Run"]
    calls = of_kind(go, "calls")
    assert {("NewCache", None, new), ("Open", "repo", new), ("Run", "s", new)} <= calls
    assert {("Save", "s.repo", run), ("ToUpper", "str", run), ("Sqrt", None, run)} <= calls
    assert ("Run", "NewServer()", idx["TestRun"]) in calls
    assert of_kind(go, "instantiates") == {("Server", None, new), ("Item", None, run)}
    assert ("handle", "s", new) in of_kind(go, "references")  # a method value as callback
    assert of_kind(go, "extends") == {
        ("Base", None, idx["Server"]),
        ("Store", "repo", idx["Server"]),
        ("Stringer", "fmt", idx["Handler"]),
    }
    assert ("Server", None, new) in of_kind(go, "returns")
    assert ("Repo", "repo", new) in of_kind(go, "type_of")
    assert not {name for name, _, _ in of_kind(go, "type_of")} & {"string", "error", "int"}


def test_imports(go: ParsedFile) -> None:
    assert go.imports == [
        Import("fmt", 4),
        Import("strings", 5, alias="str"),
        Import("math", 6, is_wildcard=True),
        Import("embed", 7, alias="_"),
        Import("github.com/acme/repo", 9),
    ]


def test_bindings(go: ParsedFile) -> None:
    idx = index(go)
    new, run = idx["NewServer"], idx["Server.Run"]
    expected = [
        Binding(None, "client", "http.Client", 15),
        Binding(idx["Server"], "repo", "repo.Repo", 22),
        Binding(new, "r", "repo.Repo", 35),
        Binding(new, "s", "Server", 36),  # s := &Server{...}
        Binding(new, "c", "Cache", 37),
        Binding(new, "x", "NewCache", 38, from_call=True),
        Binding(new, "y", "repo.Open", 39, from_call=True),
        Binding(run, "s", "Server", 45),  # the receiver
        Binding(run, "ctx", "context.Context", 45),
    ]
    assert [b for b in expected if b not in go.bindings] == []


def test_receiver_type_in_another_file() -> None:
    parsed = parse_source(
        "b.go", "go", b"package p\n\nfunc (c *Client) Do() error { return c.send() }\n"
    )
    (method,) = parsed.symbols
    assert (method.kind, method.qualified_name, method.parent) == ("method", "Client.Do", None)
    assert Binding(0, "c", "Client", 3) in parsed.bindings
    calls = [(r.name, r.receiver, r.source) for r in parsed.references if r.kind == "calls"]
    assert calls == [("send", "c", 0)]


def test_syntax_error_keeps_the_rest() -> None:
    src = b"package p\n\nfunc Good() {}\n\nfunc Bad( {\n\ntype T struct{ A int }\n"
    parsed = parse_source("bad.go", "go", src)
    assert parsed.has_errors
    assert "Good" in {s.name for s in parsed.symbols}


def test_locals_passed_as_values_are_no_references() -> None:
    """``h(w, r)`` inside a closure, ``mux := ...`` then ``use(mux)``, a range variable and
    a type switch's variable are locals; a package function passed by name still is a
    reference (``http.HandleFunc("/", index)``)."""
    source = (
        "package web\n\nfunc index(w Writer, r *Request) {}\n\n"
        "func Routes(h Handler) {\n"
        "\tmux := NewMux()\n\tuse(mux)\n"
        '\tHandleFunc("/", index)\n'
        '\tHandleFunc("/x", func(w Writer, r *Request) { h(w, r) })\n'
        "\tfor _, route := range routes {\n\t\tadd(route)\n\t}\n"
        "\tswitch v := any(h).(type) {\n\tdefault:\n\t\tkeep(v)\n\t}\n}\n"
    )
    parsed = parse_source("web.go", "go", source.encode())
    values = {ref.name for ref in parsed.references if ref.kind == "references"}
    assert "index" in values
    assert not values & {"w", "r", "mux", "route", "v"}
