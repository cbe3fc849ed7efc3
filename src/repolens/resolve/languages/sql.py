"""SQL: a project's tables are global, whichever file or migration created them.

Every SQL file is part of one module, so a foreign key in ``orders.sql`` to ``customers``
finds the ``CREATE TABLE customers`` of ``schema.sql``, and a view reading both finds
each. A table created in several files (a migration that drops and recreates it) is
ambiguous, and said so; one no file creates (a system catalogue, an extension's) is
external.
"""

from __future__ import annotations

from repolens.resolve.base import LanguageSpec
from repolens.resolve.lookup import Lookup, lookup_layout

SPEC = LanguageSpec(
    name="sql",
    languages=frozenset({"sql"}),
    build_layout=lookup_layout(Lookup(scope="project", suffix_search=False)),
    builtins=frozenset({"dual", "information_schema", "pg_catalog", "sqlite_master"}),
    builtin_types=frozenset(),
    builtin_methods=frozenset(),
    package_scope=True,
)
