"""Composing prefixes across files: routers mounted in routers, each with a prefix.

A rule reports what each registration says on its own (``Registration``: a route on a
router, with the router's key) and how routers are mounted in each other (``Mount``);
``compose`` walks every chain from a router up to one nothing mounts, joining the
prefixes on the way, so a route registered on ``orders.router`` and included under
``/api`` by ``app.py`` is ``/api/orders/{id}``. A router mounted twice gives its routes
twice, under both prefixes, as the framework serves them. Keys are whatever identifies
a router for its rule (a variable's symbol id, a urls module's file id), hashable.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from repolens.resolve.frameworks.facts import Facts, Route, Site, Value, head_name
from repolens.resolve.frameworks.paths import join, normalise
from repolens.resolve.project import FUNCTION_KINDS, Sym

HANDLER_KINDS = FUNCTION_KINDS | {"variable", "constant", "field"}
"""What a handler may be: a function, or a name holding one (``const register =
catchAsync(async (req, res) => ...)``, Go's ``var Health = func(...)``)."""

_MAX_CHAINS = 16  # mount chains followed per router: a router mounted more is generated code
_MAX_DEPTH = 12


@dataclass(frozen=True, slots=True)
class Registration:
    router: Hashable
    method: str
    path: str
    handler: Sym | None
    file_id: int
    line: int
    end_line: int
    external: str = ""  # see ``Route.external``


def registration(
    facts: Facts, site: Site, key: Hashable, method: str, path: str, handler: Value
) -> Registration | None:
    """A route on ``key`` to the handler argument as written: a function literal (the
    route spans it), or a name of a function, or of a variable holding one."""
    if handler and handler[0] == "f":
        start, end = (handler[4], handler[5]) if len(handler) > 5 else (site.line, site.line)
        return Registration(key, method, path, None, site.file_id, start, end)
    text = head_name(handler)
    sym = facts.resolve(site.file_id, site.source_id, text, site.line) if text else None
    if sym is None or sym.kind not in HANDLER_KINDS:
        return None
    return Registration(key, method, path, sym, site.file_id, site.line, site.line)


@dataclass(frozen=True, slots=True)
class Mount:
    parent: Hashable
    child: Hashable
    prefix: str
    where: str  # path:line of the mount
    replaces_own: bool = False  # Flask: register_blueprint(url_prefix=) beats the blueprint's


def compose(
    framework: str,
    registrations: list[Registration],
    mounts: list[Mount],
    own_prefix: dict[Hashable, str] | None = None,
) -> list[Route]:
    """Every registration under every chain of mounts above its router."""
    own = own_prefix or {}
    parents: dict[Hashable, list[Mount]] = {}
    for mount in mounts:
        if mount.child != mount.parent:
            parents.setdefault(mount.child, []).append(mount)
    chains_of: dict[Hashable, list[tuple[str, tuple[str, ...]]]] = {}

    def chains(
        key: Hashable, depth: int, seen: frozenset[Hashable]
    ) -> list[tuple[str, tuple[str, ...]]]:
        """(prefix, via) for each way ``key``'s own paths are served, its own prefix in."""
        if depth == 0 and key in chains_of:
            return chains_of[key]
        up = [m for m in parents.get(key, ()) if m.parent not in seen]
        if not up or depth > _MAX_DEPTH:
            found: list[tuple[str, tuple[str, ...]]] = [(own.get(key, ""), ())]
        else:
            found = []
            for mount in up:
                mine = mount.prefix if mount.replaces_own else join(mount.prefix, own.get(key, ""))
                for prefix, via in chains(mount.parent, depth + 1, seen | {key}):
                    found.append((join(prefix, mine) if prefix else mine, (*via, mount.where)))
                    if len(found) >= _MAX_CHAINS:
                        break
        if depth == 0:
            chains_of[key] = found
        return found

    routes = []
    for reg in registrations:
        for prefix, via in chains(reg.router, 0, frozenset()):
            path = normalise(join(prefix, reg.path) if prefix else reg.path)
            routes.append(
                Route(
                    reg.method,
                    path,
                    reg.handler,
                    reg.file_id,
                    reg.line,
                    reg.end_line,
                    framework,
                    via,
                    reg.external,
                )
            )
    return routes
