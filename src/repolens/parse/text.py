"""Turning node text into the short strings records carry (names, receivers, signatures).

Everything works on the file's bytes and decodes with ``errors="replace"`` so that a file
in a legacy encoding still yields records instead of an exception.
"""

from __future__ import annotations

import posixpath
import re

from tree_sitter import Node

_SIMPLE = re.compile(r"[\w.$:]+")
DOTTED = re.compile(r"[\w$#]+(?:(?:\.|::)[\w$#]+)*")  # a name, or a path of names
_BRACKETS = {"(": ")", "[": "]"}
_CLOSERS = frozenset(")]")
_QUOTES = frozenset("\"'`")
RECEIVER_MAX = 80
SCAN_MAX = 400  # bytes of an expression scanned for a receiver
SHORT_MAX = 200  # characters kept of a decorator, base or type as written
SIGNATURE_MAX = 240
DOC_MAX = 500


def node_text(node: Node, src: bytes) -> str:
    """The node's source text, decoded leniently."""
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def unparenthesized(node: Node) -> Node:
    """What parentheses around ``node`` hold (``(f() if c else None)``); ``node`` itself
    when it has none. Every grammar here names them ``parenthesized_expression``."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def file_stem(path: str) -> str:
    """``src/OrderList.vue`` -> ``OrderList``: the name a file that is one unit goes by."""
    return posixpath.splitext(posixpath.basename(path))[0]


def one_line(text: str) -> str:
    """Collapse all whitespace runs (newlines included) to single spaces."""
    if "\n" not in text and "  " not in text and "\t" not in text:
        return text.strip()
    return " ".join(text.split())  # what re.sub(r"\s+", " ", text).strip() gives, faster


def cap(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters, marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def simplify_expr(text: str) -> str:
    """Render a callee object the way a resolver can use it.

    Argument lists and subscripts are emptied (``a.b(x).c[i]`` -> ``a.b().c[]``),
    whitespace dropped and a leading ``new`` too (``new A(x).b`` -> ``A().b``), so chained
    calls read as ``a.b()``; this is a string scan rather
    than a tree walk because receivers are short and usually already simple. Text cut off
    inside brackets (see ``expr_text``) gets its outer bracket closed.
    """
    if _SIMPLE.fullmatch(text):
        return text
    if text.startswith("new ") and not text.startswith("new ."):
        text = text[4:].lstrip()  # `new Parser(src).parse()`: as calling the class, an instance
    out: list[str] = []
    closers: list[str] = []
    quote = ""
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
            if not closers:
                out.append(ch)
        elif ch in _QUOTES:
            quote = ch
            if not closers:
                out.append(ch)
        elif ch in _BRACKETS:
            if not closers:
                out.append(ch)
            closers.append(_BRACKETS[ch])
        elif ch in _CLOSERS:
            if closers:
                closers.pop()
            if not closers:
                out.append(ch)
        elif not closers and not ch.isspace():
            out.append(ch)
    if closers:
        out.append(closers[0])
    return cap("".join(out), RECEIVER_MAX)


def expr_text(node: Node, src: bytes) -> str:
    """``simplify_expr`` of a node, reading at most ``SCAN_MAX`` bytes of it: a receiver
    can be a huge literal, and chained calls would otherwise rescan it once per link."""
    start, end = node.start_byte, node.end_byte
    return simplify_expr(src[start : min(end, start + SCAN_MAX)].decode("utf-8", "replace"))


def short_text(node: Node, src: bytes, limit: int = SHORT_MAX) -> str:
    """A node's text on one line, capped: decorators, bases, types as written."""
    start, end = node.start_byte, node.end_byte
    text = src[start : min(end, start + 2 * limit)].decode("utf-8", "replace")
    return cap(one_line(text), limit)


def split_qualified(text: str, separator: str) -> tuple[str, str | None]:
    """``a.b.C`` -> (``C``, ``a.b``); a bare name has no receiver."""
    head, sep, last = text.rpartition(separator)
    if not sep:
        return text, None
    return last, head or None


def split_last(text: str) -> tuple[str, str | None]:
    """Split at the last ``.`` or ``::``, whichever comes later: ``self.a::b`` -> (b, self.a)."""
    dot, colons = text.rfind("."), text.rfind("::")
    if dot < 0 and colons < 0:
        return text, None
    if dot > colons:
        return text[dot + 1 :], text[:dot] or None
    return text[colons + 2 :], text[:colons] or None


def strip_generics(text: str) -> str:
    """Drop generic arguments: ``Repo<T>`` / ``List[Repo]`` / ``Foo::<T>`` -> base name."""
    for opener in ("<", "["):
        cut = text.find(opener)
        if cut > 0:
            text = text[:cut]
    return text.removesuffix("::")


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside brackets: ``str, list[int]`` -> ``["str", " list[int]"]``."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(text):
        if char in "[(<{":
            depth += 1
        elif char in "])>}":
            depth -= 1
        elif char == sep and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    return parts


def clean_comment(text: str) -> str:
    """Strip comment markers from one comment token (``//``, ``///``, ``/** */``, ``#``)."""
    text = text.strip()
    if text.startswith("/*"):
        text = text[2:].removesuffix("*/")
        lines = [line.strip().removeprefix("*").strip() for line in text.splitlines()]
        return "\n".join(lines).strip("*\n ")
    lines = []
    for line in text.splitlines():
        line = line.strip().lstrip("/#!").strip()
        lines.append(line)
    return "\n".join(lines)
