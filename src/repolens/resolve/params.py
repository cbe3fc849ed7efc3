"""Parameter names read from a function's signature text.

A parameter shadows an import or a global of the same name (``def load(json): json.x()``
is not the ``json`` module). Typed parameters arrive as bindings; untyped ones (most of
Python and all of JavaScript) do not, so their names are read from the signature the
parser stores. Reading is forgiving: a name too many only makes a global look local.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

IDENT = re.compile(r"[A-Za-z_$][\w$]*")
MODIFIERS = frozenset(
    {
        "mut", "final", "private", "public", "protected", "readonly", "override", "const",
        "ref", "out", "in", "params", "this", "var", "let", "async", "static", "inout",
    }
)  # fmt: skip
OPEN, CLOSE, QUOTES = "([{<", ")]}>", "'\"`"
_RESULT_GAP = re.compile(r"(.*\W)?func\s*|\s*")  # between parameters and results
_NESTING = re.compile(f"[{re.escape(QUOTES + OPEN + CLOSE)}]")


def _top_level(text: str, targets: str) -> Iterator[tuple[int, int]]:
    """Index and bracket depth of each ``targets`` character outside quoted text, where
    ``->``/``=>`` close nothing. Only brackets, quotes and targets are visited: signatures
    are read for every function of a project."""
    depth, quote = 0, ""
    for match in _pattern(targets).finditer(text):
        i = match.start()
        ch = text[i]
        if quote:
            quote = "" if ch == quote and text[i - 1] != "\\" else quote
            continue
        if ch in targets:
            yield i, depth
        if ch in QUOTES:
            quote = ch
        elif ch in OPEN:
            depth += 1
        elif ch in CLOSE and depth and not (ch == ">" and text[i - 1 : i] in ("-", "=")):
            depth -= 1


@functools.cache
def _pattern(targets: str) -> re.Pattern[str]:
    return re.compile(f"[{re.escape(QUOTES + OPEN + CLOSE + targets)}]")


def _groups(text: str) -> list[tuple[str, bool]]:
    """Contents of the top-level ``(...)`` groups of a signature, each with whether it is a
    result list: a group right after another one (Go's ``f(x int) (ast.Node, error)``) or
    a function type's after it (``f(x int) func(http.Handler) error``)."""
    found, start, end = [], 0, -1
    for i, depth in _top_level(text, "()"):
        if depth == 0 and text[i] == "(":
            start = i + 1
        elif depth == 1 and text[i] == ")":
            after = end >= 0 and _RESULT_GAP.fullmatch(text, end + 1, start - 1) is not None
            found.append((text[start:i], after))
            end = i
    return found


def _split(text: str, sep: str) -> list[str]:
    if sep not in text:
        return [text]
    if _NESTING.search(text) is None:  # no brackets or quotes to see past (most parameters)
        return text.split(sep)
    parts, start = [], 0
    for i, depth in _top_level(text, sep):
        if depth == 0 and text[i] == sep:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _names(param: str, name_last: bool) -> list[str]:
    param = param.strip().lstrip("*&.").strip()
    head = _split(param, "=")[0] if "=>" not in param else param
    if head.startswith(("{", "[", "(")):  # destructuring: every name in the pattern
        return IDENT.findall(_split(head, ":")[0])
    if ":" in head:
        before = _split(head, ":")[0]
        if "::" not in before:
            head = before
    words = [w for w in IDENT.findall(head) if w not in MODIFIERS and not w.startswith("@")]
    words = [w for w in words if f"@{w}" not in head]  # Java annotations
    if not words:
        return []
    return [words[-1] if name_last else words[0]]


def parameter_names(signature: str, *, name_last: bool = False) -> frozenset[str]:
    """Names a function's parameters bind. ``name_last``: the name follows its type
    (``String name`` in Java) rather than leading (``name str`` in Go)."""
    if "(" not in signature:  # `k = z =>`: a single bare arrow parameter
        if "=>" not in signature and "=" in signature:  # `Foo.prototype.f = helper`
            return frozenset()
        words = IDENT.findall(signature.split("=>", 1)[0].split("=", 1)[-1])
        return frozenset(words[-1:])
    found: set[str] = set()
    for group, results in _groups(signature):
        for param in _split(group, ","):
            # an unnamed result is a lone type: `ast` of `ast.Node` would hide a package
            if not results or " " in param.strip():
                found.update(_names(param, name_last))
    return frozenset(found)


def positional_parameters(signature: str, *, name_last: bool = False) -> list[str | None]:
    """The name each parameter of a function binds, in order (None for a pattern binding
    several names): the n-th argument of a call binds the n-th of them."""
    groups = _groups(signature) if "(" in signature else []
    if not groups or groups[0][1] or not groups[0][0].strip():
        return []
    found: list[str | None] = []
    for param in _split(groups[0][0], ","):
        names = _names(param, name_last)
        found.append(names[0] if len(names) == 1 else None)
    return found
