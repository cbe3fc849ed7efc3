"""Vue and Svelte single-file components: imports of their ``<script>`` and ``<style>`` blocks.

The file is parsed with the HTML grammar, whose ``script_element``/``style_element`` hold
the blocks as raw text. A script block is then parsed with the TypeScript grammar
restricted to the block's byte range (``included_ranges``), so every node keeps its real
line in the ``.vue`` file, and its ``import``/``export ... from`` statements are read with
the TypeScript spec's own import hook. A style block's ``@import``/``@use`` lines are read
as in ``stylesheets``.

Known limit: the extraction engine runs one grammar per file, so the *definitions and
calls* inside a script block are not extracted yet (it needs a hook that lets a spec
parse byte ranges with another language; see the breadth report). A component is still
an import-graph node: what it imports, and who imports it.
"""

from __future__ import annotations

import threading

from tree_sitter import Language, Node, Parser, Query, QueryCursor, Range

from repolens.parse.languages import ecmascript, stylesheets
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

QUERY = """
(comment) @comment
(script_element (raw_text) @import)
(style_element (raw_text) @import)
"""

_SCRIPT_IMPORTS = """
(import_statement) @import
(export_statement source: (_)) @import
"""

_local = threading.local()
_lock = threading.Lock()
_shared: dict[str, tuple[Language, Query]] = {}


def _script_grammar() -> tuple[Language, Query]:
    """TypeScript (a superset of what script blocks hold) and its import query, shared."""
    with _lock:
        if "ts" not in _shared:
            import tree_sitter_typescript

            language = Language(tree_sitter_typescript.language_typescript())
            _shared["ts"] = (language, Query(language, _SCRIPT_IMPORTS))
        return _shared["ts"]


def _parser(language: Language) -> Parser:
    parser: Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = Parser(language)
    return parser


def imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    block = node.parent
    if block is not None and block.type == "style_element":
        return stylesheets.block_imports(node_text(node, src), node.start_point[0] + 1)
    try:
        language, query = _script_grammar()
    except ImportError:
        return []  # no TypeScript grammar here: the file keeps its symbol, without imports
    parser = _parser(language)
    parser.included_ranges = [
        Range(node.start_point, node.end_point, node.start_byte, node.end_byte)
    ]
    tree = parser.parse(src)
    found: list[ImportSpec] = []
    for _, caps in QueryCursor(query).matches(tree.root_node):
        statement = caps["import"][0]
        for spec in ecmascript.imports(statement, src, path):
            spec.line = spec.line or statement.start_point[0] + 1
            found.append(spec)
    return found


def _refine(sym: Symbol, ctx: DefContext) -> None:
    """Components define no symbols of their own yet (see the module's known limit)."""


def make_spec(language: str) -> LanguageSpec:
    return LanguageSpec(
        language=language,
        grammar_module="tree_sitter_html",
        query=QUERY,
        refine=_refine,
        imports=imports,
        name_types=frozenset(),
    )
