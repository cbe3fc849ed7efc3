"""Small readings several framework rules share: which router a name is, whether a file
imports a framework, the HTTP methods a class-based view answers."""

from __future__ import annotations

import re
from collections.abc import Hashable

from repolens.parse.callsites import ARGUMENT_OF
from repolens.resolve import members
from repolens.resolve.frameworks.facts import Facts, Site, Value, call, head_name, name
from repolens.resolve.frameworks.paths import METHODS
from repolens.resolve.project import CLASS_KINDS, FUNCTION_KINDS, Sym


def router_key(facts: Facts, file_id: int, scope_id: int, text: str, line: int) -> Hashable:
    """What identifies the router ``text`` names: the symbol it resolves to (a module
    variable, wherever it is imported), a parameter of the function it is used in
    (``parameter_key``: what callers pass there is mounted on it), else the local name
    in its function."""
    sym = facts.resolve(file_id, scope_id, text, line)
    if sym is not None:
        return sym.id
    scope = facts.ctx.project.syms.get(scope_id)
    if scope is not None and scope.kind in FUNCTION_KINDS and text in parameters(scope):
        return parameter_key(scope, parameters(scope).index(text))
    return ("local", file_id, scope_id, text)


def parameter_key(function: Sym, index: int) -> Hashable:
    """A router received as a function's parameter (Go's ``func Register(r
    *gin.RouterGroup)``, a Fastify plugin's ``fastify``)."""
    return ("param", function.id, index)


_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def parameters(function: Sym) -> list[str]:
    """Parameter names from a signature as written (``func (s *S) Register(r
    *gin.RouterGroup, db *DB)``: ``["r", "db"]``); a name's first identifier each."""
    sig = function.signature
    start = sig.find(function.name + "(")
    if start < 0:
        return []
    depth, out, current = 0, [], ""
    for ch in sig[start + len(function.name) :]:
        if ch in "([{<":
            depth += 1
            if depth == 1:
                continue
        elif ch in ")]}>":
            depth -= 1
            if depth == 0:
                break
        if depth == 1 and ch == ",":
            out.append(current)
            current = ""
        elif depth >= 1:
            current += ch
    out.append(current)
    names = []
    for part in out:
        found = _IDENT.search(part.strip().lstrip("*&.").strip())
        names.append(found.group(0) if found else "")
    return [n for n in names if n] if any(names) else []


def target_key(facts: Facts, site: Site) -> Hashable | None:
    """The router a constructor site's result is assigned to (``bp = Blueprint(...)``),
    or the parameter it is passed as (``users.Register(v1.Group("/users"))``)."""
    if not site.target:
        return None
    if site.target.startswith(ARGUMENT_OF):
        _, index, callee = site.target.split(":", 2)
        function = facts.resolve(site.file_id, site.source_id, callee, site.line)
        if function is None or function.kind not in FUNCTION_KINDS:
            return None
        return parameter_key(function, int(index))
    file = facts.files[site.file_id]
    if site.source_id == file.symbol and "." not in site.target:
        sym = facts.top_level(site.file_id, site.target)
        if sym is not None:
            return sym.id
    return router_key(facts, site.file_id, site.source_id, site.target, site.line)


def receiver_key(facts: Facts, site: Site) -> Hashable | None:
    text = name(site.receiver)
    if text is None:
        return None
    return router_key(facts, site.file_id, site.source_id, text, site.line)


def imports_module(facts: Facts, file_id: int, *prefixes: str) -> bool:
    """Whether the file imports one of the modules (or their submodules) by name."""
    return facts.imports_module(file_id, prefixes)


def handler_of(facts: Facts, file_id: int, scope_id: int, value: Value, line: int) -> Sym | None:
    """The function or class a handler argument names: ``views.index``,
    ``OrderView.as_view()``, ``UserAPI.as_view("users")``."""
    text = head_name(value)
    if text is None:
        return None
    found = call(value)
    if found is not None and found[0] in ("as_view", "as_asgi", "as_wsgi", "bind"):
        text = head_name(found[1]) if found[1] is not None else None
        if text is None:
            return None
    sym = facts.resolve(file_id, scope_id, text, line)
    if sym is None or (sym.kind not in FUNCTION_KINDS and sym.kind not in CLASS_KINDS):
        return None
    return sym


def view_methods(facts: Facts, cls: Sym) -> list[tuple[str, Sym]]:
    """The HTTP methods a class-based view defines (``get``, ``post``...: Flask's
    ``MethodView``, Django's ``View``), its project bases' included."""
    found: dict[str, Sym] = {}
    ctx = facts.ctx
    ancestry, _ = members.mro(ctx, cls)
    for owner in [cls, *(v.sym for v in ancestry if v.sym is not None)]:
        for method_name, defs in ctx.project.members.get(owner.id, {}).items():
            verb = method_name.upper()
            if verb in METHODS and verb not in found and defs[-1].kind in FUNCTION_KINDS:
                found[verb] = defs[-1]
    return sorted(found.items())
