"""Go: net/http (``http.HandleFunc("/x", h)``, ``mux.Handle``, Go 1.22's ``"GET
/orders/{id}"`` patterns), Gin and Echo (``r.GET("/x", h)``, ``v1 := r.Group("/v1")``),
chi (``r.Get``, ``r.Route("/x", func(r chi.Router) {...})``, ``r.Mount("/x", sub)``,
``r.Group(func(r chi.Router) {...})``) and gorilla/mux (``HandleFunc``, ``PathPrefix``
subrouters are not followed). Read only in files that import one of them; a route
whose handler is a function literal spans the literal's lines."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace

from repolens.resolve.frameworks.common import imports_module, router_key, target_key
from repolens.resolve.frameworks.facts import (
    Facts,
    Route,
    Site,
    Value,
    call,
    head_name,
    name,
    positional,
)
from repolens.resolve.frameworks.mounts import (
    HANDLER_KINDS,
    Mount,
    Registration,
    compose,
    registration,
)
from repolens.resolve.frameworks.paths import ANY, METHODS

GO = frozenset({"go"})
_MODULES = (
    "net/http",
    "github.com/gin-gonic/gin",
    "github.com/labstack/echo",
    "github.com/labstack/echo/v4",
    "github.com/go-chi/chi",
    "github.com/go-chi/chi/v5",
    "github.com/gorilla/mux",
    "github.com/gofiber/fiber/v2",
)
_LABELS = (
    ("gin", "github.com/gin-gonic/gin"),
    ("echo", "github.com/labstack/echo"),
    ("chi", "github.com/go-chi/chi"),
    ("gorilla", "github.com/gorilla/mux"),
    ("fiber", "github.com/gofiber/fiber"),
)
_VERBS = {m: m for m in METHODS} | {m.capitalize(): m for m in METHODS} | {"Any": ANY, "All": ANY}
_HANDLES = ("HandleFunc", "Handle", "Handler", "HandlerFunc", "Method", "MethodFunc")


def routes(facts: Facts) -> list[Route]:
    regs: list[Registration] = []
    mounts: list[Mount] = []
    for fid, sites in facts.sites.items():
        if facts.files[fid].language != "go" or not imports_module(facts, fid, *_MODULES):
            continue
        closures = [arg for site in sites for arg in site.args if arg and arg[0] == "f"]
        for site in sites:
            key = _receiver(facts, site, closures)
            if key is None:
                continue
            args = positional(site.args)
            first = facts.literal(site, args[0]) if args else None
            if site.name in _VERBS and first is not None and len(args) >= 2:
                _add(facts, site, key, _VERBS[site.name], first, args[-1], regs)
            elif site.name in _HANDLES and first is not None and len(args) >= 2:
                method, _, path = first.partition(" ") if " " in first else ("", "", first)
                _add(facts, site, key, method.upper() or ANY, path, args[-1], regs)
            elif site.name in ("Group", "Route", "Mount") and args:
                _group(facts, site, key, args, first, mounts)
    return [_labelled(facts, r) for r in compose("net/http", regs, mounts)]


def _labelled(facts: Facts, route: Route) -> Route:
    for label, module in _LABELS:
        if imports_module(facts, route.file_id, module):
            return replace(route, framework=label)
    return route


def _receiver(facts: Facts, site: Site, closures: list[Value]) -> Hashable | None:
    text = name(site.receiver)
    if text is None:
        return None
    around = [f for f in closures if f[1] <= site.start and site.end <= f[2] and text in f[3]]
    if around:  # the innermost function literal whose parameter it is
        return ("param", site.file_id, max(f[1] for f in around), text)
    return router_key(facts, site.file_id, site.source_id, text, site.line)


def _group(
    facts: Facts,
    site: Site,
    key: Hashable,
    args: list[Value],
    first: str | None,
    mounts: list[Mount],
) -> None:
    where = facts.where(site.file_id, site.line)
    prefix = first or ""
    inner = args[-1]
    if inner and inner[0] == "f" and inner[3]:  # r.Route("/x", func(r chi.Router) {...})
        mounts.append(Mount(key, ("param", site.file_id, inner[1], inner[3][0]), prefix, where))
    elif site.target:  # v1 := r.Group("/v1"), users.Register(v1.Group("/users"))
        child = target_key(facts, site)
        if child is not None:
            mounts.append(Mount(key, child, prefix, where))
    elif site.name == "Mount" and len(args) >= 2:
        text = head_name(args[1])
        if text is not None:
            mounts.append(Mount(key, _mounted(facts, site, text), prefix, where))


def _mounted(facts: Facts, site: Site, text: str) -> Hashable:
    """The router ``r.Mount("/x", sub)`` mounts; for ``adminRouter()``, the router that
    function builds (the receiver of its first route registration)."""
    sym = facts.resolve(site.file_id, site.source_id, text, site.line)
    if sym is not None and sym.kind in HANDLER_KINDS:
        for inner in facts.sites.get(sym.file_id, ()):
            receiver = name(inner.receiver)
            if inner.source_id == sym.id and receiver and inner.name in (*_VERBS, *_HANDLES):
                return router_key(facts, inner.file_id, inner.source_id, receiver, inner.line)
    return router_key(facts, site.file_id, site.source_id, text, site.line)


def _add(
    facts: Facts,
    site: Site,
    key: Hashable,
    method: str,
    path: str,
    handler: Value,
    regs: list[Registration],
) -> None:
    wrapped = call(handler)  # http.HandlerFunc(h), h.ServeHTTP's adapter
    if wrapped is not None and wrapped[0] == "HandlerFunc" and wrapped[2]:
        handler = wrapped[2][0]
    found = registration(facts, site, key, method, path, handler)
    if found is not None:
        regs.append(found)
