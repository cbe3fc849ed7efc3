"""A call's arguments as small plain values (``Value``), for the call sites the parse
keeps (``parse.callsites``) and the framework rules that read them without the syntax tree.

Rendering is bounded (depth, items, text length) and falls back to ``["?"]``, so an odd
argument costs the index a few bytes and never a guess: a rule that meets ``["?"]`` knows
it cannot tell, whatever the language.
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node

from repolens.parse.text import DOTTED, node_text

STRING_TYPES = frozenset(
    [
        "string",
        "string_literal",
        "interpreted_string_literal",
        "raw_string_literal",
        "template_string",
        "encapsed_string",
        "verbatim_string_literal",
        "simple_symbol",
        "concatenated_string",
        "line_string_literal",
        "string_value",
    ]
)
_NAME_TYPES = frozenset(
    [
        "identifier",
        "attribute",
        "member_expression",
        "selector_expression",
        "scoped_identifier",
        "field_access",
        "dotted_name",
        "name",
        "qualified_name",
        "property_identifier",
        "field_identifier",
        "constant",
        "scope_resolution",
        "member_access_expression",
        "navigation_expression",
        "simple_identifier",
        "type_identifier",
        "class_constant_access_expression",
        "nested_identifier",
    ]
)
CALL_TYPES = frozenset(
    [
        "call",
        "call_expression",
        "method_invocation",
        "invocation_expression",
        "function_call_expression",
        "member_call_expression",
        "scoped_call_expression",
        "new_expression",
        "object_creation_expression",
        "macro_invocation",
    ]
)
_LIST_TYPES = frozenset(
    [
        "list",
        "array",
        "tuple",
        "array_creation_expression",
        "array_expression",
        "composite_literal",
        "literal_value",
        "list_literal",
        "array_initializer",
    ]
)
_OBJECT_TYPES = frozenset({"object", "dictionary", "hash"})
_PAIR_TYPES = frozenset(
    {
        "keyword_argument",
        "pair",
        "named_argument",
        "argument",
        "array_element_initializer",
        "value_argument",
    }
)  # PHP's array items are pairs (`'prefix' => 'admin'`) or lone values
_FUNCTION_TYPES = frozenset(
    [
        "arrow_function",
        "function_expression",
        "function",
        "func_literal",
        "lambda",
        "closure_expression",
        "anonymous_function_creation_expression",
        "lambda_expression",
        "anonymous_function",
        "block",
        "do_block",
    ]
)
_QUOTE = re.compile("^[A-Za-z@$]*(\"\"\"|'''|\"|'|`|:)|(\"\"\"|'''|\"|'|`)$")
_MAX_DEPTH = 6
_MAX_ITEMS = 40
MAX_TEXT = 200  # longest name or callee kept as written (strings: twice this)

Value = list[Any]
"""A rendered argument, as JSON holds it: ``["s", text]`` a string literal, ``["n",
"a.b"]`` a name, ``["c", name, receiver, [args]]`` a call (``receiver`` a value or
None), ``["l", [items]]`` a list, ``["k", key, value]`` a keyword argument or object
entry, ``["o", [entries]]`` an object, ``["f", start_byte, end_byte, [parameters],
start_line, end_line]`` a function literal (its body's calls are call sites of their
own), ``["?"]`` anything else."""


def render_items(args: Node | None, src: bytes, depth: int) -> list[Value]:
    """A call's arguments, or a list's or object's items, each rendered (at most
    ``_MAX_ITEMS``, then ``["?"]``)."""
    if args is None:
        return []
    out: list[Value] = []
    for child in args.named_children:
        if child.type == "comment":
            continue
        if len(out) >= _MAX_ITEMS:
            out.append(["?"])
            break
        out.append(render(child, src, depth + 1))
    return out


def render(node: Node, src: bytes, depth: int) -> Value:
    """One expression as a plain value (see ``Value``)."""
    kind = node.type
    if depth > _MAX_DEPTH:
        return ["?"]
    if kind in ("parenthesized_expression", "expression_statement") and node.named_child_count == 1:
        return render(node.named_children[0], src, depth)
    if kind in STRING_TYPES:
        return _string(node, src)
    if kind in _NAME_TYPES:
        text = node_text(node, src)
        if len(text) <= MAX_TEXT and DOTTED.fullmatch(text.replace("->", ".").replace("?.", ".")):
            return ["n", text.replace("->", ".").replace("?.", ".")]
        return ["?"]
    if kind in CALL_TYPES:
        return _call(node, src, depth)
    if kind in _PAIR_TYPES:
        return _pair(node, src, depth)
    if kind in _OBJECT_TYPES:
        return ["o", render_items(node, src, depth)]
    if kind in _LIST_TYPES:
        return ["l", render_items(node, src, depth)]
    if kind in _FUNCTION_TYPES:
        lines = [node.start_point[0] + 1, node.end_point[0] + 1]
        return ["f", node.start_byte, node.end_byte, _parameters(node, src), *lines]
    return ["?"]


def _string(node: Node, src: bytes) -> Value:
    if any(
        c.type in ("interpolation", "template_substitution", "string_interpolation")
        for c in node.named_children
    ):
        return ["?"]
    if node.type == "concatenated_string":
        parts = [_string(c, src) for c in node.named_children]
        if all(p[0] == "s" for p in parts):
            return ["s", "".join(str(p[1]) for p in parts)]
        return ["?"]
    text = node_text(node, src)
    if len(text) > MAX_TEXT * 2:
        return ["?"]
    return ["s", _QUOTE.sub("", text)]


def _call(node: Node, src: bytes, depth: int) -> Value:
    function = node.child_by_field_name("function") or node.child_by_field_name("name")
    receiver: Value | None = None
    if node.type in ("method_invocation", "member_call_expression", "scoped_call_expression"):
        obj = node.child_by_field_name("object") or node.child_by_field_name("scope")
        receiver = render(obj, src, depth + 1) if obj is not None else None
        name = node_text(function, src) if function is not None else ""
    elif node.type in ("new_expression", "object_creation_expression"):
        ctor = node.child_by_field_name("constructor") or node.child_by_field_name("type")
        name = node_text(ctor, src) if ctor is not None else ""
    elif function is not None and function.type in (
        "attribute",
        "member_expression",
        "selector_expression",
        "field_expression",
        "scoped_identifier",
    ):
        obj = (
            function.child_by_field_name("object")
            or function.child_by_field_name("operand")
            or function.child_by_field_name("path")
            or function.child_by_field_name("value")
        )
        last = (
            function.child_by_field_name("attribute")
            or function.child_by_field_name("property")
            or function.child_by_field_name("field")
            or function.child_by_field_name("name")
        )
        receiver = render(obj, src, depth + 1) if obj is not None else None
        name = node_text(last, src) if last is not None else ""
    else:
        name = node_text(function, src) if function is not None else ""
        if function is None and node.type == "macro_invocation":
            macro = node.child_by_field_name("macro")
            name = node_text(macro, src) if macro is not None else ""
    args = node.child_by_field_name("arguments")
    if args is None:
        args = next(
            (c for c in node.named_children if c.type in ("argument_list", "arguments")), None
        )
    if len(name) > MAX_TEXT or not DOTTED.fullmatch(name):
        name = "?"
    return ["c", name, receiver, render_items(args, src, depth)]


def _pair(node: Node, src: bytes, depth: int) -> Value:
    key = node.child_by_field_name("name") or node.child_by_field_name("key")
    value = node.child_by_field_name("value")
    if key is None or value is None:
        named = node.named_children
        if node.type in ("argument", "array_element_initializer", "value_argument") and (
            len(named) == 1
        ):
            return render(named[0], src, depth)
        if len(named) < 2:
            return ["?"]
        key, value = named[0], named[-1]
    key_text = node_text(key, src).strip().strip("\"'").lstrip(":").rstrip(":")
    return ["k", key_text, render(value, src, depth + 1)]


def _parameters(node: Node, src: bytes) -> list[str]:
    params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
    if params is None:
        return []
    if params.type == "identifier":
        return [node_text(params, src)]
    names = []
    for child in params.named_children:
        ident = child if child.type == "identifier" else child.child_by_field_name("name")
        if ident is None and child.named_child_count:
            ident = child.named_children[0]
        if ident is not None and ident.type == "identifier":
            names.append(node_text(ident, src))
    return names
