"""Parse stage: source bytes -> symbols, references, imports and bindings of one file.

``parse_source`` is a pure function over its arguments (grammars and queries are cached
lazily per process, parsers per thread), so it can run in worker processes.
"""

from repolens.parse.extract import parse_source
from repolens.parse.model import Binding, Import, ParsedFile, Reference, Symbol
from repolens.parse.registry import grammar_status, graph_languages, parsed_languages

EXTRACTION_VERSION = "67"
"""Bump when what a file yields (symbols, references, chunks) changes for the same bytes:
an index written by another version parses every file again, as content hashes alone
would keep the old facts of unchanged files forever."""

__all__ = [
    "EXTRACTION_VERSION",
    "Binding",
    "Import",
    "ParsedFile",
    "Reference",
    "Symbol",
    "grammar_status",
    "graph_languages",
    "parse_source",
    "parsed_languages",
]
