"""TypeScript (``.ts``, ``.mts``, ``.cts``) and TSX (``.tsx``): two grammars, one spec shape.

See ``ecmascript`` for the conventions shared with JavaScript. TypeScript adds interfaces,
type aliases, enums, namespaces, typed parameters and fields (bindings), and constructor
parameter properties (``constructor(private repo: Repo)`` binds ``this.repo``).
"""

from __future__ import annotations

import re

from repolens.parse.languages import ecmascript as es
from repolens.parse.languages import ecmascript_modules as modules
from repolens.parse.languages.ecmascript_assignments import object_members
from repolens.parse.languages.ecmascript_expand import expand
from repolens.parse.spec import LanguageSpec
from repolens.parse.text import split_top, strip_generics

_TYPED = "type: (type_annotation) @bind.type"

QUERY = (
    es.DEFS
    + f"""
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.interface
(type_alias_declaration name: (_) @name) @def.type_alias
(enum_declaration name: (_) @name) @def.enum
(enum_body [(property_identifier) @name @def.enum_member
            (enum_assignment name: (_) @name) @def.enum_member])
(internal_module name: (_) @name) @def.namespace
(interface_body (method_signature name: (_) @name) @def.method)
(type_alias_declaration value: (object_type
  (method_signature name: (_) @name) @def.method))
(abstract_method_signature name: (_) @name) @def.method
(function_signature name: (_) @name) @def.function
(public_field_definition name: (_) @name) @def.field
(interface_body (property_signature name: (_) @name) @def.field)
(type_alias_declaration value: (object_type (property_signature name: (_) @name) @def.field))

(variable_declarator name: (identifier) @name {_TYPED}) @bind
(type_parameter name: (type_identifier) @type_param)
(infer_type . (type_identifier) @type_param)
(mapped_type_clause name: (type_identifier) @type_param)
(type_parameter name: (type_identifier) @name constraint: (constraint
  [(type_identifier) @bind.bound (generic_type name: (type_identifier) @bind.bound)])) @bind
[(required_parameter pattern: (identifier) @name {_TYPED})
 (optional_parameter pattern: (identifier) @name {_TYPED})] @bind
(required_parameter . [(accessibility_modifier) "readonly"] pattern: (identifier) @name
  {_TYPED}) @bind @field
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name
  {_TYPED}) @bind
(public_field_definition !type name: [(property_identifier) (private_property_identifier)] @name
  value: (new_expression constructor: (_) @bind.new)) @bind
(interface_body (property_signature name: (property_identifier) @name {_TYPED}) @bind)
(type_alias_declaration value: (object_type
  (property_signature name: (property_identifier) @name {_TYPED}) @bind))
(type_alias_declaration value: (_) @type_of)
(for_in_statement left: (identifier) @name operator: "of" right: (_) @bind.iter) @bind
(arrow_function) @expand
"""
    + es.CALLS
    + es.BINDINGS.format(untyped="!type")
    + es.LOCALS.format(parameters=es.TS_PARAMETERS)
)


def _clean_type(text: str) -> str:
    """``: Repo | null`` -> ``Repo``: the annotation without colon, null or undefined."""
    text = text.strip().removeprefix(":").strip()
    parts = [p.strip() for p in split_top(text, "|")]  # `Array<A | B> | null`: the array
    kept = [p for p in parts if p not in ("null", "undefined")]
    return kept[0] if len(kept) == 1 else text


_ITERABLES = frozenset({"Array", "ReadonlyArray", "Set", "ReadonlySet", "Iterable", "Iterator"})
_ELEMENT = re.compile(r"[\w$.]+")  # a plain (possibly qualified) type name


def _element_type(text: str) -> str:
    """What ``for (const x of xs)`` binds when ``xs`` is typed ``text``: ``Node[]``,
    ``readonly Node[]``, ``Array<Node>``, ``Set<Node>`` -> ``Node``; else nothing."""
    text = _clean_type(text).removeprefix("readonly ").strip()
    if text.endswith("[]"):
        inner = text[:-2]
    else:
        head, bracket, rest = text.partition("<")
        inner = rest[:-1] if bracket and rest.endswith(">") and head in _ITERABLES else ""
    inner = strip_generics(inner.strip())  # `Array<Observer<T>>`: an `Observer`
    return inner if _ELEMENT.fullmatch(inner) else ""


_BUILTIN_TYPES = frozenset(
    {
        "Promise", "Array", "ReadonlyArray", "Record", "Partial", "Required", "Readonly",
        "Pick", "Omit", "Exclude", "Extract", "NonNullable", "ReturnType", "Parameters",
        "InstanceType", "Awaited", "Map", "Set", "WeakMap", "WeakSet", "Date", "Error",
        "RegExp", "Function", "Object", "String", "Number", "Boolean", "Symbol", "BigInt",
        "Iterable", "Iterator", "AsyncIterable", "AsyncIterator", "PromiseLike", "ArrayLike",
        "Uint8Array", "ArrayBuffer", "JSX", "React", "string", "number", "boolean", "any",
        "unknown", "void", "never", "object", "null", "undefined", "bigint", "symbol",
        *"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    }
)  # fmt: skip


_SAME_ELEMENTS = frozenset(
    {"filter", "slice", "concat", "sort", "reverse", "toSorted", "toReversed", "splice"}
)


def _spec(language: str, grammar_function: str, query: str) -> LanguageSpec:
    return LanguageSpec(
        language=language,
        grammar_module="tree_sitter_typescript",
        grammar_function=grammar_function,
        query=query,
        top_query=es.TOP_DEFS,
        refine=es.refine,
        imports=modules.imports,
        heritage=es.heritage,
        exports=modules.exports,
        expand=expand,
        object_members=object_members,
        closure_types=es.CLOSURES,
        value_call=es.value_call,
        return_type=es.return_type,
        clean_type=_clean_type,
        element_type=_element_type,
        same_elements=_SAME_ELEMENTS,
        wrapper_types=frozenset(
            {"export_statement", "lexical_declaration", "variable_declaration"}
        ),
        name_types=frozenset({"type_identifier"}),  # not `identifier`: parameter names
        qualified_types=frozenset({"nested_type_identifier"}),
        builtin_types=_BUILTIN_TYPES,
        self_names=frozenset({"this"}),
        self_prefix="this",
        skip_refs=es.SKIP_REFS,
    )


SPEC = _spec("typescript", "language_typescript", QUERY)
TSX_SPEC = _spec("tsx", "language_tsx", QUERY + es.JSX)
