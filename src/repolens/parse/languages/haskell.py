"""Haskell: modules, functions, data types, type classes; applications; imports.

Conventions decided here:
- ``module Shop.Order where`` is a ``module`` symbol naming the file's module (the
  resolver finds modules by it, else by path: ``Shop/Order.hs`` under ``src/``...).
- Top-level ``f x = ...`` is a ``function``, spanning its first equation: a further
  equation of ``f`` adds no symbol, and its calls are the module's. ``data``/``newtype``
  are ``class``es, ``type`` a ``type_alias``, ``class`` an ``interface`` whose
  signatures are its methods. Functions of an ``instance`` and of a
  ``where`` are not top-level names.
- ``f x y`` is a call of ``f``; ``M.f x`` a call of ``f`` on module alias ``M``; a
  function passed as an argument (``map total xs``) is a reference, unless it is a
  parameter or a ``where``/``let`` name of the function (a local).
- ``import qualified Data.Map as M`` binds ``M``; ``import A (f, g)`` binds ``f`` and
  ``g``; ``import A`` (also ``hiding``) brings all of ``A``'s names.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import methods_in_types
from repolens.parse.spec import ImportSpec, LanguageSpec
from repolens.parse.text import node_text

# a function's first equation: first in the file, or after anything but an equation of
# it (an alternation before an anchor does not match, so one pattern for each)
_AFTER = ("signature", "data_type", "newtype", "class", "instance", "type_synonym", "bind",
          "comment", "pragma")  # fmt: skip
_FIRST_EQUATIONS = "\n".join(
    f"(declarations ({before}) . (function name: (variable) @name) @def.function)"
    for before in _AFTER
)

QUERY = f"""
(header module: (module) @name) @def.module
(declarations . (function name: (variable) @name) @def.function)
{_FIRST_EQUATIONS}
(declarations (function name: (variable) @_previous) . (function name: (variable) @name)
  @def.function (#not-eq? @_previous @name))
(declarations (bind name: (variable) @name) @def.function)
(declarations (data_type name: (name) @name) @def.class)
(declarations (newtype name: (name) @name) @def.class)
(declarations (type_synonym name: (name) @name) @def.type_alias)
(declarations (class name: (name) @name) @def.interface)
(class_declarations (signature name: (variable) @name) @def.method)

(apply function: (variable) @name) @call
(apply function: (qualified) @qname) @call
(apply argument: (variable) @ref)
(patterns (variable) @local)
(local_binds (function name: (variable) @local))
(local_binds (bind name: (variable) @local))
(apply function: (constructor) @name) @new

(comment) @comment
(import) @import
"""


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    module = node.child_by_field_name("module")
    if module is None:
        return []
    name = node_text(module, src)
    alias = node.child_by_field_name("alias")
    if alias is not None:
        return [ImportSpec(name, alias=node_text(alias, src))]
    names = node.child_by_field_name("names")
    hiding = any(c.type == "hiding" or node_text(c, src) == "hiding" for c in node.children)
    if names is None or hiding:
        return [ImportSpec(name, is_wildcard=True)]
    listed = [node_text(n, src) for n in names.named_children if n.type == "import_name"]
    return [ImportSpec(name, name=item.split("(", 1)[0].strip()) for item in listed]


SPEC = LanguageSpec(
    language="haskell",
    grammar_module="tree_sitter_haskell",
    query=QUERY,
    refine=methods_in_types,
    imports=_imports,
    body_fields=("match",),
    name_types=frozenset({"name", "variable"}),
)
