"""Reading a decorator, annotation or attribute as written (``bp.route("/x",
methods=["GET"])``, ``@GetMapping(value = "/{id}")``, ``[HttpGet("{id}")]``) into the
plain values that ``repolens.parse.call_arguments`` renders calls into.

Decorators are stored as their text, so the rules that read them need no syntax tree:
a small tokenizer understands strings, dotted names, calls, lists (``[...]``, Java's
``{...}``) and keyword arguments (``k=v``, ``k = v``, ``k: v``); anything else is
``["?"]``.
"""

from __future__ import annotations

import re
from typing import Any

Value = list[Any]

_TOKEN = re.compile(
    r"""\s*(?:(?P<str>[rRbBuUfF@$]{0,2}(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`))"""
    r"""|(?P<name>[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)"""
    r"""|(?P<num>-?\d[\w.]*)|(?P<op>[()\[\]{},=:]))"""
)


def parse_decorator(text: str) -> Value:
    """``["c", name, None, [args]]`` for a call, ``["n", name]`` for a bare name."""
    body = text.strip().lstrip("@").strip()
    if body.startswith("#["):
        body = body[2:].rstrip("]")
    elif body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    tokens = _tokens(body)
    if not tokens or tokens[0][0] != "name":
        return ["?"]
    value, _ = _value(tokens, 0)
    return value


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            out.append(("op", "?"))
            pos += 1
            continue
        pos = match.end()
        kind = match.lastgroup
        if kind is not None:
            out.append((kind, match.group(kind)))
    return out


def _string(raw: str) -> str:
    body = raw.lstrip("rRbBuUfF@$")
    return body[1:-1] if len(body) >= 2 else body


def _value(tokens: list[tuple[str, str]], i: int) -> tuple[Value, int]:
    if i >= len(tokens):
        return ["?"], i
    kind, text = tokens[i]
    if kind == "str":
        return ["s", _string(text)], i + 1
    if kind == "name":
        if i + 1 < len(tokens) and tokens[i + 1] == ("op", "("):
            args, j = _items(tokens, i + 2, ")")
            head, _, last = text.rpartition(".")
            receiver: Value | None = ["n", head] if head else None
            return ["c", last, receiver, args], j
        return ["n", text], i + 1
    if kind == "num":
        return ["?"], i + 1
    if text in ("[", "{"):
        items, j = _items(tokens, i + 1, "]" if text == "[" else "}")
        return ["l", items], j
    return ["?"], i + 1


def _items(tokens: list[tuple[str, str]], i: int, close: str) -> tuple[list[Value], int]:
    items: list[Value] = []
    while i < len(tokens):
        if tokens[i] == ("op", close):
            return items, i + 1
        if tokens[i] == ("op", ","):
            i += 1
            continue
        if (
            tokens[i][0] == "name"
            and i + 1 < len(tokens)
            and tokens[i + 1] in (("op", "="), ("op", ":"))
        ):
            key = tokens[i][1]
            value, i = _value(tokens, i + 2)
            items.append(["k", key, value])
            continue
        value, j = _value(tokens, i)
        items.append(value)
        i = max(j, i + 1)
    return items, i
