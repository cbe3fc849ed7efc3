"""Small readings several framework rules share: which router a name is, whether a file
imports a framework, the HTTP methods a class-based view answers."""

from __future__ import annotations

from collections.abc import Hashable

from repolens.resolve import members
from repolens.resolve.frameworks.facts import Facts, Site, Value, call, head_name, name
from repolens.resolve.frameworks.paths import METHODS
from repolens.resolve.project import CLASS_KINDS, FUNCTION_KINDS, Sym


def router_key(facts: Facts, file_id: int, scope_id: int, text: str, line: int) -> Hashable:
    """What identifies the router ``text`` names: the symbol it resolves to (a module
    variable, wherever it is imported), else the local name in its function."""
    sym = facts.resolve(file_id, scope_id, text, line)
    if sym is not None:
        return sym.id
    return ("local", file_id, scope_id, text)


def target_key(facts: Facts, site: Site) -> Hashable | None:
    """The router a constructor site's result is assigned to (``bp = Blueprint(...)``)."""
    if not site.target:
        return None
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
    for imp in facts.ctx.project.imports.get(file_id, ()):
        module = imp.module
        if any(
            module == p or module.startswith(p + ".") or module.startswith(p + "/")
            for p in prefixes
        ):
            return True
    return False


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
