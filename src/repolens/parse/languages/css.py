"""CSS: ``@import`` statements (see ``stylesheets``); plain CSS defines no symbols."""

from __future__ import annotations

from repolens.parse.languages import stylesheets
from repolens.parse.spec import LanguageSpec

QUERY = """
(comment) @comment
(import_statement) @import
"""

SPEC = LanguageSpec(
    language="css",
    grammar_module="tree_sitter_css",
    query=QUERY,
    refine=stylesheets.refine,
    imports=stylesheets.imports,
    name_types=frozenset(),
)
