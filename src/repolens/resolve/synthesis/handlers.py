"""Event handlers named in markup: the UI framework calls them when the event fires.

React/JSX ``<ul onClick={add}>`` (``onClick={this.bump}`` in a class), Vue
``<button @click="archive">`` / ``v-on:click="archive"``, Svelte ``on:click={archive}``:
parsing records the handler as a reference from the component (the function, the class
method rendering it, the ``.vue``/``.svelte`` component), resolved to the script's
function. What makes it a call is the attribute it is the value of, which is read from
the line's text right before the reference: nothing else (a value passed as a prop that
is no ``on...`` event, a call written inside the attribute) gives an edge.

Svelte's arrow handlers (``on:click={() => save(item)}``, Svelte 5's ``onclick={...}``)
never reach the references: the HTML grammar a component is parsed with ends the tag at
the arrow's ``>``. They are read from the markup's text instead, and the function they
call is the component's own function of that name (its script's), or nothing.
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
    "svelte": re.compile(r"\b(on:[\w|-]+|on[a-z]+)=\{?\s*$"),  # Svelte 5: onclick
}
_SVELTE_ARROW = re.compile(r"\b(on:[\w|-]+|on[a-z]+)=\{\s*\(\s*\)\s*=>\s*([A-Za-z_$][\w$]*)\s*\(")


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
    return made + _svelte_arrows(graph)


def _svelte_arrows(graph: Stored) -> list[EdgeRow]:
    """``on:click={() => save(item)}`` in a ``.svelte`` file -> the component's ``save``."""
    project = graph.project
    components = [
        sym
        for file_id, row in project.files.items()
        if row.language == "svelte"
        for sym in project.file_syms.get(file_id, ())
        if sym.kind == "component"
    ]
    wanted = {c.file_id: set(range(c.start_line, c.end_line + 1)) for c in components}
    texts = line_texts(graph.conn, wanted) if wanted else {}
    made: list[EdgeRow] = []
    for component in components:
        own = project.members.get(component.id, {})
        for line in range(component.start_line, component.end_line + 1):
            text = texts.get((component.file_id, line), "")
            for match in _SVELTE_ARROW.finditer(text) if "=>" in text else ():
                found = [s for s in own.get(match.group(2), []) if s.kind in CALLABLE]
                if len(found) == 1:
                    col = len(text[: match.start(2)].encode())
                    made.append(
                        edge(component.id, found[0].id, component.file_id, line, col,
                             CONFIDENCE, channel="handler", via=match.group(1),
                             site=site(project, component.file_id, line))
                    )  # fmt: skip
    return made
