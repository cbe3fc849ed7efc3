"""Route paths as one spelling: every framework's parameter syntax becomes ``{name}``.

``/orders/<int:order_id>`` (Flask, Django), ``/orders/:id`` (Express, Rails, Gin),
``/orders/{id:int}`` (ASP.NET, Spring), ``[id]`` (Next.js) and ``(?P<pk>[0-9]+)``
(Django's ``re_path``) all name one parameter, so ``GET /orders/{id}`` finds each.
"""

from __future__ import annotations

import re

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
ANY = "ANY"  # a route that answers whatever the method (Django's path(), Express's all())

_ANGLE = re.compile(r"<(?:[A-Za-z_][\w]*:)?([A-Za-z_]\w*)>")
_COLON = re.compile(r"(?<![\w:]):([A-Za-z_]\w*)\??")
_STAR = re.compile(r"(?<=/)\*([A-Za-z_]\w*)")
_BRACE = re.compile(r"\{\*{0,2}([A-Za-z_]\w*)(?::[^{}]*(?:\{[^{}]*\}[^{}]*)*)?\??\}")
_NEXT = re.compile(r"\[\[?(?:\.\.\.)?([A-Za-z_]\w*)\]?\]")
_NAMED_GROUP = re.compile(r"\(\?P<([A-Za-z_]\w*)>[^()]*(?:\([^()]*\)[^()]*)*\)")
_GROUP = re.compile(r"\((?!\?)[^()]*\)")


def normalise(path: str) -> str:
    """One path pattern in the shared spelling, with a leading ``/`` and no ``//``."""
    path = _ANGLE.sub(r"{\1}", path)
    path = _BRACE.sub(r"{\1}", path)
    path = _NEXT.sub(r"{\1}", path)
    path = _COLON.sub(r"{\1}", path)
    path = _STAR.sub(r"{\1}", path)
    path = "/" + path.lstrip("/")
    while "//" in path:
        path = path.replace("//", "/")
    return path


def from_regex(pattern: str) -> str:
    """A Django ``re_path``/``url`` regex as a path: anchors dropped, named groups as
    parameters, other groups as ``{param}``."""
    text = pattern.strip()
    text = text.removeprefix("^").removesuffix("$").removesuffix("\\Z")
    text = _NAMED_GROUP.sub(r"{\1}", text)
    text = _GROUP.sub("{param}", text)
    text = text.replace("\\.", ".").replace("\\-", "-").replace("/?", "/")
    return text.rstrip("?")


def join(*parts: str) -> str:
    """Prefixes and a path, joined by exactly one ``/`` each (an empty part adds none)."""
    out = ""
    for part in parts:
        if not part:
            continue
        if not out:
            out = part
        elif out.endswith("/") or part.startswith("/"):
            out = out.rstrip("/") + "/" + part.lstrip("/")
        else:
            out = out + "/" + part
    return out or "/"
