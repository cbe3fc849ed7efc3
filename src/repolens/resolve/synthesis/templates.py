"""Angular component templates: an event binding runs the component's method.

``(click)="toggleFollowing()"`` in a ``@Component``'s ``template:`` (inline, in the
decorator above the class) or in the file its ``templateUrl: './x.component.html'``
names: Angular calls ``toggleFollowing`` on the component when the event fires. The
template is read as text (no grammar reads it as Angular's), and the handler is the
component class's own method of that name, or nothing: a binding that calls anything
else (``delete.emit(true)``, ``count = count + 1``) gives no edge.
"""

from __future__ import annotations

import posixpath
import re

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import Sym
from repolens.resolve.synthesis.common import (
    CALLABLE,
    Stored,
    decorator_names,
    edge,
    file_lines,
    imports_name,
    site,
)

CONFIDENCE = 0.85  # the handler runs when the event fires
LANGUAGES = frozenset({"typescript"})
_BINDING = re.compile(r"""\(([\w.-]+)\)\s*=\s*["']\s*([A-Za-z_$][\w$]*)\s*\(""")
_TEMPLATE_URL = re.compile(r"""\btemplateUrl\s*:\s*['"]([^'"]+)['"]""")


def edges(graph: Stored) -> list[EdgeRow]:
    project = graph.project
    components = [
        sym
        for sym in project.syms.values()
        if sym.kind == "class"
        and "Component" in decorator_names(sym.decorators)
        and project.files[sym.file_id].language in LANGUAGES
        and imports_name(project, sym.file_id, "Component", ("@angular/core",))
    ]
    if not components:
        return []
    spans: dict[int, list[tuple[Sym, int, int]]] = {}  # file -> (component, first, last)
    for cls in components:
        first_member = min(
            (m.start_line for by_name in project.members.get(cls.id, {}).values() for m in by_name),
            default=cls.end_line,
        )
        spans.setdefault(cls.file_id, []).append((cls, cls.start_line, first_member))
        url = _TEMPLATE_URL.search(cls.decorators)
        if url is not None:
            folder = posixpath.dirname(project.files[cls.file_id].path)
            html = project.by_path.get(posixpath.normpath(posixpath.join(folder, url.group(1))))
            if html is not None:
                spans.setdefault(html, []).append((cls, 1, 1_000_000))
    texts = {
        (file_id, line): text
        for file_id in sorted(spans)
        for line, text in file_lines(graph.conn, file_id).items()
    }
    made: list[EdgeRow] = []
    for (file_id, line), text in sorted(texts.items()):
        if "(" not in text or "=" not in text:
            continue
        for cls, start, end in spans[file_id]:
            if not start <= line <= end:
                continue
            for match in _BINDING.finditer(text):
                own = project.members.get(cls.id, {}).get(match.group(2), [])
                methods = [m for m in own if m.kind in CALLABLE]
                if len(methods) == 1:
                    col = len(text[: match.start(2)].encode())
                    made.append(
                        edge(cls.id, methods[0].id, file_id, line, col, CONFIDENCE,
                             channel="handler", via=f"({match.group(1)})",
                             site=site(project, file_id, line))
                    )  # fmt: skip
    return made
