"""FastAPI dependencies: a function whose parameter is ``Depends(get_db)`` runs ``get_db``.

``def read(db=Depends(get_db))``, ``user: Annotated[User, Depends(current_user)]`` or a
route's ``dependencies=[Depends(verify)]``: FastAPI calls the dependency before the
function, for every request, and a dependency's own ``Depends`` parameters in turn (the
same rule, one hop each). Parsing records ``get_db`` as a reference right after
``Depends(``, from the function (or, in a decorator, from the module, inside the
function's lines), so the pair is exact. ``Depends``/``Security`` count only where the
file imports them from FastAPI.
"""

from __future__ import annotations

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import Project, Sym
from repolens.resolve.synthesis.common import CALLABLE, Stored, edge, imports_name, site

CONFIDENCE = 0.85  # the framework calls it; nothing in the code does
MARKERS = ("Depends", "Security")
MODULES = ("fastapi",)
DEPENDENCY_KINDS = CALLABLE | {"class"}  # `Depends(Pagination)` makes one per request


def edges(graph: Stored) -> list[EdgeRow]:
    project = graph.project
    sites = graph.conn.execute(
        "SELECT source_id, name, file_id, line, col FROM refs WHERE kind = 'calls'"
        f" AND receiver IS NULL AND name IN ({','.join('?' * len(MARKERS))})"
        " ORDER BY file_id, line, col",
        MARKERS,
    ).fetchall()
    made: list[EdgeRow] = []
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
        if user.id != dependency.id:
            made.append(
                edge(user.id, dependency.id, int(file_id), int(line), int(col), CONFIDENCE,
                     channel="depends", via=str(name), site=site(project, int(file_id), int(line)))
            )  # fmt: skip
    return made


def _user(project: Project, source: int, file_id: int, line: int) -> Sym | None:
    """The function a ``Depends`` belongs to: the one it is written in, or, for a
    decorator's ``dependencies=[...]`` (recorded from the module), the function whose
    lines (decorators included) hold it."""
    sym = project.syms.get(source)
    if sym is not None and sym.kind in CALLABLE:
        return sym
    if sym is None or sym.kind != "file":
        return None
    holding = [
        s
        for s in project.file_syms.get(file_id, ())
        if s.kind in CALLABLE and s.parent_id == sym.id and s.start_line <= line <= s.end_line
    ]
    return holding[0] if len(holding) == 1 else None
