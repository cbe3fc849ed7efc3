"""Express, Koa (``@koa/router``, ``koa-router``), Fastify and Hono: ``router.get(path,
...handlers)`` and the other verbs (``all``, Koa's ``del``), Express's
``app.route("/book").get(h).post(h)``, Fastify's ``route({method, url, handler})``;
routers made by ``express()``/``Router()``/``new Router({prefix})``/``fastify()``/
``new Hono()`` and mounted with ``use("/api", router)`` (also ``require("./orders")``
or a Koa ``router.routes()``), Hono's ``route("/api", sub)`` and Fastify's
``register(plugin, {prefix: "/v1"})``, whose plugin's first parameter is the router.

The handler is the last function argument (those before it are middleware). A
``.get("/x")`` is read as a route only on a router the project makes or in a file that
imports one of these frameworks, on a receiver not named like an HTTP client: an
``axios.get("/users")`` registers nothing.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import replace

from repolens.resolve.frameworks.common import (
    imports_module,
    parameter_key,
    router_key,
    target_key,
)
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
from repolens.resolve.frameworks.mounts import Mount, Registration, compose, registration
from repolens.resolve.frameworks.paths import ANY, METHODS
from repolens.resolve.project import FUNCTION_KINDS

SCRIPTS = frozenset({"javascript", "typescript", "tsx", "jsx"})
_MODULES = ("express", "koa", "@koa/router", "koa-router", "fastify", "hono", "restify")
_MAKERS = ("express", "Router", "Koa", "fastify", "Fastify", "Hono", "createServer")
_VERBS = {m.lower(): m for m in METHODS} | {"all": ANY, "del": "DELETE"}
_LABELS = (
    ("fastify", ("fastify",)),
    ("hono", ("hono",)),
    ("koa", ("koa", "@koa/router", "koa-router")),
)
_CLIENTS = frozenset(
    {
        "axios",
        "http",
        "https",
        "fetch",
        "request",
        "client",
        "api",
        "ky",
        "got",
        "superagent",
        "supertest",
        "agent",
        "$http",
        "this.http",
    }
)


def routes(facts: Facts) -> list[Route]:
    own: dict[Hashable, str] = {}
    routers: set[Hashable] = set()
    regs: list[Registration] = []
    mounts: list[Mount] = []
    framework_files = {
        fid
        for fid, f in facts.files.items()
        if f.language in SCRIPTS and imports_module(facts, fid, *_MODULES)
    }
    for site in facts.sites_named(*_MAKERS, languages=SCRIPTS):
        key = target_key(facts, site)
        if key is None or (site.file_id not in framework_files and site.name != "express"):
            continue
        routers.add(key)
        prefix = string(keyword(site.args, "prefix"))
        if prefix:
            own[key] = prefix
    for site in facts.sites_named("basePath", languages=SCRIPTS):  # new Hono().basePath("/api")
        key = target_key(facts, site)
        prefix = string(positional(site.args)[0]) if positional(site.args) else None
        if key is not None and prefix:
            routers.add(key)
            own[key] = prefix
    for fid, sites in facts.sites.items():  # `const api = Router().use(a)`: api is the chain
        for site in sites:
            if site.target and _made_here(site.receiver) and facts.files[fid].language in SCRIPTS:
                chain: Hashable = ("chain", fid, site.start)
                named = target_key(facts, site)
                routers.add(chain)
                if named is not None:
                    routers.add(named)
                    mounts.append(Mount(named, chain, "", facts.where(fid, site.line)))
    for site in facts.sites_named("register", languages=SCRIPTS):  # Fastify plugins
        plugin = _plugin(facts, site)
        if plugin is not None:
            routers.add(plugin)
    for fid, sites in facts.sites.items():
        if facts.files[fid].language not in SCRIPTS:
            continue
        for site in sites:
            verb = site.name if site.name in _VERBS else site.name.lower()
            if verb in _VERBS:
                _verb(facts, site, _VERBS[verb], routers, framework_files, regs)
            elif site.name in ("use", "route", "register"):
                _mount(facts, site, routers, framework_files, regs, mounts)
    return [_labelled(facts, r) for r in compose("express", regs, mounts, own)]


def _labelled(facts: Facts, route: Route) -> Route:
    """The framework the registering file, or a file it is mounted from, imports
    (Express when none names another)."""
    by_path = facts.ctx.project.by_path
    files = [route.file_id, *(by_path.get(w.rpartition(":")[0], -1) for w in route.via)]
    for label, modules in _LABELS:
        if any(f in facts.files and imports_module(facts, f, *modules) for f in files):
            return replace(route, framework=label)
    return route


def _plugin(facts: Facts, site: Site) -> Hashable | None:
    """The router a Fastify ``register(plugin, ...)`` hands its plugin function."""
    args = positional(site.args)
    text = head_name(args[0]) if args else None
    sym = facts.resolve(site.file_id, site.source_id, text, site.line) if text else None
    return parameter_key(sym, 0) if sym is not None and sym.kind in FUNCTION_KINDS else None


def _router(
    facts: Facts,
    site: Site,
    receiver: Value | None,
    routers: set[Hashable],
    framework_files: set[int],
) -> tuple[Hashable, str] | None:
    """The router a call is made on and the path a chained ``route("/x")`` adds."""
    chained = call(receiver)
    if chained is not None and chained[0].lower() in _VERBS and chained[1] is not None:
        inner_route = call(chained[1])  # app.route("/b").get(h).post(h): the route's path
        if inner_route is not None and inner_route[0] in ("route", *_VERBS):
            return _router(facts, site, chained[1], routers, framework_files)
    if chained is not None and chained[0] == "route" and len(positional(chained[2])) == 1:
        path = string(positional(chained[2])[0])
        inner = _router(facts, site, chained[1], routers, framework_files)
        if inner is None or path is None:
            return None
        return inner[0], inner[1] + "/" + path.lstrip("/") if inner[1] else path
    if _made_here(receiver):  # Router().use(a).use(b): every call of the chain starts there
        return ("chain", site.file_id, site.start), ""
    text = name(receiver)
    if text is None:
        return None
    key = router_key(facts, site.file_id, site.source_id, text, site.line)
    if key in routers:
        return key, ""
    if site.file_id in framework_files and text not in _CLIENTS and not text.endswith("Client"):
        return key, ""
    return None


def _verb(
    facts: Facts,
    site: Site,
    method: str,
    routers: set[Hashable],
    framework_files: set[int],
    regs: list[Registration],
) -> None:
    found = _router(facts, site, site.receiver, routers, framework_files)
    if found is None:
        return
    key, chained_path = found
    args = positional(site.args)
    if chained_path:
        path, handlers = chained_path, args
    elif args and string(args[0]) is not None:
        path, handlers = str(string(args[0])), args[1:]
    else:
        return
    if not handlers:
        return
    _register(facts, site, key, method, path, handlers[-1], regs)


def _register(
    facts: Facts,
    site: Site,
    key: Hashable,
    method: str,
    path: str,
    handler: Value,
    regs: list[Registration],
) -> None:
    found = registration(facts, site, key, method, path, handler)
    if found is not None:
        regs.append(found)


def _mount(
    facts: Facts,
    site: Site,
    routers: set[Hashable],
    framework_files: set[int],
    regs: list[Registration],
    mounts: list[Mount],
) -> None:
    found = _router(facts, site, site.receiver, routers, framework_files)
    if found is None:
        return
    parent, _ = found
    args = positional(site.args)
    if site.name == "route":
        if len(args) == 1 and keyword(site.args, "method", "url") is not None:
            _fastify_route(facts, site, parent, regs)
        elif len(args) == 2 and string(args[0]) is not None:  # Hono: app.route("/api", sub)
            _mount_child(facts, site, parent, str(string(args[0])), args[1], mounts)
        return
    prefix = ""
    if site.name == "register":  # fastify.register(plugin, { prefix: "/v1" })
        plugin = _plugin(facts, site)
        if plugin is not None:
            prefix = string(keyword(site.args, "prefix")) or ""
            mounts.append(Mount(parent, plugin, prefix, facts.where(site.file_id, site.line)))
        return
    first = facts.literal(site, args[0]) if args else None
    if first is not None:
        prefix, args = first, args[1:]
    elif len(args) == 2 and _from_table(facts, site, parent, args, mounts):
        return
    for child in args:
        _mount_child(facts, site, parent, prefix, child, mounts)


def _from_table(
    facts: Facts, site: Site, parent: Hashable, args: list[Value], mounts: list[Mount]
) -> bool:
    """``routes.forEach((route) => router.use(route.path, route.route))``: each entry
    of a module-level table of ``{ path: "/auth", route: authRoute }`` objects in the
    file, read from the table's code as the store's chunks hold it, is a mount."""
    path_arg, router_arg = name(args[0]) or "", name(args[1]) or ""
    head, _, path_key = path_arg.partition(".")
    other, _, router_key_name = router_arg.partition(".")
    if not (head and head == other and path_key and router_key_name):
        return False
    entry = re.compile(
        rf"""\{{[^{{}}]*?\b{re.escape(path_key)}\s*:\s*(['"`])([^'"`]*)\1[^{{}}]*?"""
        rf"""\b{re.escape(router_key_name)}\s*:\s*([A-Za-z_$][\w$.]*)[^{{}}]*\}}"""
    )
    found = False
    top = facts.files[site.file_id].symbol
    for sym in facts.ctx.project.file_syms.get(site.file_id, ()):
        if sym.parent_id != top or sym.kind not in ("variable", "constant"):
            continue
        rows = facts.conn.execute(
            "SELECT text FROM chunks WHERE file_id = ? AND start_line <= ? AND end_line >= ?"
            " ORDER BY start_line",
            (site.file_id, sym.end_line, sym.start_line),
        )
        text = "\n".join(str(r[0]) for r in rows)
        for match in entry.finditer(text):
            child = ["n", match.group(3)]
            _mount_child(facts, site, parent, match.group(2), child, mounts)
            found = True
    return found


def _mount_child(
    facts: Facts, site: Site, parent: Hashable, prefix: str, child: Value, mounts: list[Mount]
) -> None:
    where = facts.where(site.file_id, site.line)
    found = call(child)
    if found is not None and found[0] == "require" and found[2]:
        spec = string(found[2][0])
        target = _required(facts, site.file_id, spec) if spec else None
        for key in _file_routers(facts, target) if target is not None else ():
            mounts.append(Mount(parent, key, prefix, where))
        return
    if found is not None and found[0] in ("routes", "middleware") and found[1] is not None:
        child = found[1]  # Koa: app.use(router.routes())
    text = name(child)
    if text is None:
        return
    sym = facts.resolve(site.file_id, site.source_id, text, site.line)
    imported = _imported_file(facts, site.file_id, text) if sym is None else None
    if imported is not None:  # `import routes from './routes'`: an anonymous default export
        for key in _file_routers(facts, imported):
            mounts.append(Mount(parent, key, prefix, where))
        return
    child_key = router_key(facts, site.file_id, site.source_id, text, site.line)
    mounts.append(Mount(parent, child_key, prefix, where))


def _made_here(value: Value | None) -> bool:
    """A call chain that starts by making a router (``Router().use(a)``)."""
    found = call(value)
    while found is not None:
        if found[0] in _MAKERS and (found[1] is None or name(found[1]) == "express"):
            return True
        found = call(found[1])
    return False


def _imported_file(facts: Facts, file_id: int, text: str) -> int | None:
    """The project file an import binds ``text`` to, when it binds the whole module or
    its default export."""
    for imp in facts.ctx.project.imports.get(file_id, ()):
        if text not in (imp.alias, imp.name, imp.module.rsplit("/", 1)[-1]):
            continue
        result = facts.ctx.import_result(imp)
        if result is not None and result.module is not None and result.module.files:
            return result.module.files[0]
    return None


def _required(facts: Facts, file_id: int, spec: str) -> int | None:
    """The project file a relative ``require("./routes/orders")`` loads."""
    if not spec.startswith("."):
        return None
    base = facts.files[file_id].dir
    parts = [p for p in f"{base}/{spec}".split("/") if p and p != "."]
    out: list[str] = []
    for part in parts:
        if part == "..":
            if out:
                out.pop()
        else:
            out.append(part)
    stem = "/".join(out)
    by_path = facts.ctx.project.by_path
    for candidate in (
        stem,
        *(f"{stem}{ext}" for ext in (".js", ".ts", ".cjs", ".mjs")),
        *(f"{stem}/index{ext}" for ext in (".js", ".ts")),
    ):
        if candidate in by_path:
            return by_path[candidate]
    return None


def _file_routers(facts: Facts, file_id: int) -> list[Hashable]:
    """The router a module exports: the one it makes at its top level and names, else
    the last chain it builds there (``export default Router().use("/api", api)``)."""
    top = facts.files[file_id].symbol
    chains: list[Hashable] = []
    for site in facts.sites.get(file_id, ()):
        if site.source_id != top:
            continue
        if site.name in _MAKERS and site.target:
            key = target_key(facts, site)
            if key is not None:
                return [key]
        if _made_here(site.receiver):
            chains.append(("chain", file_id, site.start))
    return chains[-1:]


def _fastify_route(facts: Facts, site: Site, key: Hashable, regs: list[Registration]) -> None:
    """``fastify.route({ method: ["GET", "HEAD"], url: "/x", handler })``."""
    url = string(keyword(site.args, "url", "path"))
    handler = keyword(site.args, "handler")
    if url is None or handler is None:
        return
    for method in [m.upper() for m in strings(keyword(site.args, "method"))] or ["GET"]:
        _register(facts, site, key, method, url, handler, regs)
