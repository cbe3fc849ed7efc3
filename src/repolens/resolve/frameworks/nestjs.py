"""NestJS: a ``@Controller("orders")`` class prefix (or ``{ path: "orders" }``) joined to
its methods' ``@Get(":id")``, ``@Post()``…, ``@All()``; ``app.setGlobalPrefix("api")``
prefixes every controller. Read only in files that import ``@nestjs/common``."""

from __future__ import annotations

from repolens.resolve.frameworks.common import imports_module
from repolens.resolve.frameworks.decorators import parse_decorator
from repolens.resolve.frameworks.facts import (
    Facts,
    Route,
    Value,
    call,
    keyword,
    positional,
    strings,
)
from repolens.resolve.frameworks.paths import ANY, METHODS, join, normalise

SCRIPTS = frozenset({"typescript", "tsx", "javascript"})
_VERBS = {m.capitalize(): m for m in METHODS} | {"All": ANY}


def routes(facts: Facts) -> list[Route]:
    global_prefix = ""
    for site in facts.sites_named("setGlobalPrefix", languages=SCRIPTS):
        given = strings(positional(site.args)[0]) if positional(site.args) else []
        global_prefix = given[0] if given else global_prefix
    out: list[Route] = []
    project = facts.ctx.project
    for cls, decorators in facts.decorated(SCRIPTS, frozenset({"Controller"})):
        prefixes = _paths(decorators, "Controller")
        if prefixes is None or not imports_module(facts, cls.file_id, "@nestjs/common"):
            continue
        for children in project.members.get(cls.id, {}).values():
            method_sym = children[-1]
            if not method_sym.decorators:
                continue
            parsed = [call(d) for d in _decorators(facts, method_sym.decorators)]
            for found in parsed:
                if found is None or found[0] not in _VERBS:
                    continue
                paths = strings(positional(found[2])[0]) if positional(found[2]) else [""]
                for prefix in prefixes:
                    for path in paths or [""]:
                        full = normalise(join(global_prefix, prefix, path))
                        out.append(
                            Route(
                                _VERBS[found[0]],
                                full,
                                method_sym,
                                cls.file_id,
                                method_sym.start_line,
                                method_sym.start_line,
                                "nestjs",
                            )
                        )
    return out


def _decorators(facts: Facts, text: str) -> list[Value]:
    return [parse_decorator(d) for d in text.split("\n") if d]


def _paths(decorators: list[Value], maker: str) -> list[str] | None:
    """The paths a class decorator gives (``[""]`` for a bare ``@Controller()``), None
    when the class has no such decorator."""
    for deco in decorators:
        found = call(deco)
        if found is None or found[0] != maker:
            continue
        args = positional(found[2])
        listed = strings(args[0]) if args and args[0][0] in ("s", "l") else []
        listed = listed or strings(keyword(found[2], "path"))
        return listed or [""]
    return None
