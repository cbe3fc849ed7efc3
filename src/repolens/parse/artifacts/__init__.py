"""Parsers of context artifacts, one module per kind; :func:`parse_artifact` picks one.

A file's kind comes from its extension, except YAML and JSON, which are read as OpenAPI
or Swagger specs only when they say so (``openapi:`` or ``swagger:`` at the top): a
folder artifact may hold other YAML, which is skipped, not mistaken for a spec.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from repolens.parse.artifacts.graphql import parse_graphql
from repolens.parse.artifacts.markdown import parse_markdown
from repolens.parse.artifacts.model import ArtifactSymbol, ParsedArtifact
from repolens.parse.artifacts.openapi import NOT_OPENAPI, parse_openapi
from repolens.parse.artifacts.protobuf import parse_protobuf
from repolens.parse.artifacts.sql import parse_sql

PARSER_VERSION = 1  # bump when a parser's output changes: every artifact is read again
KINDS = ("sql", "openapi", "graphql", "protobuf", "markdown")
EXTENSIONS = {
    ".sql": "sql", ".ddl": "sql",
    ".yaml": "openapi", ".yml": "openapi", ".json": "openapi",
    ".graphql": "graphql", ".graphqls": "graphql", ".gql": "graphql",
    ".proto": "protobuf",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
}  # fmt: skip
_PARSERS = {
    "sql": parse_sql, "openapi": parse_openapi, "graphql": parse_graphql,
    "protobuf": parse_protobuf, "markdown": parse_markdown,
}  # fmt: skip

__all__ = ["KINDS", "NOT_OPENAPI", "ArtifactSymbol", "ParsedArtifact", "kind_of", "parse_artifact"]


def kind_of(path: str) -> str | None:
    """The artifact kind of a file by its name, or ``None`` when repolens reads no such file."""
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())


def parse_artifact(kind: str, text: str) -> ParsedArtifact:
    return _PARSERS[kind](text)
