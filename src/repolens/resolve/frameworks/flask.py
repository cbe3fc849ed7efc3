"""Flask (and Quart): ``@app.route``/``@bp.get`` decorators, ``add_url_rule`` (also
with a ``MethodView``'s ``as_view``), blueprints with ``url_prefix`` registered (and
nested) with ``register_blueprint``, whose ``url_prefix`` replaces the blueprint's own.

A decorator is read as Flask's when its router is a ``Flask``/``Blueprint`` made in the
project or when its file imports ``flask`` or ``quart``: never from a requirements file.
"""

from __future__ import annotations

from collections.abc import Hashable

from repolens.resolve.frameworks.common import (
    handler_of,
    imports_module,
    receiver_key,
    router_key,
    target_key,
    view_methods,
)
from repolens.resolve.frameworks.facts import (
    Facts,
    Route,
    call,
    keyword,
    name,
    positional,
    string,
    strings,
)
from repolens.resolve.frameworks.mounts import Mount, Registration, compose
from repolens.resolve.frameworks.paths import METHODS
from repolens.resolve.project import CLASS_KINDS

PYTHON = frozenset({"python"})
_MAKERS = ("Flask", "Blueprint", "Quart", "APIFlask", "APIBlueprint")
_VERBS = {m.lower(): m for m in METHODS}
_HEADS = frozenset({"route", *_VERBS})


def routes(facts: Facts) -> list[Route]:
    own: dict[Hashable, str] = {}
    routers: set[Hashable] = set()
    for site in facts.sites_named(*_MAKERS, languages=PYTHON):
        key = target_key(facts, site)
        if key is None:
            continue
        routers.add(key)
        prefix = facts.literal(site, keyword(site.args, "url_prefix"))
        if prefix:
            own[key] = prefix
    regs: list[Registration] = []
    for sym, decorators in facts.decorated(PYTHON, _HEADS):
        scope = sym.parent_id if sym.parent_id is not None else facts.files[sym.file_id].symbol
        for deco in decorators:
            found = call(deco)
            if found is None or found[1] is None:
                continue
            verb, receiver, args = found
            text = name(receiver)
            if text is None or (verb != "route" and verb not in _VERBS):
                continue
            key = router_key(facts, sym.file_id, scope, text, sym.start_line)
            if key not in routers and not imports_module(facts, sym.file_id, "flask", "quart"):
                continue
            if (
                verb == "route"
                and key not in routers
                and imports_module(facts, sym.file_id, "fastapi")
            ):
                continue
            path = (
                string(positional(args)[0]) if positional(args) else string(keyword(args, "rule"))
            )
            if path is None:
                continue
            methods = [_VERBS[verb].upper()] if verb in _VERBS else _methods(args)
            for method in methods:
                regs.append(
                    Registration(
                        key, method, path, sym, sym.file_id, sym.start_line, sym.start_line
                    )
                )
    for site in facts.sites_named("add_url_rule", languages=PYTHON):
        key = receiver_key(facts, site)
        if key is None or (key not in routers and not imports_module(facts, site.file_id, "flask")):
            continue
        args = positional(site.args)
        path = string(args[0]) if args else string(keyword(site.args, "rule"))
        view = keyword(site.args, "view_func")
        if view is None and len(args) >= 3:
            view = args[2]
        if path is None or view is None:
            continue
        handler = handler_of(facts, site.file_id, site.source_id, view, site.line)
        if handler is None:
            continue
        if handler.kind in CLASS_KINDS:
            pairs = view_methods(facts, handler) or [("GET", handler)]
        else:
            pairs = [(m, handler) for m in _methods(site.args)]
        for method, target in pairs:
            regs.append(Registration(key, method, path, target, site.file_id, site.line, site.line))
    mounts: list[Mount] = []
    for site in facts.sites_named("register_blueprint", languages=PYTHON):
        parent = receiver_key(facts, site)
        args = positional(site.args)
        child_text = name(args[0]) if args else None
        if parent is None or child_text is None:
            continue
        child = router_key(facts, site.file_id, site.source_id, child_text, site.line)
        prefix = facts.literal(site, keyword(site.args, "url_prefix"))
        mounts.append(
            Mount(
                parent,
                child,
                prefix if prefix is not None else own.get(child, ""),
                facts.where(site.file_id, site.line),
                replaces_own=True,
            )
        )
    return compose("flask", regs, mounts, own)


def _methods(args: list[list[object]]) -> list[str]:
    """``methods=["GET", "POST"]``; Flask's default is GET."""
    listed = strings(keyword(args, "methods"))
    return [m.upper() for m in listed] or ["GET"]
