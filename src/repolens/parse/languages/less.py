"""LESS: ``@import`` statements (see ``stylesheets``) and parametric mixins.

``.m(@x) {...}`` is a ``function`` named ``m``; ``.m(...)`` inside a rule is a call.
"""

from __future__ import annotations

from repolens.parse.languages import stylesheets
from repolens.parse.spec import LanguageSpec

QUERY = """
(mixin_definition (class_name) @name) @def.function
(mixin_statement (function_name (class_name) @name) (arguments)? @args) @call

(comment) @comment
(js_comment) @comment
(import_statement) @import
"""

SPEC = LanguageSpec(
    language="less",
    grammar_module="repolens.parse.languages.legacy_grammars",
    grammar_function="less",
    query=QUERY,
    refine=stylesheets.refine,
    imports=stylesheets.imports,
    name_types=frozenset(),
)
