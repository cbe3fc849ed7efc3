"""Rust: Actix Web and Axum.

Actix: ``#[get("/orders/{id}")]`` (and the other verbs, ``#[route("/x", method =
"GET")]``) on handler functions, prefixed by the ``web::scope("/api")`` whose
``.service(handler)`` registers them (nested scopes compose). Axum: ``Router::new()
.route("/x", get(h).post(h2))`` chains, ``.nest("/v1", api())`` and ``.merge(other())``
with the routers other functions build and return. Read only in files that use
``actix_web`` or ``axum``."""

from __future__ import annotations

from collections.abc import Hashable

from repolens.resolve.frameworks.common import imports_module
from repolens.resolve.frameworks.facts import (
    Facts,
    Route,
    Site,
    Value,
    call,
    head_name,
    keyword,
    name,
    positional,
    string,
    strings,
)
from repolens.resolve.frameworks.mounts import HANDLER_KINDS, Mount, Registration, compose
from repolens.resolve.frameworks.paths import ANY, METHODS, join, normalise
from repolens.resolve.project import FUNCTION_KINDS, Sym

RUST = frozenset({"rust"})
_VERBS = {m.lower(): m for m in METHODS} | {"any": ANY}
_HEADS = frozenset({"route", *_VERBS})


def routes(facts: Facts) -> list[Route]:
    return _actix(facts) + _axum(facts)


def _actix(facts: Facts) -> list[Route]:
    scoped: dict[int, list[str]] = {}  # handler -> the scope prefixes it is served under
    for fid, sites in facts.sites.items():
        if facts.files[fid].language != "rust" or not imports_module(facts, fid, "actix_web"):
            continue
        for site in sites:
            if site.name != "service":
                continue
            prefix = _scope_prefix(site.receiver)
            outer = [_scope_prefix(o.receiver) for o in sites
                     if o is not site and o.name == "service" and o.start < site.start
                     and site.end <= o.end]  # fmt: skip
            full = join(*outer, prefix) if prefix or outer else ""
            for arg in positional(site.args):
                text = name(arg)
                sym = facts.resolve(fid, site.source_id, text, site.line) if text else None
                if sym is not None and sym.kind in FUNCTION_KINDS and full:
                    scoped.setdefault(sym.id, []).append(full)
    out = []
    for sym, decorators in facts.decorated(RUST, _HEADS):
        if not imports_module(facts, sym.file_id, "actix_web"):
            continue
        for deco in decorators:
            found = call(deco)
            if found is None or not found[2]:
                continue
            verb, _, args = found
            path = string(positional(args)[0]) if positional(args) else None
            if path is None:
                continue
            if verb in _VERBS:
                methods = [_VERBS[verb]]
            elif verb == "route":
                methods = [m.upper() for m in strings(keyword(args, "method"))] or [ANY]
            else:
                continue
            for prefix in scoped.get(sym.id, [""]):
                for method in methods:
                    out.append(Route(method, normalise(join(prefix, path)), sym, sym.file_id,
                                     sym.start_line, sym.start_line, "actix"))  # fmt: skip
    return out


def _scope_prefix(value: Value | None) -> str:
    """The path of the ``web::scope("/api")`` a ``.service()`` chain starts from."""
    found = call(value)
    while found is not None:
        if found[0] == "scope" and found[2]:
            return string(found[2][0]) or ""
        found = call(found[1])
    return ""


def _axum(facts: Facts) -> list[Route]:
    regs: list[Registration] = []
    mounts: list[Mount] = []
    for fid, sites in facts.sites.items():
        if facts.files[fid].language != "rust" or not imports_module(facts, fid, "axum"):
            continue
        for site in sites:
            key: Hashable = ("builds", site.source_id)  # the router its function builds
            args = positional(site.args)
            where = facts.where(fid, site.line)
            if site.name == "route" and len(args) == 2 and string(args[0]) is not None:
                for method, handler in _method_router(args[1]):
                    target = _function(facts, site, handler)
                    if target is not None:
                        regs.append(Registration(key, method, str(string(args[0])), target,
                                                 fid, site.line, site.line))  # fmt: skip
            elif site.name in ("nest", "merge") and args:
                child = args[-1]
                prefix = (string(args[0]) or "") if site.name == "nest" else ""
                built = _function(facts, site, child)
                if built is not None:
                    mounts.append(Mount(key, ("builds", built.id), prefix, where))
    return compose("axum", regs, mounts)


def _method_router(value: Value) -> list[tuple[str, Value]]:
    """``get(h).post(h2)``: (method, handler) pairs."""
    out = []
    found = call(value)
    while found is not None:
        verb, receiver, args = found
        if verb in _VERBS and args:
            out.append((_VERBS[verb], args[0]))
        found = call(receiver)
    return out


def _function(facts: Facts, site: Site, value: Value) -> Sym | None:
    """The function a handler names, or whose call builds a router (``api()``)."""
    found = call(value)
    text = (
        head_name(value)
        if found is None
        else head_name(["n", found[0]] if found[1] is None else value)
    )
    sym = facts.resolve(site.file_id, site.source_id, text, site.line) if text else None
    return sym if sym is not None and sym.kind in HANDLER_KINDS else None
