"""FastAPI and Starlette: ``@app.get``/``@router.post``/``@router.api_route``
decorators, ``add_api_route``, ``APIRouter(prefix=...)`` included with
``include_router(router, prefix=...)`` (both prefixes apply), ``app.mount("/x", sub)``,
and Starlette's ``Route``/``Mount``/``WebSocketRoute`` lists (``routes=[...]``, nested
``Mount("/api", routes=[...])``, a list held in a module variable).

A decorator is read as FastAPI's when its router is a ``FastAPI``/``APIRouter`` made in
the project or its file imports ``fastapi``/``starlette``.
"""

from __future__ import annotations

from collections.abc import Hashable

from repolens.resolve.frameworks.common import (
    handler_of,
    imports_module,
    receiver_key,
    router_key,
    target_key,
)
from repolens.resolve.frameworks.facts import (
    Facts,
    Route,
    Site,
    Value,
    call,
    items,
    keyword,
    name,
    positional,
    string,
    strings,
)
from repolens.resolve.frameworks.mounts import Mount, Registration, compose
from repolens.resolve.frameworks.paths import METHODS

PYTHON = frozenset({"python"})
_MAKERS = ("FastAPI", "APIRouter", "Starlette", "Router")
_VERBS = {m.lower(): m for m in METHODS}
_HEADS = frozenset({"api_route", "websocket", *_VERBS})
_ROUTE_LISTS = ("Route", "WebSocketRoute", "Mount", "Host")


def routes(facts: Facts) -> list[Route]:
    own: dict[Hashable, str] = {}
    routers: set[Hashable] = set()
    regs: list[Registration] = []
    mounts: list[Mount] = []
    for site in facts.sites_named(*_MAKERS, languages=PYTHON):
        if site.name == "Router" and not imports_module(
            facts, site.file_id, "starlette", "fastapi"
        ):
            continue
        key = target_key(facts, site)
        if key is None:
            continue
        routers.add(key)
        prefix = facts.literal(site, keyword(site.args, "prefix"))
        if prefix:
            own[key] = prefix
        listed = keyword(site.args, "routes")
        if listed is not None:
            _route_list(facts, site, key, listed, regs, mounts, 0)
    for sym, decorators in facts.decorated(PYTHON, _HEADS):
        scope = sym.parent_id if sym.parent_id is not None else facts.files[sym.file_id].symbol
        for deco in decorators:
            found = call(deco)
            if found is None or found[1] is None:
                continue
            verb, receiver, args = found
            text = name(receiver)
            if text is None or (verb not in _VERBS and verb not in ("api_route", "websocket")):
                continue
            key = router_key(facts, sym.file_id, scope, text, sym.start_line)
            if key not in routers and not imports_module(
                facts, sym.file_id, "fastapi", "starlette"
            ):
                continue
            path = (
                string(positional(args)[0]) if positional(args) else string(keyword(args, "path"))
            )
            if path is None:
                continue
            if verb in _VERBS:
                methods = [_VERBS[verb]]
            elif verb == "websocket":
                methods = ["WS"]
            else:
                methods = [m.upper() for m in strings(keyword(args, "methods"))] or ["GET"]
            for method in methods:
                regs.append(
                    Registration(
                        key, method, path, sym, sym.file_id, sym.start_line, sym.start_line
                    )
                )
    for site in facts.sites_named("add_api_route", "add_route", languages=PYTHON):
        key = receiver_key(facts, site)
        if key is None or (
            key not in routers and not imports_module(facts, site.file_id, "fastapi", "starlette")
        ):
            continue
        args = positional(site.args)
        path = string(args[0]) if args else None
        endpoint = keyword(site.args, "endpoint") or (args[1] if len(args) > 1 else None)
        if path is None or endpoint is None:
            continue
        handler = handler_of(facts, site.file_id, site.source_id, endpoint, site.line)
        for method in [m.upper() for m in strings(keyword(site.args, "methods"))] or ["GET"]:
            regs.append(
                Registration(key, method, path, handler, site.file_id, site.line, site.line)
            )
    for site in facts.sites_named("include_router", "mount", languages=PYTHON):
        parent = receiver_key(facts, site)
        args = positional(site.args)
        if parent is None or (
            parent not in routers
            and not imports_module(facts, site.file_id, "fastapi", "starlette")
        ):
            continue
        if site.name == "include_router":
            child_value = args[0] if args else keyword(site.args, "router")
            prefix = facts.literal(site, keyword(site.args, "prefix")) or ""
        else:  # app.mount("/v1", subapp)
            child_value = args[1] if len(args) > 1 else keyword(site.args, "app")
            prefix = string(args[0]) if args else ""
            prefix = prefix or ""
        child_text = name(child_value)
        if child_text is None:
            continue
        child = router_key(facts, site.file_id, site.source_id, child_text, site.line)
        mounts.append(Mount(parent, child, prefix, facts.where(site.file_id, site.line)))
    for fid, sites in facts.sites.items():  # `routes = [Route(...), Mount(...)]` in a module
        if facts.files[fid].language != "python" or not imports_module(
            facts, fid, "starlette", "fastapi"
        ):
            continue
        for site in sites:
            if site.name in _ROUTE_LISTS and not _inside_any(site, sites):
                listed_in: Hashable = ("routes", fid, site.source_id)
                _route_item(
                    facts, site, listed_in, ["c", site.name, None, site.args], regs, mounts, 0
                )
    return compose("fastapi", regs, mounts, own)


def _inside_any(site: Site, sites: list[Site]) -> bool:
    return any(o is not site and o.start <= site.start and site.end <= o.end for o in sites)


def _route_list(
    facts: Facts,
    site: Site,
    key: Hashable,
    listed: Value,
    regs: list[Registration],
    mounts: list[Mount],
    depth: int,
) -> None:
    """The items of a ``routes=[...]`` list, or the list a module variable holds."""
    text = name(listed)
    if text is not None:  # `Starlette(routes=routes)`: the module's own route list
        mounts.append(
            Mount(
                key,
                ("routes", site.file_id, facts.files[site.file_id].symbol),
                "",
                facts.where(site.file_id, site.line),
            )
        )
        return
    for item in items(listed):
        _route_item(facts, site, key, item, regs, mounts, depth)


def _route_item(
    facts: Facts,
    site: Site,
    key: Hashable,
    item: Value,
    regs: list[Registration],
    mounts: list[Mount],
    depth: int,
) -> None:
    found = call(item)
    if found is None or depth > 8:
        return
    kind, _, args = found
    pos = positional(args)
    path = string(pos[0]) if pos else string(keyword(args, "path"))
    if path is None:
        return
    if kind in ("Route", "WebSocketRoute"):
        endpoint = pos[1] if len(pos) > 1 else keyword(args, "endpoint")
        if endpoint is None:
            return
        handler = handler_of(facts, site.file_id, site.source_id, endpoint, site.line)
        methods = (
            ["WS"]
            if kind == "WebSocketRoute"
            else [m.upper() for m in strings(keyword(args, "methods"))] or ["GET"]
        )
        for method in methods:
            regs.append(
                Registration(key, method, path, handler, site.file_id, site.line, site.line)
            )
    elif kind == "Mount":
        child: Hashable = ("mount", site.file_id, site.start, depth, path)
        mounts.append(Mount(key, child, path, facts.where(site.file_id, site.line)))
        inner = keyword(args, "routes")
        if inner is not None:
            _route_list(facts, site, child, inner, regs, mounts, depth + 1)
        app = keyword(args, "app") or (pos[1] if len(pos) > 1 else None)
        app_text = name(app)
        if app_text is not None:
            sub = router_key(facts, site.file_id, site.source_id, app_text, site.line)
            mounts.append(Mount(child, sub, "", facts.where(site.file_id, site.line)))
