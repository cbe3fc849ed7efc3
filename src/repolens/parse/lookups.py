"""Attribute lookups by a built name: ``getattr(self, "do_" + name)(arg)``.

A command shell (``cmd.Cmd``), a visitor or a plugin host calls one of a family of
methods whose name it builds at run time from a literal prefix or suffix. No reference
names the method, so the lookup is kept as a call site (``name`` ``getattr``) whose
second argument is rendered as ``["t", prefix, suffix]``, and whose ``target`` says how
its result is used: ``CALLED`` when it is called at once, else the name it is assigned to
(``func = getattr(self, f"complete_{name}")``). ``resolve.synthesis.families`` pairs it
with the methods of the class whose names fit.
"""

from __future__ import annotations

import json

from tree_sitter import Node

from repolens.parse.model import CallSite
from repolens.parse.text import node_text

LOOKUPS = frozenset({"getattr"})
CALLED = "()"
_MIN_LITERAL = 2  # `"_" + name` says too little about which methods it may name


def is_lookup(name: str, args: Node | None, src: bytes) -> bool:
    """Whether a call looks an attribute up by a name built around a literal."""
    if name not in LOOKUPS or args is None:
        return False
    named = [c for c in args.named_children if c.type != "comment"]
    if len(named) < 2:
        return False
    prefix, suffix = template(named[1], src)
    return len(prefix) + len(suffix) >= _MIN_LITERAL


def lookup_site(name: str, call: Node, args: Node, src: bytes, source: int | None) -> CallSite:
    """The record of a kept lookup: its object and built name (see the module's doc)."""
    named = [c for c in args.named_children if c.type != "comment"]
    obj = node_text(named[0], src) if named[0].type == "identifier" else "?"
    prefix, suffix = template(named[1], src)
    parent = call.parent
    called = (
        parent is not None
        and parent.type == "call"
        and parent.child_by_field_name("function") == call
    )
    row, col = call.start_point
    return CallSite(
        name=name,
        line=row + 1,
        col=col,
        source=source,
        start=call.start_byte,
        end=call.end_byte,
        target=CALLED if called else _assigned(call, src),
        args=json.dumps([None, [["n", obj], ["t", prefix, suffix]]], separators=(",", ":")),
    )


def template(node: Node, src: bytes) -> tuple[str, str]:
    """The literal prefix and suffix of a name built by ``+`` or an f-string."""
    if node.type == "string":
        parts = [c for c in node.named_children if c.type in ("string_content", "interpolation")]
        if not any(c.type == "interpolation" for c in parts):
            return "", ""
        prefix = node_text(parts[0], src) if parts[0].type == "string_content" else ""
        suffix = node_text(parts[-1], src) if parts[-1].type == "string_content" else ""
        return prefix, suffix
    if node.type == "binary_operator":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or operator is None or node_text(operator, src) != "+":
            return "", ""
        prefix = _literal(left, src) if left.type == "string" else template(left, src)[0]
        suffix = _literal(right, src) if right.type == "string" else template(right, src)[1]
        return prefix, suffix
    return "", ""


def _literal(node: Node, src: bytes) -> str:
    if any(c.type == "interpolation" for c in node.named_children):
        return template(node, src)[0]
    return "".join(node_text(c, src) for c in node.named_children if c.type == "string_content")


def _assigned(call: Node, src: bytes) -> str:
    parent = call.parent
    if parent is not None and parent.type == "assignment":
        left = parent.child_by_field_name("left")
        if left is not None and left.type == "identifier":
            return node_text(left, src)
    return ""
