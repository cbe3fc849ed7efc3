"""Spring MVC/WebFlux (Java, Kotlin) and JAX-RS: a class's ``@RequestMapping("/api")``
(or ``@Path``) joined to its methods' ``@GetMapping("/{id}")``, ``@PostMapping``…,
``@RequestMapping(value = "/x", method = RequestMethod.POST)`` (every method when none
is named) or JAX-RS ``@GET @Path("{id}")``. Paths may be given as ``value``, ``path``
or a list (``{"/a", "/b"}``: a route each). Only classes marked ``@Controller``,
``@RestController``, ``@RequestMapping`` or ``@Path`` are read."""

from __future__ import annotations

from repolens.resolve.frameworks.decorators import parse_decorator
from repolens.resolve.frameworks.facts import (
    Facts,
    Route,
    Value,
    call,
    keyword,
    name,
    positional,
    strings,
)
from repolens.resolve.frameworks.paths import ANY, METHODS, join, normalise
from repolens.resolve.project import FUNCTION_KINDS

JVM = frozenset({"java", "kotlin", "groovy", "scala"})
_MAPPINGS = {f"{m.capitalize()}Mapping": m for m in ("GET", "POST", "PUT", "PATCH", "DELETE")}
_CLASS_MARKS = frozenset({"Controller", "RestController", "RequestMapping", "Path"})
_JAXRS = frozenset(METHODS)


def routes(facts: Facts) -> list[Route]:
    out: list[Route] = []
    project = facts.ctx.project
    for cls, decorators in facts.decorated(JVM, _CLASS_MARKS):
        heads = {_head(d) for d in decorators}
        if not heads & _CLASS_MARKS or cls.kind in FUNCTION_KINDS:
            continue
        prefixes = _class_paths(decorators)
        for children in project.members.get(cls.id, {}).values():
            method = children[-1]
            if method.kind not in FUNCTION_KINDS or not method.decorators:
                continue
            parsed = [parse_decorator(d) for d in method.decorators.split("\n") if d]
            for verb, path in _method_routes(parsed):
                for prefix in prefixes:
                    out.append(
                        Route(
                            verb,
                            normalise(join(prefix, path)),
                            method,
                            cls.file_id,
                            method.start_line,
                            method.start_line,
                            "spring",
                        )
                    )
    return out


def _head(deco: Value) -> str:
    found = call(deco)
    text = found[0] if found is not None else (name(deco) or "")
    return text.rsplit(".", 1)[-1]


def _paths(args: list[Value]) -> list[str]:
    pos = positional(args)
    listed = strings(pos[0]) if pos else []
    return listed or strings(keyword(args, "value", "path"))


def _class_paths(decorators: list[Value]) -> list[str]:
    for deco in decorators:
        found = call(deco)
        if found is not None and _head(deco) in ("RequestMapping", "Path"):
            return _paths(found[2]) or [""]
    return [""]


def _method_routes(decorators: list[Value]) -> list[tuple[str, str]]:
    """(method, path) for each route the method's annotations declare."""
    heads = [_head(d) for d in decorators]
    out: list[tuple[str, str]] = []
    jaxrs = [h for h in heads if h in _JAXRS]
    for deco, head in zip(decorators, heads, strict=True):
        found = call(deco)
        args = found[2] if found is not None else []
        if head in _MAPPINGS:
            out.extend((_MAPPINGS[head], p) for p in (_paths(args) or [""]))
        elif head == "RequestMapping":
            verbs = [v.rsplit(".", 1)[-1] for v in _names(keyword(args, "method"))] or [ANY]
            out.extend((v, p) for v in verbs for p in (_paths(args) or [""]))
    if jaxrs:
        paths = [""]
        for deco, head in zip(decorators, heads, strict=True):
            found = call(deco)
            if head == "Path" and found is not None:
                paths = _paths(found[2]) or [""]
        out.extend((verb, p) for verb in jaxrs for p in paths)
    return out


def _names(value: Value | None) -> list[str]:
    if value is None:
        return []
    one = name(value)
    if one is not None:
        return [one]
    return [n for n in (name(v) for v in (value[1] if value[0] == "l" else [])) if n]
