"""ASP.NET Core: attribute routes and minimal APIs.

Controllers (``[ApiController]``, ``[Route]``, or a ``…Controller`` class): the class's
``[Route("api/[controller]")]`` joined to each action's ``[HttpGet("{id}")]``,
``[HttpPost]``… or ``[Route("x")]`` with a verb attribute; ``[controller]`` and
``[action]`` become the class's and the method's names, and an action template that
starts with ``/`` or ``~/`` ignores the class's. Minimal APIs: ``app.MapGet("/x",
handler)``, ``MapPost``…, ``MapMethods``, on groups from ``app.MapGroup("/api")``.
Read only in files that use ``Microsoft.AspNetCore``."""

from __future__ import annotations

from collections.abc import Hashable

from repolens.resolve.frameworks.common import imports_module, router_key, target_key
from repolens.resolve.frameworks.decorators import parse_decorator
from repolens.resolve.frameworks.facts import (
    Facts,
    Route,
    Value,
    call,
    name,
    positional,
    string,
    strings,
)
from repolens.resolve.frameworks.mounts import Mount, Registration, compose, registration
from repolens.resolve.frameworks.paths import ANY, METHODS, join, normalise
from repolens.resolve.project import FUNCTION_KINDS, Sym

CSHARP = frozenset({"csharp"})
_MODULE = "Microsoft.AspNetCore"
_HTTP = {f"Http{m.capitalize()}": m for m in METHODS}
_MAPS = {f"Map{m.capitalize()}": m for m in ("GET", "POST", "PUT", "PATCH", "DELETE")}


def routes(facts: Facts) -> list[Route]:
    return _controllers(facts) + _minimal(facts)


def _head(deco: Value) -> str:
    found = call(deco)
    text = found[0] if found is not None else (name(deco) or "")
    return text.rsplit(".", 1)[-1].removesuffix("Attribute")


def _template(deco: Value) -> str | None:
    found = call(deco)
    args = positional(found[2]) if found is not None else []
    return string(args[0]) if args else None


def _controllers(facts: Facts) -> list[Route]:
    out: list[Route] = []
    project = facts.ctx.project
    for cls, decorators in facts.decorated(CSHARP):
        if cls.kind not in ("class", "struct") or not imports_module(facts, cls.file_id, _MODULE):
            continue
        heads = [_head(d) for d in decorators]
        if (
            "ApiController" not in heads
            and "Route" not in heads
            and not cls.name.endswith("Controller")
        ):
            continue
        prefixes = [t for d, h in zip(decorators, heads, strict=True) if h == "Route"
                    for t in [_template(d) or ""]] or [""]  # fmt: skip
        controller = cls.name.removesuffix("Controller")
        for children in project.members.get(cls.id, {}).values():
            method = children[-1]
            if method.kind not in FUNCTION_KINDS or not method.decorators:
                continue
            for verb, template in _actions(method):
                for prefix in prefixes:
                    absolute = template.startswith(("/", "~/"))
                    path = template.lstrip("~") if absolute else join(prefix, template)
                    path = path.replace("[controller]", controller).replace("[action]", method.name)
                    out.append(Route(verb, normalise(path), method, cls.file_id,
                                     method.start_line, method.start_line, "aspnet"))  # fmt: skip
    return out


def _actions(method: Sym) -> list[tuple[str, str]]:
    decorators = [parse_decorator(d) for d in method.decorators.split("\n") if d]
    heads = [_head(d) for d in decorators]
    routes = [_template(d) or "" for d, h in zip(decorators, heads, strict=True) if h == "Route"]
    out: list[tuple[str, str]] = []
    for deco, head in zip(decorators, heads, strict=True):
        if head in _HTTP:
            given = _template(deco)
            for template in [given] if given is not None else routes or [""]:
                out.append((_HTTP[head], template))
        elif head == "AcceptVerbs":
            found = call(deco)
            verbs = [v.upper() for v in strings(["l", found[2]])] if found is not None else []
            out.extend((v, t) for v in verbs for t in routes or [""])
    if not out and routes:
        out.extend((ANY, t) for t in routes)
    return out


def _minimal(facts: Facts) -> list[Route]:
    regs: list[Registration] = []
    mounts: list[Mount] = []
    for fid, sites in facts.sites.items():
        if facts.files[fid].language != "csharp" or not imports_module(facts, fid, _MODULE):
            continue
        for site in sites:
            receiver = name(site.receiver)
            args = positional(site.args)
            if receiver is None or not args or string(args[0]) is None:
                continue
            key: Hashable = router_key(facts, fid, site.source_id, receiver, site.line)
            path = str(string(args[0]))
            if site.name in _MAPS and len(args) >= 2:
                found = registration(facts, site, key, _MAPS[site.name], path, args[-1])
                if found is not None:
                    regs.append(found)
            elif site.name == "MapGroup":
                child = target_key(facts, site)
                if child is not None:
                    mounts.append(Mount(key, child, path, facts.where(fid, site.line)))
    return compose("aspnet", regs, mounts)
