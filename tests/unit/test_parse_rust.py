"""Rust extraction against a realistic file (tests/fixtures/parse/store.rs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from repolens.parse import Binding, Import, ParsedFile, parse_source

FIXTURE = Path(__file__).parents[1] / "fixtures" / "parse" / "store.rs"


@pytest.fixture(scope="module")
def rs() -> ParsedFile:
    return parse_source("src/store.rs", "rust", FIXTURE.read_bytes())


def index(parsed: ParsedFile) -> dict[str, int]:
    return {s.qualified_name: i for i, s in enumerate(parsed.symbols)}


def of_kind(parsed: ParsedFile, kind: str) -> set[tuple[str, str | None, int | None]]:
    return {(r.name, r.receiver, r.source) for r in parsed.references if r.kind == kind}


def test_symbols(rs: ParsedFile) -> None:
    got = [(s.kind, s.qualified_name, s.start_line, s.visibility) for s in rs.symbols]
    assert got == [
        ("module", "inner", 8, "private"),
        ("module", "nested", 9, "public"),
        ("function", "nested.deep", 10, "public"),
        ("struct", "Store", 14, "public"),  # starts at its attribute
        ("field", "Store.repo", 16, "public"),
        ("field", "Store.cache", 17, "private"),
        ("enum", "Kind", 20, "public"),
        ("enum_member", "Kind.A", 20, "public"),
        ("enum_member", "Kind.B", 20, "public"),
        ("enum_member", "Kind.C", 20, "public"),
        ("field", "Kind.C.x", 20, "private"),
        ("trait", "Saver", 22, "public"),
        ("method", "Saver.save", 23, "public"),
        ("method", "Saver.name", 24, "public"),
        ("method", "Store.new", 29, "public"),
        ("method", "Store.run", 33, "public"),
        ("method", "Store.save", 47, "public"),  # a trait impl member is as public as the trait
        ("constant", "MAX", 50, "internal"),
        ("variable", "COUNT", 51, "private"),
        ("type_alias", "Alias", 52, "private"),
        ("macro", "my_macro", 54, "private"),
        ("module", "tests", 56, "private"),
        ("test", "tests.it_works", 59, "private"),
        ("method", "Wrapper.fmt", 64, "public"),  # impl for a type declared elsewhere
    ]
    idx = index(rs)
    for method in ("Store.new", "Store.run", "Store.save"):
        assert rs.symbols[idx[method]].parent == idx["Store"]
    assert rs.symbols[idx["Wrapper.fmt"]].parent is None


def test_symbol_details(rs: ParsedFile) -> None:
    sym = {s.qualified_name: s for s in rs.symbols}
    store = sym["Store"]
    assert store.docstring == "A store."
    assert store.decorators == ("derive(Debug, Clone)",)
    assert store.signature == "pub struct Store<T>"
    new, run = sym["Store.new"], sym["Store.run"]
    assert new.docstring == "Makes one."
    assert new.is_static and not run.is_static
    assert run.is_async and not new.is_async
    assert run.signature == "pub async fn run(&mut self, item: &mut Item) -> Result<Out, Error>"
    assert run.return_type == "Out"  # what `?` reaches: methods are looked up on it
    assert sym["Saver"].bases == ("Debug", "Send")
    assert sym["tests.it_works"].decorators == ("test",)
    assert not sym["MAX"].is_exported and sym["Store.run"].is_exported
    assert sym["inner"].signature == "mod inner"


def test_references(rs: ParsedFile) -> None:
    idx = index(rs)
    new, run = idx["Store.new"], idx["Store.run"]
    calls = of_kind(rs, "calls")
    assert {("new", "HashMap", new), ("new", "Foo", run), ("open", "Other", run)} <= calls
    assert {("save", "self.repo", run), ("map", "items.iter()", run)} <= calls
    assert ("println", None, run) in calls  # macros are calls
    assert ("write", None, idx["Wrapper.fmt"]) in calls
    assert of_kind(rs, "instantiates") == {("Store", None, new), ("Baz", None, run)}
    assert of_kind(rs, "implements") == {("Saver", None, idx["Store"]), ("Display", None, None)}
    assert of_kind(rs, "extends") == {("Debug", None, idx["Saver"]), ("Send", None, idx["Saver"])}
    values = of_kind(rs, "references")
    assert {("handler", None, run), ("convert", "Self", run)} <= values
    assert ("test", None, idx["tests.it_works"]) in of_kind(rs, "decorates")
    assert {("Out", None, run), ("Error", None, run)} <= of_kind(rs, "returns")
    assert ("Item", None, idx["Alias"]) in of_kind(rs, "type_of")


def test_imports(rs: ParsedFile) -> None:
    tests = index(rs)["tests"]
    assert rs.imports == [
        Import("std::collections", 2, name="HashMap"),
        Import("crate::a::b", 3, name="C"),
        Import("crate::a::b", 3, name="d", alias="e"),
        Import("crate::a::b", 3, name="f"),  # `f::{self, ...}`
        Import("crate::a::b::f", 3, name="G"),
        Import("super", 4, name="x"),
        Import("self::inner", 5, is_wildcard=True, is_reexport=True),
        Import("::ext", 6, name="Thing"),
        Import("self", 8, name="inner"),  # `mod inner;`
        Import("super", 58, is_wildcard=True, source=tests),
    ]


def test_bindings(rs: ParsedFile) -> None:
    idx = index(rs)
    run = idx["Store.run"]
    expected = [
        Binding(idx["Store"], "repo", "Repo", 16),
        Binding(idx["Store"], "self.repo", "Repo", 16),
        Binding(idx["Saver.save"], "self", "Saver", 23),
        Binding(idx["Store.new"], "repo", "Repo", 29),
        Binding(run, "self", "Store", 33),
        Binding(run, "item", "Item", 33),  # `&mut Item`
        Binding(run, "x", "Foo", 34),  # Foo::new()
        Binding(run, "y", "Bar", 35),
        Binding(run, "z", "Other::open", 36, from_call=True),
        Binding(run, "w", "Baz", 37),
        Binding(idx["Wrapper.fmt"], "self", "Wrapper", 64),
    ]
    assert [b for b in expected if b not in rs.bindings] == []


def test_syntax_error_keeps_the_rest() -> None:
    src = b"pub fn good() {}\nfn bad( {\n}\npub struct After;\n"
    parsed = parse_source("bad.rs", "rust", src)
    assert parsed.has_errors
    assert "good" in {s.name for s in parsed.symbols}


def test_a_closures_typed_parameter_holds_in_its_body_only() -> None:
    """``r.route(|r: Router| { r.get(); })`` then ``r.get()``: the closure's ``r`` is a
    ``Router`` on its body's lines only; the function's ``r: Mux`` holds elsewhere."""
    source = (
        b"fn run(r: Mux) {\n    r.route(|r: Router| {\n        r.get();\n    });\n"
        b"    r.get();\n    items.iter().for_each(|x: &Bar| x.go());\n}\n"
    )
    parsed = parse_source("src/run.rs", "rust", source)
    assert parsed.bindings == [
        Binding(0, "r", "Mux", 1),
        Binding(0, "r", "Router", 3, end_line=4),
        Binding(0, "x", "Bar", 6, end_line=6),
    ]
