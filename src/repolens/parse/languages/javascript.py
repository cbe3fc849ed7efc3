"""JavaScript (``.js``, ``.mjs``, ``.cjs``, ``.jsx``): the JSX-aware official grammar.

See ``ecmascript`` for the conventions shared with TypeScript.
"""

from __future__ import annotations

from repolens.parse.languages import ecmascript as es
from repolens.parse.languages import ecmascript_modules as modules
from repolens.parse.languages.ecmascript_assignments import object_members
from repolens.parse.languages.ecmascript_expand import expand
from repolens.parse.spec import LanguageSpec

QUERY = (
    es.DEFS
    + es.OWNERS
    + """
(field_definition property: (_) @name) @def.field
(field_definition property: [(property_identifier) (private_property_identifier)] @name
  value: (new_expression constructor: (_) @bind.new)) @bind
"""
    + es.CALLS
    + es.JSX
    + es.BINDINGS.format(untyped="")
    + es.LOCALS.format(parameters=es.JS_PARAMETERS)
)

SPEC = LanguageSpec(
    language="javascript",
    grammar_module="tree_sitter_javascript",
    query=QUERY,
    top_query=es.TOP_DEFS,
    refine=es.refine,
    imports=modules.imports,
    heritage=es.heritage,
    exports=modules.exports,
    doc_types=es.jsdoc_types,
    expand=expand,
    object_members=object_members,
    closure_types=es.CLOSURES,
    value_call=es.value_call,
    wrapper_types=es.WRAPPERS,
    name_types=frozenset({"identifier"}),
    qualified_types=frozenset({"member_expression"}),
    self_names=frozenset({"this"}),
    self_prefix="this",
    skip_refs=es.SKIP_REFS,
)
