"""Laravel: ``Route::get("/orders/{id}", [OrderController::class, "show"])`` and the
other verbs (``any``, ``match(["GET", "POST"], ...)``), handlers as ``[Controller::class,
"method"]``, ``"Controller@method"`` or a closure; ``Route::resource``/``apiResource``
(the controller's standard actions it defines); groups by ``Route::prefix("admin")->
group(function () {...})`` or ``Route::group(["prefix" => "admin"], function () {...})``,
nested; ``routes/api.php`` is served under ``/api``. Read only in files that use
``Illuminate\\Support\\Facades\\Route``."""

from __future__ import annotations

import re

from repolens.resolve import members
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
from repolens.resolve.frameworks.paths import ANY, METHODS, join, normalise
from repolens.resolve.project import CLASS_KINDS, FUNCTION_KINDS, Sym

PHP = frozenset({"php"})
_VERBS = {m.lower(): m for m in METHODS} | {"any": ANY}
# Route::resource's actions: (method, path after the resource, action)
_RESOURCE = (
    ("GET", "", "index"), ("GET", "/create", "create"), ("POST", "", "store"),
    ("GET", "/{id}", "show"), ("GET", "/{id}/edit", "edit"), ("PUT", "/{id}", "update"),
    ("PATCH", "/{id}", "update"), ("DELETE", "/{id}", "destroy"),
)  # fmt: skip
_ROUTE_FILE = re.compile(r"(^|/)routes/[^/]+\.php$")
_API_ACTIONS = frozenset({"index", "store", "show", "update", "destroy"})


def routes(facts: Facts) -> list[Route]:
    out: list[Route] = []
    for fid, sites in facts.sites.items():
        file = facts.files[fid]
        if file.language != "php" or not _uses_route(facts, fid):
            continue
        groups = [g for g in (_group(site) for site in sites) if g is not None]
        base = "api" if file.path.endswith("routes/api.php") else ""
        for site in sites:
            if name(site.receiver) != "Route":
                continue
            prefix = join(base, *(p for start, end, p in groups if start <= site.start < end))
            out.extend(_routes_of(facts, site, prefix))
    return out


def _uses_route(facts: Facts, file_id: int) -> bool:
    """A file that imports the facade, or a route file (``routes/web.php``), where
    ``Route`` is the global alias older applications use without an import."""
    if _ROUTE_FILE.search(facts.files[file_id].path):
        return True
    return any(
        imp.module.replace("\\\\", "\\").endswith("Facades\\Route") or imp.name == "Route"
        for imp in facts.ctx.project.imports.get(file_id, ())
    )


def _group(site: Site) -> tuple[int, int, str] | None:
    """(start, end, prefix) of a group's closure."""
    if site.name != "group" or not site.args or site.args[-1][0] != "f":
        return None
    closure = site.args[-1]
    chained = call(site.receiver)
    prefix = ""
    if chained is not None and chained[0] == "prefix" and chained[2]:
        prefix = string(chained[2][0]) or ""
    elif site.args and site.args[0][0] == "l":
        prefix = string(keyword(items(site.args[0]), "prefix")) or ""
    return closure[1], closure[2], prefix


def _routes_of(facts: Facts, site: Site, prefix: str) -> list[Route]:
    args = positional(site.args)
    verb = site.name.lower()
    if verb in ("resource", "apiresource") and len(args) >= 2:
        return _resource(facts, site, prefix, args, verb == "apiresource")
    if verb == "match" and len(args) >= 3:
        methods, args = [m.upper() for m in strings(args[0])], args[1:]
    elif verb in _VERBS and len(args) >= 2:
        methods = [_VERBS[verb]]
    else:
        return []
    path = string(args[0])
    if path is None:
        return []
    full = normalise(join(prefix, path))
    handler = args[-1]
    if handler[0] == "f":
        return [
            Route(m, full, None, site.file_id, handler[4], handler[5], "laravel") for m in methods
        ]
    target = _handler(facts, site, handler)
    if target is None:
        return []
    return [Route(m, full, target, site.file_id, site.line, site.line, "laravel") for m in methods]


def _handler(facts: Facts, site: Site, value: Value) -> Sym | None:
    """``[OrderController::class, "show"]`` or ``"OrderController@show"``."""
    listed = items(value) if value[0] == "l" else []
    if len(listed) == 2 and name(listed[0]) and string(listed[1]):
        cls_name, method = str(name(listed[0])).removesuffix("::class"), str(string(listed[1]))
    elif string(value) and "@" in str(string(value)):
        cls_name, _, method = str(string(value)).partition("@")
    elif name(value) and str(name(value)).endswith("::class"):  # an invokable controller
        cls_name, method = str(name(value)).removesuffix("::class"), "__invoke"
    else:
        return None
    cls = _class(facts, site, cls_name)
    if cls is None:
        return None
    found = members.class_member(facts.ctx, cls, method)
    sym = found.sym if found is not None else None
    return sym if sym is not None and sym.kind in FUNCTION_KINDS else None


def _class(facts: Facts, site: Site, text: str) -> Sym | None:
    """The controller a name means where it is written, else the one project class of
    that name (a route file names controllers relative to a group's ``namespace``)."""
    cls = facts.resolve(site.file_id, site.source_id, text, site.line)
    if cls is not None and cls.kind in CLASS_KINDS:
        return cls
    last = text.replace("\\", ".").rsplit(".", 1)[-1]
    found = [s for s in facts.ctx.project.by_name.get(last, ()) if s.kind in CLASS_KINDS]
    controllers = [s for s in found if "Controllers" in facts.files[s.file_id].path] or found
    return controllers[0] if len(controllers) == 1 else None


def _resource(facts: Facts, site: Site, prefix: str, args: list[Value], api: bool) -> list[Route]:
    path, controller = string(args[0]), name(args[1]) or string(args[1])
    if path is None or controller is None:
        return []
    cls = _class(facts, site, controller.removesuffix("::class"))
    if cls is None:
        return []
    options = items(args[2]) if len(args) > 2 else []
    only = set(strings(keyword(options, "only"))) or None
    except_ = set(strings(keyword(options, "except")))
    out = []
    for method, tail, action in _RESOURCE:
        if api and action not in _API_ACTIONS:
            continue
        if (only is not None and action not in only) or action in except_:
            continue
        found = members.class_member(facts.ctx, cls, action)
        if found is None or found.sym is None:
            continue
        # Laravel names a resource's parameter after it: photos/{photo}
        segment = path.rstrip("/").rsplit("/", 1)[-1]
        singular = segment[:-3] + "y" if segment.endswith("ies") else segment.removesuffix("s")
        full = normalise(join(prefix, path) + tail.replace("{id}", "{" + singular + "}"))
        out.append(Route(method, full, found.sym, site.file_id, site.line, site.line, "laravel"))
    return out
