"""GraphQL schemas (SDL) and documents, read by graphql-core (the reference parser).

Types, inputs, interfaces, enums, unions and scalars are ``type`` symbols, their fields
``field``s; the fields of the root types (``Query``, ``Mutation``, ``Subscription``, or
whatever a ``schema { query: … }`` block names) are ``query``, ``mutation`` and
``subscription`` symbols, as are the named operations of a document.
"""

from __future__ import annotations

from typing import Any

from graphql import GraphQLError, parse
from graphql.language import ast

from repolens.parse.artifacts.model import ArtifactSymbol, ParsedArtifact

ROOT_TYPES = {"Query": "query", "Mutation": "mutation", "Subscription": "subscription"}
_TYPE_NODES = (
    ast.ObjectTypeDefinitionNode, ast.ObjectTypeExtensionNode, ast.InputObjectTypeDefinitionNode,
    ast.InputObjectTypeExtensionNode, ast.InterfaceTypeDefinitionNode,
    ast.InterfaceTypeExtensionNode, ast.EnumTypeDefinitionNode, ast.UnionTypeDefinitionNode,
    ast.ScalarTypeDefinitionNode,
)  # fmt: skip


def parse_graphql(text: str) -> ParsedArtifact:
    out = ParsedArtifact("graphql")
    try:
        document = parse(text)
    except GraphQLError as exc:
        out.error = f"not valid GraphQL: {exc.message} (line {_error_line(exc)})"
        return out
    roots = dict(ROOT_TYPES)
    for definition in document.definitions:
        if isinstance(definition, ast.SchemaDefinitionNode | ast.SchemaExtensionNode):
            for operation in definition.operation_types or ():
                roots[operation.type.name.value] = operation.operation.value
    for definition in document.definitions:
        if isinstance(definition, _TYPE_NODES):
            _type(out, definition, roots)
        elif isinstance(definition, ast.OperationDefinitionNode) and definition.name:
            first, last = _lines(definition)
            kind = definition.operation.value
            name = definition.name.value
            out.add(ArtifactSymbol(kind, name, name, first, last, None, f"{kind} operation"))
    return out


def _type(out: ParsedArtifact, node: Any, roots: dict[str, str]) -> None:
    name = node.name.value
    first, last = _lines(node)
    keyword = type(node).__name__.removesuffix("Node")
    parent = out.add(ArtifactSymbol("type", name, name, first, last, None, _keyword(keyword)))
    member_kind = roots.get(name, "field")
    for field in [*(getattr(node, "fields", None) or ()), *(getattr(node, "values", None) or ())]:
        f_first, f_last = _lines(field)
        kind = "field" if isinstance(field, ast.EnumValueDefinitionNode) else member_kind
        detail = _field_detail(field)
        out.add(ArtifactSymbol(kind, field.name.value, f"{name}.{field.name.value}",
                               f_first, f_last, parent, detail))  # fmt: skip


def _keyword(node_name: str) -> str:
    """``ObjectTypeExtension`` -> ``extend type``; ``InputObjectTypeDefinition`` -> ``input``."""
    words = {"ObjectType": "type", "InputObjectType": "input", "InterfaceType": "interface",
             "EnumType": "enum", "UnionType": "union", "ScalarType": "scalar"}  # fmt: skip
    for stem, word in words.items():
        if node_name == f"{stem}Definition":
            return word
        if node_name == f"{stem}Extension":
            return f"extend {word}"
    return node_name


def _field_detail(field: Any) -> str:
    """``(id: ID!): Order`` for a field with arguments and a type; '' for an enum value."""
    type_node = getattr(field, "type", None)
    if type_node is None:
        return ""
    args = getattr(field, "arguments", None) or ()
    shown = ", ".join(f"{a.name.value}: {_type_text(a.type)}" for a in args)
    return (f"({shown})" if args else "") + f": {_type_text(type_node)}"


def _type_text(node: Any) -> str:
    if isinstance(node, ast.NonNullTypeNode):
        return f"{_type_text(node.type)}!"
    if isinstance(node, ast.ListTypeNode):
        return f"[{_type_text(node.type)}]"
    return str(node.name.value)


def _lines(node: Any) -> tuple[int, int]:
    loc = node.loc
    return int(loc.start_token.line), int(loc.end_token.line)


def _error_line(exc: GraphQLError) -> int:
    return exc.locations[0].line if exc.locations else 1
