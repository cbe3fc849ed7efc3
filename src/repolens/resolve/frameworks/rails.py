"""Rails: ``config/routes.rb`` (and ``config/routes/*.rb``) to controller actions.

``resources :orders`` (the seven actions, ``only:``/``except:``), ``resource :profile``,
``member``/``collection`` blocks and nested resources (``/orders/{order_id}/items``),
``namespace :admin`` (path and ``Admin::`` controllers), ``scope "/api"`` (also
``path:``/``module:``), ``get "about", to: "pages#about"``, ``root "home#index"``. A
route's handler is the controller's method for the action; an action the controller
does not define (or a controller not in the project) gives no route."""

from __future__ import annotations

from repolens.resolve.frameworks.facts import (
    Facts,
    Route,
    Site,
    Value,
    keyword,
    positional,
    string,
    strings,
)
from repolens.resolve.frameworks.paths import join, normalise
from repolens.resolve.project import CLASS_KINDS, FUNCTION_KINDS, Sym

_ACTIONS = (
    ("GET", "", "index"), ("POST", "", "create"), ("GET", "/new", "new"),
    ("GET", "/{id}/edit", "edit"), ("GET", "/{id}", "show"), ("PATCH", "/{id}", "update"),
    ("PUT", "/{id}", "update"), ("DELETE", "/{id}", "destroy"),
)  # fmt: skip
_VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE"}
_NESTERS = frozenset({"namespace", "scope", "resources", "resource", "member", "collection"})


def routes(facts: Facts) -> list[Route]:
    out: list[Route] = []
    for fid, sites in facts.sites.items():
        file = facts.files[fid]
        if file.language != "ruby" or not (
            file.path.endswith("config/routes.rb") or "config/routes/" in file.path
        ):
            continue
        for site in sites:
            around = [o for o in sites if o is not site and o.start <= site.start
                      and site.end <= o.end and o.name in _NESTERS]  # fmt: skip
            out.extend(_routes(facts, site, sorted(around, key=lambda o: o.start)))
    return out


def _scope(around: list[Site]) -> tuple[str, list[str]]:
    """The path prefix and controller modules the enclosing blocks give."""
    path, modules = "", list[str]()
    resource: Site | None = None  # the innermost resources block so far
    for outer in around:
        if outer.name == "resources":
            resource = outer
        name = _first(outer) or ""
        if outer.name == "namespace":
            path, modules = join(path, name), [*modules, _camel(name)]
        elif outer.name == "scope":
            path = join(path, string(keyword(outer.args, "path")) or name)
            module = string(keyword(outer.args, "module"))
            modules = [*modules, _camel(module)] if module else modules
        elif outer.name in ("resources", "resource"):
            path = join(path, name)
        elif outer.name == "member" and resource is not None:
            path = join(path, "{" + _param(resource) + "}")
    return path, modules


def _routes(facts: Facts, site: Site, around: list[Site]) -> list[Route]:
    prefix, modules = _scope(around)
    parent = next((o for o in reversed(around) if o.name in ("resources", "resource")), None)
    name = _first(site)
    if site.name in ("resources", "resource") and name:
        in_block = any(o.name in ("member", "collection") for o in around)
        if parent is not None and parent.name == "resources" and not in_block:
            # nested: /orders/{order_id}/items (``param: :slug``: {article_slug})
            nested = _singular(_first(parent) or "") + "_" + _param(parent)
            prefix = join(prefix, "{" + nested + "}")
        return _resource(facts, site, prefix, modules, name, plural=site.name == "resources")
    if site.name == "root":
        target = string(keyword(site.args, "to")) or name
        return _to(facts, site, "GET", prefix or "/", target, modules)
    if site.name not in _VERBS or name is None:
        return []
    target = string(keyword(site.args, "to"))
    if target is None and parent is not None:  # `post :cancel` in a member block
        target = f"{_first(parent)}#{name}"
    if string(keyword(site.args, "on")) == "member" and parent is not None:
        prefix = join(prefix, "{" + _param(parent) + "}")
    path = join(prefix, name)
    return _to(facts, site, _VERBS[site.name], path, target, modules)


def _resource(
    facts: Facts, site: Site, prefix: str, modules: list[str], name: str, *, plural: bool
) -> list[Route]:
    only = set(strings(keyword(site.args, "only"))) or None
    except_ = set(strings(keyword(site.args, "except")))
    controller = _controller(facts, modules, name if plural else name + "s")
    out = []
    for method, tail, action in _ACTIONS:
        if (only is not None and action not in only) or action in except_:
            continue
        if not plural:
            if action == "index":
                continue
            tail = tail.replace("/{id}", "")
        tail = tail.replace("{id}", "{" + _param(site) + "}")
        handler = _action(facts, controller, action)
        if handler is not None:
            path = normalise(join(prefix, name) + tail)
            out.append(Route(method, path, handler, site.file_id, site.line, site.line, "rails"))
    return out


def _to(
    facts: Facts, site: Site, method: str, path: str, target: str | None, modules: list[str]
) -> list[Route]:
    if not target or "#" not in target:
        return []
    controller_name, _, action = target.partition("#")
    parts = controller_name.split("/")
    controller = _controller(facts, [*modules, *(_camel(p) for p in parts[:-1])], parts[-1])
    handler = _action(facts, controller, action)
    if handler is None:
        return []
    return [Route(method, normalise(path), handler, site.file_id, site.line, site.line, "rails")]


def _controller(facts: Facts, modules: list[str], resource: str) -> Sym | None:
    """``Admin::UsersController`` for ``resources :users`` inside ``namespace :admin``."""
    wanted = _camel(resource) + "Controller"
    found = [s for s in facts.ctx.project.by_name.get(wanted, ()) if s.kind in CLASS_KINDS]
    scoped = [s for s in found if all(m in s.qname.replace("::", ".").split(".") for m in modules)]
    pool = scoped or ([] if modules else found)
    return min(pool, key=lambda s: len(s.qname)) if pool else None


def _action(facts: Facts, controller: Sym | None, action: str) -> Sym | None:
    if controller is None:
        return None
    defs = facts.ctx.project.members.get(controller.id, {}).get(action, [])
    return defs[-1] if defs and defs[-1].kind in FUNCTION_KINDS else None


def _param(resource: Site) -> str:
    """The name of a resource's id segment (``param: :slug``; ``id`` by default)."""
    return string(keyword(resource.args, "param")) or "id"


def _first(site: Site) -> str | None:
    args: list[Value] = positional(site.args)
    return string(args[0]) if args else None


def _camel(word: str) -> str:
    return "".join(part.capitalize() for part in word.replace("-", "_").split("_"))


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") else word
