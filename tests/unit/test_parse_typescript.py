"""TypeScript, TSX and JavaScript (with JSX and CommonJS) extraction."""

from __future__ import annotations

from pathlib import Path

import pytest

from repolens.parse import Binding, Import, ParsedFile, parse_source

FIXTURES = Path(__file__).parents[1] / "fixtures" / "parse"


@pytest.fixture(scope="module")
def ts() -> ParsedFile:
    return parse_source("src/service.ts", "typescript", (FIXTURES / "service.ts").read_bytes())


@pytest.fixture(scope="module")
def js() -> ParsedFile:
    return parse_source("src/widget.jsx", "javascript", (FIXTURES / "widget.jsx").read_bytes())


def index(parsed: ParsedFile) -> dict[str, int]:
    return {s.qualified_name: i for i, s in enumerate(parsed.symbols)}


def of_kind(parsed: ParsedFile, kind: str) -> set[tuple[str, str | None, int | None]]:
    return {(r.name, r.receiver, r.source) for r in parsed.references if r.kind == kind}


def test_ts_symbols(ts: ParsedFile) -> None:
    got = [(s.kind, s.qualified_name, s.start_line, s.end_line, s.is_exported) for s in ts.symbols]
    assert got == [
        ("class", "Service", 10, 34, True),
        ("field", "Service.repo", 12, 12, False),
        ("field", "Service.instances", 13, 13, True),
        ("constructor", "Service.constructor", 15, 17, True),
        ("method", "Service.run", 20, 27, True),
        ("property", "Service.size", 29, 31, True),
        ("method", "Service.#secret", 33, 33, False),
        ("interface", "Runner", 36, 39, True),
        ("method", "Runner.run", 37, 37, True),
        ("field", "Runner.name", 38, 38, True),
        ("type_alias", "MaybeJob", 41, 41, True),
        ("enum", "Color", 43, 46, False),
        ("enum_member", "Color.Red", 44, 44, False),
        ("enum_member", "Color.Green", 45, 45, False),
        ("function", "handler", 48, 50, True),
        ("function", "helper", 52, 54, True),  # exported by `export { helper }`
    ]


def test_ts_symbol_details(ts: ParsedFile) -> None:
    sym = {s.qualified_name: s for s in ts.symbols}
    service = sym["Service"]
    assert service.docstring == "Runs jobs against a repository."
    assert service.decorators == ("Injectable()",)
    assert service.signature == (
        "class Service extends BaseService<Job> implements Runner, Disposable"
    )
    assert service.bases == ("BaseService", "Runner", "Disposable")
    run = sym["Service.run"]
    assert run.is_async and run.docstring == "Run everything."
    assert run.signature == "async run(job: Job, opts?: Options): Promise<Result>"
    assert run.return_type == "Promise<Result>"
    assert sym["Service.repo"].visibility == "private"
    assert sym["Service.#secret"].visibility == "private"
    assert sym["Service.instances"].is_static
    assert sym["handler"].is_async
    assert sym["handler"].signature == "handler = async (req: Request): Promise<void> =>"


def test_ts_references(ts: ParsedFile) -> None:
    idx = index(ts)
    run = idx["Service.run"]
    calls = of_kind(ts, "calls")
    assert {("connect", "util", run), ("save", "this.repo", run)} <= calls
    assert ("then", "this.repo.save()", run) in calls
    assert ("addEventListener", "el", run) in calls
    assert ("super", None, idx["Service.constructor"]) in calls
    assert ("Injectable", None, None) in calls  # a decorator runs in the enclosing scope
    assert of_kind(ts, "instantiates") == {("JobRunner", None, run), ("Cache", None, run)}
    assert of_kind(ts, "extends") == {
        ("BaseService", None, idx["Service"]),
        ("Base", None, idx["Runner"]),
    }
    assert of_kind(ts, "implements") == {
        ("Runner", None, idx["Service"]),
        ("Disposable", None, idx["Service"]),
    }
    assert ("Injectable", None, idx["Service"]) in of_kind(ts, "decorates")
    values = of_kind(ts, "references")
    assert {("onSaved", None, run), ("onClick", "this", run), ("finish", None, run)} <= values
    assert ("runner", None, run) not in values  # `{ runner }` of a `const runner`: a local
    assert {("Result", None, run), ("Result", None, idx["Runner.run"])} <= of_kind(ts, "returns")
    type_of = {r.name for r in ts.references if r.kind == "type_of"}
    assert {"Repo", "Store", "Job", "Options", "Request"} <= type_of
    assert not type_of & {"string", "number", "Promise"}


def test_ts_imports_and_reexports(ts: ParsedFile) -> None:
    assert ts.imports == [
        Import("./repo", 1, name="default", alias="Default"),
        Import("./repo", 1, name="load", alias="loadRepo"),
        Import("./repo", 1, name="save"),
        Import("../util", 2, alias="util"),
        Import("./helper", 3, name="Helper", alias="PublicHelper", is_reexport=True),
        Import("./types", 4, is_wildcard=True, is_reexport=True),
        Import("./config", 5, name="Config"),
        Import("./lazy", 49, source=index(ts)["handler"]),  # dynamic import()
        Import("./service", 56, name="helper", alias="aliased", is_reexport=True),
        Import("./service", 57, name="Service", alias="default", is_reexport=True),
    ]
    assert ts.exports == ["helper"]


def test_imports_held_by_variables() -> None:
    """A module a variable holds is a dependency whatever the call: ``import()`` too, not
    only ``require``; a destructured ``require`` is imported where its declaration starts."""
    source = b"const lazy = import('./lazy');\nconst {\n  a,\n} = require('./b');\n"
    parsed = parse_source("src/use.ts", "typescript", source)
    assert parsed.imports == [Import("./lazy", 1), Import("./b", 2, name="a")]


def test_ts_bindings(ts: ParsedFile) -> None:
    idx = index(ts)
    service, run = idx["Service"], idx["Service.run"]
    expected = [
        Binding(service, "repo", "Repo", 12),
        Binding(service, "this.repo", "Repo", 12),
        Binding(idx["Service.constructor"], "store", "Store", 15),
        Binding(service, "this.store", "Store", 15),  # constructor parameter property
        Binding(service, "this.name", "string", 15),  # a builtin type: `.trim()` is string's
        Binding(run, "job", "Job", 20),
        Binding(run, "opts", "Options", 20),
        Binding(run, "runner", "JobRunner", 21),
        Binding(service, "this.cache", "Cache", 22),
        Binding(run, "conn", "util.connect", 23, from_call=True),
        Binding(idx["handler"], "req", "Request", 48),
    ]
    assert [b for b in expected if b not in ts.bindings] == []


def test_js_jsx_and_commonjs(js: ParsedFile) -> None:
    got = [(s.kind, s.qualified_name, s.is_exported) for s in js.symbols]
    assert got == [
        ("constant", "MAX_SIZE", False),
        ("function", "Widget", True),
        ("class", "Store", True),
        ("method", "Store.create", True),
        ("method", "Store.load", True),
        ("function", "build", True),
    ]
    idx = index(js)
    widget = idx["Widget"]
    assert js.symbols[widget].docstring == "Renders a widget.\nSecond line."
    assert js.symbols[idx["Store.create"]].is_static
    calls = of_kind(js, "calls")
    assert {("Panel", None, widget), ("Row", "Layout", widget), ("map", "items", widget)} <= calls
    assert not any(name == "div" for name, _, _ in calls)  # intrinsic elements are not calls
    assert ("readFileSync", "fs", idx["Store.load"]) in calls
    assert ("Store", None, idx["Store.create"]) in of_kind(js, "instantiates")
    assert ("mixin", None, idx["Store"]) in of_kind(js, "extends")
    values = of_kind(js, "references")
    assert {("renderItem", None, widget), ("handleClick", None, widget)} <= values
    assert js.imports == [
        Import("fs", 1, alias="fs"),
        Import("path", 2, name="join"),
        Import("path", 2, name="resolve", alias="res"),
    ]
    assert js.exports == ["Widget", "Store"]
    assert Binding(widget, "list", "items.map", 8, from_call=True) in js.bindings


def test_tsx_components() -> None:
    src = b"""import React from 'react';
export function App({ user }: Props): JSX.Element {
  const [x, setX] = useState(0);
  return <Layout title={user.name}><Avatar user={user} onPick={pick} onSet={setX} /></Layout>;
}
"""
    parsed = parse_source("src/App.tsx", "tsx", src)
    assert [(s.kind, s.name, s.is_exported) for s in parsed.symbols] == [("function", "App", True)]
    calls = {r.name for r in parsed.references if r.kind == "calls"}
    assert {"Layout", "Avatar", "useState"} <= calls
    values = {r.name for r in parsed.references if r.kind == "references"}
    assert "pick" in values
    assert "setX" not in values  # `const [x, setX] = ...`: a local
    assert Binding(0, "user", "Props", 2) not in parsed.bindings  # destructured, not bound
    assert parsed.imports == [Import("react", 1, name="default", alias="React")]


def test_ts_type_members_and_function_types() -> None:
    src = b"""type Props = { title: string; repo: Repo };
export const EMPTY: Readonly<Observer> & { closed: true } = { closed: true };
function on(cb: (event: Event, extra?: Extra) => void): void {}
"""
    parsed = parse_source("t.ts", "typescript", src)
    got = [(s.kind, s.qualified_name) for s in parsed.symbols]
    assert got == [
        ("type_alias", "Props"),
        ("field", "Props.title"),
        ("field", "Props.repo"),
        ("constant", "EMPTY"),  # its type literal's `closed` is not a symbol
        ("function", "on"),
    ]
    type_of = {r.name for r in parsed.references if r.kind == "type_of"}
    assert type_of == {"Repo", "Observer", "Event", "Extra"}  # not the parameter names


def test_ts_syntax_error_and_non_utf8() -> None:
    src = b"export class Ok { m(): void {} }\nfunction broken( {\nexport function later() {}\n"
    parsed = parse_source("bad.ts", "typescript", src)
    assert parsed.has_errors
    assert {"Ok", "Ok.m"} <= {s.qualified_name for s in parsed.symbols}
    latin = "// caf\xe9\nexport const x = f('\xe9');\n".encode("latin-1")
    parsed = parse_source("latin.js", "javascript", latin)
    assert [s.name for s in parsed.symbols] == ["x"]
    assert [r.name for r in parsed.references if r.kind == "calls"] == ["f"]
