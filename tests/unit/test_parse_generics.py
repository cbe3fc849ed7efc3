"""Type parameters name no symbol: a type written with one makes no reference, in every
language with generics, while the real types around it still do."""

from __future__ import annotations

import pytest

from repolens.parse import parse_source

SOURCES = {
    "typescript": (
        "app.ts",
        "export class Query<TData, TError extends Failure> {\n"
        "  state: TData | Request\n"
        "  fail(e: TError): Promise<TData> { return null as any }\n}\n"
        "type Unwrap<T> = T extends { value: infer V extends Box } ? V : never\n"
        "type Keys<T> = { [K in keyof T]: Request }\n",
    ),
    "java": (
        "Query.java",
        "class Query<TData extends Comparable<TData>> {\n"
        "  TData state; Request request;\n"
        "  <TError> TError fail(TError e, Box box) { return e; }\n}\n",
    ),
    "rust": (
        "lib.rs",
        "struct Query<TData> { state: TData, request: Request }\n"
        "impl<TData: Clone> Query<TData> {\n"
        "  fn fail<TError>(&self, e: TError, b: Box) -> TData { todo!() }\n}\n"
        "fn visit<Visitor>(v: Visitor) -> Visitor::Error { todo!() }\n",
    ),
    "go": (
        "query.go",
        "package q\n\ntype Query[TData any] struct {\n\tstate TData\n\trequest Request\n}\n\n"
        "func Fail[TError error](e TError, b Box) TError { return e }\n",
    ),
}


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_type_parameters_make_no_references(language: str) -> None:
    path, text = SOURCES[language]
    parsed = parse_source(path, language, text.encode())
    typed = {ref.name for ref in parsed.references if ref.kind in ("type_of", "returns")}
    heads = {
        (ref.receiver or "").split(".")[0].split("::")[0]
        for ref in parsed.references
        if ref.kind in ("type_of", "returns")
    }
    parameters = {"TData", "TError", "T", "V", "K", "Visitor"}
    assert not typed & parameters
    assert not heads & parameters
    assert "Request" in typed or "Box" in typed
