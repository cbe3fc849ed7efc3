"""Django: ``urlpatterns`` of ``path``/``re_path``/``url`` in urls modules, ``include``
chains across modules (by dotted string, by module, by ``router.urls``, or a list),
class-based views through ``as_view()`` (one route per HTTP method the view defines;
a generic view of Django's own answers its methods, so the class is the handler), and
Django REST framework routers (``router.register("orders", OrderViewSet)``: the list
and detail routes of the viewset's actions, and its ``@action`` methods).

A ``path`` call is Django's only in a file that imports ``django`` (or ``rest_framework``):
an unrelated ``path("x/")`` elsewhere makes no route.
"""

from __future__ import annotations

from collections.abc import Hashable

from repolens.resolve import members
from repolens.resolve.frameworks.common import handler_of, imports_module, router_key, view_methods
from repolens.resolve.frameworks.decorators import parse_decorator
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
from repolens.resolve.frameworks.mounts import Mount, Registration, compose
from repolens.resolve.frameworks.paths import ANY, from_regex
from repolens.resolve.project import CLASS_KINDS, FileRow, Sym
from repolens.resolve.writeback import module_name

PYTHON = frozenset({"python"})
_PATHS = ("path", "re_path", "url")
_ROUTERS = ("DefaultRouter", "SimpleRouter", "ExtendedSimpleRouter", "NestedSimpleRouter")
# DRF viewset actions: (method, detail route?, action)
_ACTIONS = (
    ("GET", False, "list"),
    ("POST", False, "create"),
    ("GET", True, "retrieve"),
    ("PUT", True, "update"),
    ("PATCH", True, "partial_update"),
    ("DELETE", True, "destroy"),
)
_MODEL_VIEWSETS = {
    "ModelViewSet": {"list", "create", "retrieve", "update", "partial_update", "destroy"},
    "ReadOnlyModelViewSet": {"list", "retrieve"},
}
_MIXINS = {
    "ListModelMixin": "list",
    "CreateModelMixin": "create",
    "RetrieveModelMixin": "retrieve",
    "UpdateModelMixin": "update",
    "DestroyModelMixin": "destroy",
}


def routes(facts: Facts) -> list[Route]:
    regs: list[Registration] = []
    mounts: list[Mount] = []
    modules = _Modules(facts, [f for f in facts.files.values() if f.language == "python"])
    for fid, sites in facts.sites.items():
        file = facts.files[fid]
        if file.language != "python" or not imports_module(facts, fid, "django", "rest_framework"):
            continue
        paths = [s for s in sites if s.name in _PATHS]
        for site in paths:
            parents = [
                o for o in paths if o is not site and o.start < site.start and site.end <= o.end
            ]
            key: Hashable = (
                ("urls", fid) if not parents else ("span", fid, max(p.start for p in parents))
            )
            _pattern(facts, file, site, key, modules, regs, mounts)
        for site in sites:
            if site.name == "register":
                _drf_register(facts, site, regs)
    return compose("django", regs, mounts)


class _Modules(dict[str, FileRow]):
    """Python files by module name. Django imports from the directory of ``manage.py``,
    which need not be a package root here (``site/shop/urls.py`` is ``shop.urls``
    there), so a dotted name also matches a module that ends with it."""

    def __init__(self, facts: Facts, files: list[FileRow]) -> None:
        # the layout's names: ``files.module`` is written after this run, on a first index
        super().__init__((module_name(facts.ctx, f.id), f) for f in files)
        self.by_last: dict[str, list[str]] = {}
        for module in self:
            self.by_last.setdefault(module.rsplit(".", 1)[-1], []).append(module)

    def named(self, text: str) -> FileRow | None:
        exact = self.get(text)
        if exact is not None:
            return exact
        last = text.rsplit(".", 1)[-1]
        ends = [m for m in self.by_last.get(last, ()) if m.endswith("." + text)]
        return self[ends[0]] if len(ends) == 1 else None


def _pattern(
    facts: Facts,
    file: FileRow,
    site: Site,
    key: Hashable,
    modules: _Modules,
    regs: list[Registration],
    mounts: list[Mount],
) -> None:
    args = positional(site.args)
    raw = string(args[0]) if args else string(keyword(site.args, "route"))
    if raw is None or len(args) < 2:
        return
    path = from_regex(raw) if site.name != "path" else raw
    view = args[1]
    where = facts.where(site.file_id, site.line)
    found = call(view)
    if found is not None and found[0] == "include":
        for child in _included(facts, site, found[2], modules):
            mounts.append(Mount(key, child, path, where))
        if found[2] and found[2][0][0] == "l":  # include([...]): nested patterns, own key
            mounts.append(Mount(key, ("span", site.file_id, site.start), path, where))
        return
    view_name = name(view) or ""
    if view_name.endswith(".urls"):  # path("api/", router.urls)
        router = router_key(facts, site.file_id, site.source_id, view_name[:-5], site.line)
        mounts.append(Mount(key, ("drf", router), path, where))
        return
    if found is not None and found[0] == "view" and not found[2]:
        return
    handler = handler_of(facts, site.file_id, site.source_id, view, site.line)
    if handler is None:
        text = string(view)  # a dotted view path, Django < 2's 'shop.views.index'
        handler = _dotted(facts, text, modules) if text else None
    if handler is None:  # a view of Django's or a library's (TemplateView.as_view())
        outside = head_name(view)
        if outside is not None:
            regs.append(
                Registration(key, ANY, path, None, site.file_id, site.line, site.line, outside)
            )
        return
    for method, target in _methods(facts, handler, view):
        regs.append(Registration(key, method, path, target, site.file_id, site.line, site.line))


def _methods(facts: Facts, handler: Sym, view: Value) -> list[tuple[str, Sym]]:
    if handler.kind not in CLASS_KINDS:
        return [(ANY, handler)]
    found = call(view)
    if (
        found is not None
        and found[0] == "as_view"
        and found[2]
        and keyword(found[2], "get", "post") is None
    ):
        mapping = [a for a in found[2] if a and a[0] in ("o",)]
        if mapping:  # DRF `OrderViewSet.as_view({"get": "list"})`
            return _mapped(facts, handler, mapping[0])
    return view_methods(facts, handler) or [(ANY, handler)]


def _mapped(facts: Facts, cls: Sym, mapping: Value) -> list[tuple[str, Sym]]:
    out = []
    for entry in mapping[1]:
        if isinstance(entry, list) and entry and entry[0] == "k":
            action = string(entry[2])
            target = _member(facts, cls, action) if action else None
            out.append((str(entry[1]).upper(), target or cls))
    return out


def _member(facts: Facts, cls: Sym, method: str) -> Sym | None:
    found = members.class_member(facts.ctx, cls, method)
    return found.sym if found is not None and found.sym is not None else None


def _included(facts: Facts, site: Site, args: list[Value], modules: _Modules) -> list[Hashable]:
    """The urls modules (or DRF routers) an ``include(...)`` names."""
    if not args:
        return []
    first = args[0]
    if first[0] == "l" and first[1] and isinstance(first[1], list):  # include(("app.urls", "ns"))
        inner = first[1][0]
        if isinstance(inner, list) and inner and inner[0] in ("s", "n"):
            first = inner
    text = string(first)
    if text is not None:
        target = modules.named(text)
        return [("urls", target.id)] if target is not None else []
    dotted = head_name(first)
    if dotted is None:
        return []
    if dotted.endswith(".urls"):  # include(router.urls)
        router = router_key(facts, site.file_id, site.source_id, dotted[:-5], site.line)
        return [("drf", router)]
    sym = facts.resolve(site.file_id, site.source_id, dotted, site.line)
    if sym is not None and sym.kind == "file":
        return [("urls", sym.file_id)]
    target = modules.named(_module_named(facts, site, dotted) or "")
    return [("urls", target.id)] if target is not None else []


def _module_named(facts: Facts, site: Site, dotted: str) -> str | None:
    """``from shop import urls as shop_urls`` then ``include(shop_urls)``: the module."""
    head = dotted.split(".", 1)[0]
    for imp in facts.ctx.project.imports.get(site.file_id, ()):
        bound = imp.alias or imp.name or imp.module.split(".")[0]
        if bound == head:
            result = facts.ctx.import_result(imp)
            if result is not None and result.module is not None:
                rest = dotted.split(".")[1:]
                return ".".join([result.module.key, *rest])
    return None


def _dotted(facts: Facts, text: str, modules: _Modules) -> Sym | None:
    module, _, attr = text.rpartition(".")
    file = modules.named(module) if module else None
    return facts.top_level(file.id, attr) if file is not None and attr else None


def _drf_register(facts: Facts, site: Site, regs: list[Registration]) -> None:
    """``router.register(r"orders", OrderViewSet, basename=...)``."""
    args = positional(site.args)
    receiver = name(site.receiver)
    prefix = string(args[0]) if args else None
    if receiver is None or prefix is None or len(args) < 2:
        return
    viewset = handler_of(facts, site.file_id, site.source_id, args[1], site.line)
    if viewset is None or viewset.kind not in CLASS_KINDS:
        return
    key = ("drf", router_key(facts, site.file_id, site.source_id, receiver, site.line))
    prefix = from_regex(prefix)
    actions = _actions(facts, viewset)
    for method, detail, action in _ACTIONS:
        if action not in actions:
            continue
        target = _member(facts, viewset, action) or viewset
        path = f"{prefix}/{{pk}}/" if detail else f"{prefix}/"
        regs.append(Registration(key, method, path, target, site.file_id, site.line, site.line))
    for method_sym, deco_args in _extra_actions(facts, viewset):
        detail = any(a[0] == "k" and a[1] == "detail" and name(a[2]) == "True" for a in deco_args)
        url_path = string(keyword(deco_args, "url_path")) or method_sym.name
        path = f"{prefix}/{{pk}}/{url_path}/" if detail else f"{prefix}/{url_path}/"
        for method in [m.upper() for m in strings(keyword(deco_args, "methods"))] or ["GET"]:
            regs.append(
                Registration(key, method, path, method_sym, site.file_id, site.line, site.line)
            )


def _actions(facts: Facts, viewset: Sym) -> set[str]:
    """The standard actions a viewset answers: those it (or a project base) defines,
    and those its DRF bases and mixins give."""
    found = {a for _, _, a in _ACTIONS if _member(facts, viewset, a) is not None}
    names = [viewset.name, *(v.sym.name for v in members.mro(facts.ctx, viewset)[0] if v.sym)]
    for ref in _base_names(facts, viewset):
        names.append(ref)
    for base in names:
        found |= _MODEL_VIEWSETS.get(base, set())
        if base in _MIXINS:
            found.add(_MIXINS[base])
            if _MIXINS[base] == "update":
                found.add("partial_update")
    return found


def _base_names(facts: Facts, cls: Sym) -> list[str]:
    """Names of the bases a class lists (those outside the project included), its
    project ancestors' too."""
    out: list[str] = []
    for owner in [cls, *(v.sym for v in members.mro(facts.ctx, cls)[0] if v.sym)]:
        out.extend(ref.name for ref in facts.ctx.project.bases.get(owner.id, ()))
    return out


def _extra_actions(facts: Facts, viewset: Sym) -> list[tuple[Sym, list[Value]]]:
    out = []
    for defs in facts.ctx.project.members.get(viewset.id, {}).values():
        sym = defs[-1]
        for text in sym.decorators.split("\n"):
            if text.strip().lstrip("@").startswith(("action(", "detail_route(", "list_route(")):
                found = call(parse_decorator(text))
                if found is not None:
                    args = list(found[2])
                    if found[0] == "detail_route":
                        args.append(["k", "detail", ["n", "True"]])
                    out.append((sym, args))
    return out
