"""Event handlers named in markup: the UI framework calls them when the event fires.

React/JSX ``<ul onClick={add}>`` (``onClick={this.bump}`` in a class), Vue
``<button @click="archive">`` / ``v-on:click="archive"``, Svelte ``on:click={archive}``:
parsing records the handler as a reference from the component (the function, the class
method rendering it, the ``.vue``/``.svelte`` component), resolved to the script's
function. What makes it a call is the attribute it is the value of, which is read from
the line's text right before the reference: nothing else (a value passed as a prop that
is no ``on...`` event, a call written inside the attribute) gives an edge.
"""

from __future__ import annotations

import re

from repolens.resolve.edges import EdgeRow
from repolens.resolve.synthesis.common import CALLABLE, Stored, edge, line_texts, site

CONFIDENCE = 0.85  # the handler runs when the event fires
# the text right before the handler's name, per language: it ends where the name starts
_BEFORE = {
    "tsx": re.compile(r"\b(on[A-Z]\w*)=\{\s*(?:this\.)?$"),
    "javascript": re.compile(r"\b(on[A-Z]\w*)=\{\s*(?:this\.)?$"),
    "vue": re.compile(r"((?:@|v-on:)[\w.:-]+)=\"\s*$"),
    "svelte": re.compile(r"\b(on:[\w|-]+)=\{?\s*$"),
}


def edges(graph: Stored) -> list[EdgeRow]:
    conn, project = graph.conn, graph.project
    files = {fid for fid, row in project.files.items() if row.language in _BEFORE}
    candidates: list[tuple[int, int, int, int, int]] = []
    for (source, file_id, line), targets in graph.references_at.items() if files else ():
        if file_id in files:
            for target, col in targets:
                sym = project.syms.get(target)
                if sym is not None and sym.kind in CALLABLE:
                    candidates.append((source, target, file_id, line, col))
    candidates.sort(key=lambda c: (c[2], c[3], c[4]))
    wanted: dict[int, set[int]] = {}
    for _, _, file_id, line, _ in candidates:
        wanted.setdefault(file_id, set()).add(line)
    texts = line_texts(conn, wanted)
    made: list[EdgeRow] = []
    for source, target, file_id, line, col in candidates:
        pattern = _BEFORE[project.files[file_id].language]
        before = texts.get((file_id, line), "").encode()[:col].decode("utf-8", "replace")
        match = pattern.search(before)
        if match is not None and source != target:
            made.append(
                edge(source, target, file_id, line, col, CONFIDENCE, channel="handler",
                     via=match.group(1), site=site(project, file_id, line))
            )  # fmt: skip
    return made
