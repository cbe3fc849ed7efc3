"""C: functions, structs, unions, enums, typedefs, macros, globals; includes and calls.

The shared shapes and conventions are in ``cfamily``. C has no methods: a call through a
struct member (``ops->run(x)``) is a call named ``run`` on receiver ``ops``, which the
resolver can only connect when ``ops`` has a known struct type with such a field.
"""

from __future__ import annotations

from repolens.parse.languages import cfamily
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, LanguageSpec


def _refine(sym: Symbol, ctx: DefContext) -> None:
    if sym.kind in ("function", "variable"):
        cfamily.refine_static(sym, ctx.node)
    elif sym.kind == "macro":
        sym.signature = sym.signature.split("\n", 1)[0]


SPEC = LanguageSpec(
    language="c",
    grammar_module="tree_sitter_c",
    query=cfamily.COMMON_QUERY,
    refine=_refine,
    imports=cfamily.includes,
    clean_type=cfamily.clean_type,
    body_fields=("body", "value"),
    name_types=frozenset({"type_identifier"}),
    builtin_types=cfamily.BUILTIN_TYPES,
    skip_refs=frozenset({"NULL"}),
)
