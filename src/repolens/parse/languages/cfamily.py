"""What C and C++ share: declarators, preprocessor, includes, calls and typed names.

Conventions decided here (both languages):
- A function's name sits inside nested declarators (``int *f(void)``): the query lists the
  plain and the pointer/reference-returning shapes.
- ``struct``/``union``/``enum`` with a body are definitions; ``typedef struct {..} T`` is a
  ``struct`` named ``T``; any other ``typedef`` a ``type_alias``. ``#define`` is a ``macro``.
- Prototypes at file level are not symbols: the definition in the ``.c`` file is the one
  answers should point to (the resolver makes an included header stand for its sources).
- ``static`` at file level is ``private`` (translation-unit local) and not exported.
- ``#include "x.h"`` -> Import(module="x.h", wildcard); ``#include <x.h>`` keeps its angle
  brackets (``module="<x.h>"``) so the resolver knows which search order applies. In a
  header, includes are also re-exports: what ``a.h`` includes reaches whoever includes it.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import ImportSpec
from repolens.parse.text import node_text

_ID = "(identifier) @name"
_FUNC = f"(function_declarator declarator: {_ID})"
_PTR_FUNC = f"(pointer_declarator declarator: {_FUNC})"
_VAR = (
    f"[{_ID} (pointer_declarator declarator: {_ID}) (init_declarator declarator: {_ID})"
    f" (init_declarator declarator: (pointer_declarator declarator: {_ID}))]"
)

COMMON_QUERY = f"""
(function_definition declarator: {_FUNC}) @def.function
(function_definition declarator: {_PTR_FUNC}) @def.function
(type_definition type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @def.struct
(type_definition declarator: (type_identifier) @name) @def.type_alias
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(union_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(enumerator name: (identifier) @name) @def.enum_member
(preproc_def name: (identifier) @name) @def.macro
(preproc_function_def name: (identifier) @name) @def.macro
(field_declaration_list (field_declaration
  declarator: [(field_identifier) @name (pointer_declarator declarator: (field_identifier) @name)
  (array_declarator declarator: (field_identifier) @name)]) @def.field)
(translation_unit (declaration declarator: {_VAR}) @def.variable)

(call_expression function: (identifier) @name arguments: (_) @args) @call
(call_expression function: (field_expression argument: (_) @recv
  field: (field_identifier) @name) arguments: (_) @args) @call

(argument_list (identifier) @ref)
(init_declarator value: (identifier) @ref)

(parameter_declaration type: (_) @bind.type declarator: [{_ID}
  (pointer_declarator declarator: {_ID})]) @bind
(declaration type: (_) @bind.type declarator: {_VAR}) @bind
(field_declaration type: (_) @bind.type declarator: [(field_identifier) @name
  (pointer_declarator declarator: (field_identifier) @name)]) @bind

(comment) @comment
(preproc_include) @import
"""


def storage(node: Node) -> set[str]:
    """Storage classes and qualifiers written before a declaration (``static``, ``extern``)."""
    return {
        (c.text or b"").decode()
        for c in node.children
        if c.type in ("storage_class_specifier", "type_qualifier", "virtual")
    }


def refine_static(sym: Symbol, node: Node) -> None:
    """File-level ``static`` means visible in this translation unit only."""
    if "static" in storage(node):
        sym.is_static = True
        if sym.parent is None:
            sym.visibility = "private"
            sym.is_exported = False


def includes(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    target = node.child_by_field_name("path")
    if target is None:
        return []
    text = node_text(target, src).strip()
    header = path.endswith(HEADER_SUFFIXES)  # a header passes on what it includes
    if target.type == "string_literal":
        return [ImportSpec(text.strip('"'), is_wildcard=True, is_reexport=header)]
    if target.type == "system_lib_string":
        return [ImportSpec(text, is_wildcard=True, is_reexport=header)]
    return []  # `#include MACRO`: not a literal path


HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp")

_QUALIFIERS = ("const ", "volatile ", "struct ", "union ", "enum ", "class ", "typename ")


def clean_type(text: str) -> str:
    """``const struct Node *`` -> ``Node``: what a variable's members are looked up on."""
    text = text.strip()
    changed = True
    while changed:
        changed = False
        for word in _QUALIFIERS:
            if text.startswith(word):
                text, changed = text[len(word) :].strip(), True
    return text.rstrip("*& ").strip()


BUILTIN_TYPES = frozenset(
    {
        "int", "char", "short", "long", "float", "double", "void", "bool", "_Bool", "signed",
        "unsigned", "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int8_t",
        "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
        "FILE", "va_list", "auto", "wchar_t", "char16_t", "char32_t", "off_t", "time_t",
    }
)  # fmt: skip
