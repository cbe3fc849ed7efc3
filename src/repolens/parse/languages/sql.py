"""SQL DDL: tables, views, columns and functions as symbols; foreign keys as references.

Conventions decided here:
- ``CREATE TABLE t`` and ``CREATE VIEW v`` are ``class``es named by their last segment
  (``shop.orders`` is ``orders``: schemas are search paths, rarely spelled in uses),
  their columns ``field``s; ``CREATE FUNCTION f`` is a ``function``.
- A foreign key (``REFERENCES customers(id)``, inline or as a table constraint, also in
  ``ALTER TABLE``), a table a view or function reads (``FROM orders JOIN customers``),
  and the table an ``ALTER TABLE`` or ``CREATE INDEX`` changes are ``references`` to it.
- Quoted identifiers (``"Order"``, `` `order` ``) are unquoted; case is kept as written.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import unquote
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec

QUERY = """
(create_table (object_reference name: (identifier) @name)) @def.class
(create_view (object_reference name: (identifier) @name)) @def.class
(create_materialized_view (object_reference name: (identifier) @name)) @def.class
(column_definition name: (identifier) @name) @def.field
(create_function (object_reference name: (identifier) @name)) @def.function

(column_definition (object_reference name: (identifier) @ref))
(constraint (object_reference name: (identifier) @ref))
(relation (object_reference name: (identifier) @ref))
(alter_table (object_reference name: (identifier) @ref))
(create_index (object_reference name: (identifier) @ref))

(comment) @comment
"""


def _refine(sym: Symbol, ctx: DefContext) -> None:
    sym.name = sym.qualified_name = unquote(sym.name)
    if ctx.parent is not None and sym.kind == "field":
        sym.qualified_name = f"{ctx.parent.name}.{sym.name}"


def _no_imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    return []


SPEC = LanguageSpec(
    language="sql",
    grammar_module="tree_sitter_sql",
    query=QUERY,
    refine=_refine,
    imports=_no_imports,
    ref_text=unquote,
)
