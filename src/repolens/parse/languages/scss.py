"""SCSS: ``@use``/``@forward``/``@import`` (see ``stylesheets``), mixins and functions.

``@mixin m`` and ``@function f`` are ``function``s; ``@include m``/``@include ns.m`` and
calls of Sass functions are ``calls`` (CSS functions such as ``rgba`` are left to the
resolver, which finds no project definition for them). The grammar (tree-sitter-scss
1.0.0) predates module namespaces and reads ``@include ns.m`` as ``ns`` plus an error node
holding pieces of ``m``, so namespaced includes are not extracted (global ones are).
"""

from __future__ import annotations

from repolens.parse.languages import stylesheets
from repolens.parse.spec import LanguageSpec

QUERY = """
(mixin_statement name: (identifier) @name) @def.function
(function_statement name: (identifier) @name) @def.function

(include_statement (identifier) @name . (arguments)? @args .) @call
(call_expression (function_name) @qname (arguments) @args) @call

(comment) @comment
(js_comment) @comment
[(import_statement) (use_statement) (forward_statement)] @import
"""

SPEC = LanguageSpec(
    language="scss",
    grammar_module="repolens.parse.languages.legacy_grammars",
    grammar_function="scss",
    query=QUERY,
    refine=stylesheets.refine,
    imports=stylesheets.imports,
    name_types=frozenset(),
)
