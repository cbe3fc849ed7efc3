"""FastAPI dependencies: a function whose parameter is ``Depends(get_db)`` runs ``get_db``.

``def read(db=Depends(get_db))``, ``user: Annotated[User, Depends(current_user)]`` or a
route's ``dependencies=[Depends(verify)]``: FastAPI calls the dependency before the
function, for every request, and a dependency's own ``Depends`` parameters in turn (the
same rule, one hop each). Parsing records ``get_db`` as a reference right after
``Depends(``, from the function (or, in a decorator, from the module, inside the
function's lines), so the pair is exact. A dependency kept in a type alias
(``SessionDep = Annotated[Session, Depends(get_db)]``, FastAPI's own idiom) is run for
each function with a parameter annotated by it, as resolution records that annotation
(a ``type_of`` edge to the alias); one given to a router (``router = APIRouter(
dependencies=[Depends(verify)])``) for each route the file registers on it.
``Depends``/``Security`` count only where the file imports them from FastAPI;
``Depends()`` with no argument names no function.
"""

from __future__ import annotations

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import Project, Sym
from repolens.resolve.synthesis.common import (
    CALLABLE,
    VARIABLES,
    Stored,
    edge,
    imports_name,
    site,
)

CONFIDENCE = 0.85  # the framework calls it; nothing in the code does
MARKERS = ("Depends", "Security")
MODULES = ("fastapi",)
DEPENDENCY_KINDS = CALLABLE | {"class"}  # `Depends(Pagination)` makes one per request
USERS = CALLABLE | {"test"}  # a route named `test_email` is still a route


def edges(graph: Stored) -> list[EdgeRow]:
    project = graph.project
    sites = graph.conn.execute(
        "SELECT source_id, name, file_id, line, col FROM refs WHERE kind = 'calls' AND resolved = 0"
        f" AND receiver IS NULL AND name IN ({','.join('?' * len(MARKERS))})"
        " ORDER BY file_id, line, col",
        MARKERS,
    ).fetchall()
    made: list[EdgeRow] = []
    aliases: dict[int, list[tuple[Sym, str]]] = {}  # alias -> (dependency, declared at)
    for source, name, file_id, line, col in sites:
        if source is None or not imports_name(project, int(file_id), str(name), MODULES):
            continue
        argument = int(col) + len(str(name)) + 1  # the dependency starts after `Depends(`
        named = [
            target
            for target, at in graph.references_at.get((int(source), int(file_id), int(line)), ())
            if at == argument
        ]
        dependency = project.syms.get(named[0]) if len(named) == 1 else None
        user = _user(project, int(source), int(file_id), int(line))
        if dependency is None or dependency.kind not in DEPENDENCY_KINDS or user is None:
            continue
        declared = site(project, int(file_id), int(line))
        if user.kind in VARIABLES:
            aliases.setdefault(user.id, []).append((dependency, declared))
        elif user.id != dependency.id:
            made.append(
                edge(user.id, dependency.id, int(file_id), int(line), int(col), CONFIDENCE,
                     channel="depends", via=str(name), site=declared)
            )  # fmt: skip
    return made + _annotated(graph, aliases) + _routed(graph, aliases)


def _routed(graph: Stored, held: dict[int, list[tuple[Sym, str]]]) -> list[EdgeRow]:
    """``router = APIRouter(dependencies=[Depends(verify)])``: each route the file
    registers on that router (``@router.get(...)`` over a function) runs ``verify``."""
    project = graph.project
    made: list[EdgeRow] = []
    for variable_id, dependencies in sorted(held.items()):
        router = project.syms[variable_id]
        prefix = f"{router.name}."
        for fn in project.file_syms.get(router.file_id, ()):
            routed = fn.kind in USERS and any(
                line.strip().lstrip("@").startswith(prefix) for line in fn.decorators.split("\n")
            )
            for dependency, declared in dependencies if routed else ():
                if dependency.id != fn.id:
                    made.append(
                        edge(fn.id, dependency.id, fn.file_id, fn.start_line, 0, CONFIDENCE,
                             channel="depends", via=router.name, site=declared)
                    )  # fmt: skip
    return made


def _annotated(graph: Stored, aliases: dict[int, list[tuple[Sym, str]]]) -> list[EdgeRow]:
    """Functions with a parameter annotated by an alias -> the alias's dependencies."""
    project = graph.project
    ids = sorted(aliases)
    made: list[EdgeRow] = []
    for part in [ids[i : i + 500] for i in range(0, len(ids), 500)]:
        rows = graph.conn.execute(
            "SELECT source_id, target_id, file_id, line, col FROM edges WHERE kind = 'type_of'"
            f" AND target_id IN ({','.join('?' * len(part))}) ORDER BY file_id, line, col",
            part,
        )
        for source, alias, file_id, line, col in rows:
            user = project.syms.get(int(source))
            if user is None or user.kind not in USERS:
                continue
            for dependency, declared in aliases[int(alias)]:
                if dependency.id != user.id:
                    made.append(
                        edge(user.id, dependency.id, int(file_id), int(line), int(col),
                             CONFIDENCE, channel="depends", via=project.syms[int(alias)].name,
                             site=declared)
                    )  # fmt: skip
    return made


def _user(project: Project, source: int, file_id: int, line: int) -> Sym | None:
    """The function a ``Depends`` belongs to: the one it is written in, or, for a
    decorator's ``dependencies=[...]`` (recorded from the module), the function whose
    lines (decorators included) hold it; or the module-level alias it is assigned to."""
    sym = project.syms.get(source)
    if sym is not None and sym.kind in USERS:
        return sym
    if sym is None or sym.kind != "file":
        return None
    holding = [
        s
        for s in project.file_syms.get(file_id, ())
        if (s.kind in USERS or s.kind in VARIABLES)
        and s.parent_id == sym.id
        and s.start_line <= line <= s.end_line
    ]
    return holding[0] if len(holding) == 1 else None
